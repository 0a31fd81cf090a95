#include "server/compact_ids.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace aiprof::server {
namespace {

template <typename T>
bool Fits(int64_t value) {
  return value >= std::numeric_limits<T>::min() && value <= std::numeric_limits<T>::max();
}

}  // namespace

void CompactIds::push_back(uint32_t id) {
  if (pending_.empty()) pending_.reserve(kBlock);
  pending_.push_back(id);
  ++size_;
  if (pending_.size() == kBlock) Seal();
}

void CompactIds::Finish() {
  if (!pending_.empty()) Seal();
  std::vector<uint32_t>().swap(pending_);
  blocks_.shrink_to_fit();
  bytes_.shrink_to_fit();
}

// The block's line runs from its first id to its last; its distances take the fewest bytes
// that hold them all.
void CompactIds::Seal() {
  const size_t n = pending_.size();
  Block block;
  block.first = pending_.front();
  const int64_t rise = int64_t{pending_.back()} - int64_t{pending_.front()};
  const int64_t step = n > 1 ? rise / static_cast<int64_t>(n - 1) : 0;
  block.step = Fits<int32_t>(step) ? static_cast<int32_t>(step) : 0;
  int64_t lowest = 0, highest = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t distance = int64_t{pending_[i]} -
                             (int64_t{block.first} + int64_t{block.step} * static_cast<int64_t>(i));
    lowest = std::min(lowest, distance);
    highest = std::max(highest, distance);
  }
  block.width = lowest == 0 && highest == 0                       ? 0
                : Fits<int8_t>(lowest) && Fits<int8_t>(highest)   ? 1
                : Fits<int16_t>(lowest) && Fits<int16_t>(highest) ? 2
                                                                  : 4;
  block.offset = static_cast<uint32_t>(bytes_.size());
  for (size_t i = 0; i < n && block.width > 0; ++i) {
    const int64_t distance = int64_t{pending_[i]} -
                             (int64_t{block.first} + int64_t{block.step} * static_cast<int64_t>(i));
    if (block.width == 1) {
      bytes_.push_back(static_cast<uint8_t>(static_cast<int8_t>(distance)));
    } else if (block.width == 2) {
      const int16_t value = static_cast<int16_t>(distance);
      const auto* raw = reinterpret_cast<const uint8_t*>(&value);
      bytes_.insert(bytes_.end(), raw, raw + 2);
    } else {
      const uint32_t value = pending_[i];
      const auto* raw = reinterpret_cast<const uint8_t*>(&value);
      bytes_.insert(bytes_.end(), raw, raw + 4);
    }
  }
  blocks_.push_back(block);
  pending_.clear();
}

uint32_t CompactIds::operator[](size_t i) const {
  const size_t at = i / kBlock;
  if (at == blocks_.size()) return pending_[i % kBlock];
  const Block& block = blocks_[at];
  const size_t k = i % kBlock;
  const uint8_t* data = bytes_.data() + block.offset;
  const int64_t line = int64_t{block.first} + int64_t{block.step} * static_cast<int64_t>(k);
  switch (block.width) {
    case 0:
      return static_cast<uint32_t>(line);
    case 1:
      return static_cast<uint32_t>(line + static_cast<int8_t>(data[k]));
    case 2: {
      int16_t value;
      std::memcpy(&value, data + 2 * k, 2);
      return static_cast<uint32_t>(line + value);
    }
    default: {
      uint32_t value;
      std::memcpy(&value, data + 4 * k, 4);
      return value;
    }
  }
}

std::vector<uint32_t> CompactIds::Release() {
  std::vector<uint32_t> ids(size_);
  for (size_t i = 0; i < size_; ++i) ids[i] = (*this)[i];
  *this = CompactIds();
  return ids;
}

size_t CompactIds::MemoryBytes() const {
  return blocks_.capacity() * sizeof(Block) + bytes_.capacity() + pending_.capacity() * 4;
}

}  // namespace aiprof::server
