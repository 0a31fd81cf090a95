// Pages of the model's columns that hold only zeros, given back to the kernel: a column where
// no row has a value (slices' args when no event has arguments, the flags, markers'
// is_instant...) keeps its size and reads as zeros, but costs no memory (the kernel maps its
// shared zero page on a read). Only whole 2 MiB ranges, the huge pages the columns are on
// (huge_pages.h): no huge page is split, and khugepaged never fills a range with no page in it.
#pragma once

#include <cstddef>

#include "model/model.h"

namespace aiprof::model {

// For a model that is only read from here on (the UI server's): a row written later gets a
// fresh page, as any untouched memory would. Returns the bytes given back.
size_t ReleaseZeroPages(Model& model);

}  // namespace aiprof::model
