// Pages of the model's columns that hold only zeros, given back to the kernel: a column where
// no row has a value (slices' args when no event has arguments, the flags, markers'
// is_instant...) keeps its size and reads as zeros, but costs no memory (the kernel maps its
// shared zero page on a read). Only whole 2 MiB ranges, the huge pages the columns are on
// (huge_pages.h): no huge page is split, and khugepaged never fills a range with no page in it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/model.h"

namespace aiprof::model {

// For a model that is only read from here on (the UI server's): a row written later gets a
// fresh page, as any untouched memory would. Returns the bytes given back.
size_t ReleaseZeroPages(Model& model);

// The same while importers fill the model (file_parser.cc, after each events chunk): each
// call looks at the ranges that the columns' rows so far cover and that no earlier call looked
// at, so that a column no row has a value in holds a range or two at a time instead of its
// whole size, and the parse's peak stays under the model's (docs/PERFORMANCE.md, Web UI). A
// row an importer writes later in a range given back gets a fresh page, with its value.
class ZeroPageReleaser {
 public:
  // Returns the bytes given back by this call.
  size_t ReleaseFilled(Model& model);

 private:
  // Per column, in ForEachColumn's order: its storage when last looked at, and the end of
  // what was looked at (a column that moved is looked at from its start).
  std::vector<std::pair<uintptr_t, uintptr_t>> looked_;
};

}  // namespace aiprof::model
