// Model-wide interned strings. Every name, category and text value in the model tables is
// a dense uint32 id into one pool, so tables stay fixed-width and exporters compare ids.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace aiprof::model {

using StringId = uint32_t;
inline constexpr StringId kNoString = 0;  // the empty string

class StringPool {
 public:
  StringPool() { Intern(""); }
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  StringId Intern(std::string_view text) {
    auto found = index_.find(text);
    if (found != index_.end()) return found->second;
    // A deque never moves its elements, so the views held by index_ stay valid.
    storage_.emplace_back(text);
    StringId id = static_cast<StringId>(views_.size());
    views_.push_back(storage_.back());
    index_.emplace(views_.back(), id);
    return id;
  }
  // kMissing when `text` was never interned.
  static constexpr StringId kMissing = UINT32_MAX;
  StringId Find(std::string_view text) const {
    auto found = index_.find(text);
    return found == index_.end() ? kMissing : found->second;
  }
  std::string_view Get(StringId id) const { return id < views_.size() ? views_[id] : ""; }
  size_t size() const { return views_.size(); }

 private:
  std::deque<std::string> storage_;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, StringId> index_;
};

}  // namespace aiprof::model
