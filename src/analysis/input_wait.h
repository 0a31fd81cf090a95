// Names of ranges that wait for or load the next input batch rather than compute: PyTorch's
// DataLoader ranges ("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"),
// MindSpore's GetNext, and the usual mstx/NVTX spellings ("data_wait", "load_batch",
// "data_load", "DataLoader"). The overlap analysis leaves them out of Computing, so their
// time shows as Free and Preparing, where it belongs. Case-insensitive.
#pragma once

#include <string_view>

namespace aiprof::analysis {

bool IsInputWaitName(std::string_view name);

}  // namespace aiprof::analysis
