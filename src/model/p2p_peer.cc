#include "model/p2p_peer.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>
#include <unordered_map>

namespace aiprof::model {

namespace {

constexpr size_t kPeerArgument = 2;  // (tensors, process group, peer rank, tag)

// The peer rank among the op's "Concrete Inputs" (a JSON array of strings); -1 if absent.
int32_t ParsePeer(std::string_view concrete_inputs) {
  const auto inputs = nlohmann::json::parse(concrete_inputs, nullptr, false);
  if (!inputs.is_array() || inputs.size() <= kPeerArgument || !inputs[kPeerArgument].is_string())
    return -1;
  const std::string& text = inputs[kPeerArgument].get_ref<const std::string&>();
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stoi(text);
}

}  // namespace

P2pPeerReader::P2pPeerReader(const Model& m) {
  const StringId send = m.strings.Find("c10d::send");
  const StringId recv = m.strings.Find("c10d::recv_");
  const StringId concrete = m.strings.Find("Concrete Inputs");
  if ((send == StringPool::kMissing && recv == StringPool::kMissing) ||
      concrete == StringPool::kMissing)
    return;
  std::unordered_map<StringId, int32_t> parsed;  // the same few argument texts repeat
  const SliceTable& s = m.slices;
  for (uint32_t row = 0; row < s.size(); ++row) {
    if (s.name[row] != send && s.name[row] != recv) continue;
    const auto text = m.args.TextOfType(s.args[row], concrete, ArgType::kJson);
    if (!text) continue;
    auto [it, inserted] = parsed.try_emplace(*text, -1);
    if (inserted) it->second = ParsePeer(m.Str(*text));
    const int32_t peer = it->second;
    if (peer < 0) continue;
    issues_.push_back({m.ProcessOfThread(m.ThreadOfSlice(row)), s.name[row] == send, s.ts[row],
                       s.end[row], peer});
  }
  std::sort(issues_.begin(), issues_.end(), [](const Issue& a, const Issue& b) {
    return std::tie(a.process, a.sends, a.begin) < std::tie(b.process, b.sends, b.begin);
  });
}

int32_t P2pPeerReader::PeerOf(uint32_t process, bool sends, int64_t ts) const {
  // The last op of this process and direction starting at or before `ts`.
  const auto after =
      std::upper_bound(issues_.begin(), issues_.end(), std::make_tuple(process, sends, ts),
                       [](const std::tuple<uint32_t, bool, int64_t>& key, const Issue& issue) {
                         return key < std::tie(issue.process, issue.sends, issue.begin);
                       });
  if (after == issues_.begin()) return -1;
  const Issue& issue = *(after - 1);
  if (issue.process != process || issue.sends != sends || ts > issue.end) return -1;
  return issue.peer;
}

}  // namespace aiprof::model
