#include "analysis/input_wait.h"

#include <algorithm>
#include <cctype>

namespace aiprof::analysis {

bool IsInputWaitName(std::string_view name) {
  static constexpr std::string_view kWords[] = {"dataloader", "datapipe", "data_wait", "data_load",
                                                "load_batch", "get_next", "getnext"};
  for (std::string_view word : kWords) {
    auto found = std::search(
        name.begin(), name.end(), word.begin(), word.end(),
        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
    if (found != name.end()) return true;
  }
  return false;
}

}  // namespace aiprof::analysis
