#include "model/process_group_call.h"

#include <algorithm>
#include <tuple>

namespace aiprof::model {

ProcessGroupCallReader::ProcessGroupCallReader(const Model& m) : model_(m) {
  const StringId key = m.strings.Find("Process Group Name");
  const StringId name = m.strings.Find("torch.distributed (process group)");
  if (key == StringPool::kMissing || name == StringPool::kMissing) return;
  const SliceTable& s = m.slices;
  for (uint32_t row = 0; row < s.size(); ++row) {
    if (s.name[row] != name) continue;
    const auto group = m.args.TextOfType(s.args[row], key, ArgType::kString);
    if (!group) continue;
    calls_.push_back({m.ProcessOfThread(m.ThreadOfSlice(row)), s.ts[row], s.end[row], *group});
  }
  std::sort(calls_.begin(), calls_.end(), [](const Call& a, const Call& b) {
    return std::tie(a.process, a.begin) < std::tie(b.process, b.begin);
  });
}

std::string_view ProcessGroupCallReader::GroupAt(uint32_t process, int64_t ts) const {
  // Calls of one process follow each other or nest (all_gather_object holds the
  // all_gather it makes): the latest one starting at or before `ts` that still holds it is
  // the innermost. Only the last few are looked at, so an operation outside every call
  // (the default group) costs no scan of the process's earlier calls.
  constexpr int kDeepestNesting = 4;
  auto it = std::upper_bound(calls_.begin(), calls_.end(), std::make_pair(process, ts),
                             [](const std::pair<uint32_t, int64_t>& key, const Call& call) {
                               return key < std::make_pair(call.process, call.begin);
                             });
  for (int looked = 0; looked < kDeepestNesting && it != calls_.begin(); ++looked) {
    --it;
    if (it->process != process) break;
    if (ts <= it->end) return model_.Str(it->group);
  }
  return {};
}

}  // namespace aiprof::model
