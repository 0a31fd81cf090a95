#include "server/flame_tree.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace aiprof::server {
namespace {

// The whole tree before pruning: children found by (parent, name) in one hash map rather
// than a map per node, and linked as first child / next sibling rather than a vector per
// node, since a big profile has hundreds of thousands of nodes.
struct FullTree {
  std::vector<uint32_t> name{0};
  std::vector<uint64_t> value{0};
  std::vector<uint32_t> first_child{UINT32_MAX};
  std::vector<uint32_t> next_sibling{UINT32_MAX};
};

uint64_t ChildKey(uint32_t parent, uint32_t name) {
  return (static_cast<uint64_t>(parent) << 32) | name;
}

}  // namespace

FlameTree BuildFlameTree(const std::map<std::string, uint64_t>& folded, double min_share) {
  FlameTree out;
  out.names.push_back("all");
  std::unordered_map<std::string_view, uint32_t> name_index;
  std::unordered_map<uint64_t, uint32_t> child_of;
  FullTree full;
  // The folded stacks come sorted, so a stack mostly shares its first frames with the one
  // before: those frames are compared as text and their nodes reused, and only the frames
  // after the first difference are looked up.
  std::vector<std::string_view> previous_frames;
  std::vector<uint32_t> previous_nodes;
  for (const auto& [stack, weight] : folded) {
    full.value[0] += weight;
    uint32_t node = 0;
    size_t depth = 0;
    bool shared = true;
    std::string_view rest = stack;
    while (!rest.empty()) {
      const size_t end = std::min(rest.find(';'), rest.size());
      const std::string_view frame = rest.substr(0, end);
      rest.remove_prefix(end == rest.size() ? end : end + 1);
      shared = shared && depth < previous_frames.size() && previous_frames[depth] == frame;
      if (shared) {
        node = previous_nodes[depth];
      } else {
        auto [name_it, new_name] =
            name_index.emplace(frame, static_cast<uint32_t>(out.names.size()));
        if (new_name) out.names.emplace_back(frame);
        auto [child_it, new_child] = child_of.emplace(ChildKey(node, name_it->second),
                                                      static_cast<uint32_t>(full.name.size()));
        if (new_child) {
          full.name.push_back(name_it->second);
          full.value.push_back(0);
          full.first_child.push_back(UINT32_MAX);
          full.next_sibling.push_back(full.first_child[node]);
          full.first_child[node] = child_it->second;
        }
        node = child_it->second;
        previous_frames.resize(depth);
        previous_nodes.resize(depth);
        previous_frames.push_back(frame);
        previous_nodes.push_back(node);
      }
      full.value[node] += weight;
      ++depth;
    }
  }
  // Depth-first from the root, children by name, dropping the small ones; an explicit stack
  // since a deep recursion (thousands of frames) must not overflow.
  const auto threshold = static_cast<uint64_t>(min_share * static_cast<double>(full.value[0]));
  std::vector<std::pair<uint32_t, uint32_t>> pending{{0, UINT32_MAX}};  // (full node, parent)
  std::vector<uint32_t> kept_name(out.names.size(), UINT32_MAX);        // all names → kept names
  std::vector<uint32_t> kept_names;                                     // kept names → all names
  std::vector<uint32_t> children;                                       // the node's, reused
  while (!pending.empty()) {
    const auto [node, parent] = pending.back();
    pending.pop_back();
    const auto index = static_cast<uint32_t>(out.name.size());
    uint32_t& kept = kept_name[full.name[node]];
    if (kept == UINT32_MAX) {
      kept = static_cast<uint32_t>(kept_names.size());
      kept_names.push_back(full.name[node]);
    }
    out.name.push_back(kept);
    out.parent.push_back(parent);
    out.value.push_back(full.value[node]);
    children.clear();
    for (uint32_t c = full.first_child[node]; c != UINT32_MAX; c = full.next_sibling[c]) {
      children.push_back(c);
    }
    std::sort(children.begin(), children.end(), [&](uint32_t a, uint32_t b) {
      return out.names[full.name[a]] < out.names[full.name[b]];
    });
    // Pushed in reverse so that they come off the stack in order.
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      if (full.value[*it] < threshold || full.value[*it] == 0) {
        out.pruned_value += full.value[*it];
        continue;
      }
      pending.push_back({*it, index});
    }
  }
  out.pruned_nodes = full.name.size() - out.name.size();
  std::vector<std::string> names;
  names.reserve(kept_names.size());
  for (uint32_t n : kept_names) names.push_back(std::move(out.names[n]));
  out.names = std::move(names);
  return out;
}

}  // namespace aiprof::server
