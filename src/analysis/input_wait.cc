#include "analysis/input_wait.h"

#include <algorithm>

#include "model/ascii_case.h"

namespace aiprof::analysis {

bool IsInputWaitName(std::string_view name) {
  static constexpr std::string_view kWords[] = {"dataloader", "datapipe", "data_wait", "data_load",
                                                "load_batch", "get_next", "getnext"};
  return std::any_of(std::begin(kWords), std::end(kWords),
                     [&](std::string_view word) { return model::ContainsNoCase(name, word); });
}

}  // namespace aiprof::analysis
