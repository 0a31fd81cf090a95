// A code of 2 bits (0-3) per row, 32 to a 64-bit word: a per-slice classification held or
// built beside the model in a quarter of a byte a slice (1.2 MiB at 5 M slices instead of
// 4.8), where the UI server's peak memory is the model's size (docs/PERFORMANCE.md, Web UI).
// Every code starts at 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace aiprof::analysis {

class PackedCodes {
 public:
  PackedCodes() = default;
  explicit PackedCodes(size_t size) : words_((size + kPerWord - 1) / kPerWord, 0), size_(size) {}

  size_t size() const { return size_; }
  uint8_t Get(size_t row) const {
    return static_cast<uint8_t>((words_[row / kPerWord] >> Shift(row)) & kMask);
  }
  void Set(size_t row, uint8_t code) {
    uint64_t& word = words_[row / kPerWord];
    word = (word & ~(kMask << Shift(row))) | (uint64_t{code & kMask} << Shift(row));
  }
  size_t MemoryBytes() const { return words_.capacity() * sizeof(uint64_t); }

 private:
  static constexpr size_t kPerWord = 32;
  static constexpr uint64_t kMask = 3;
  static unsigned Shift(size_t row) { return static_cast<unsigned>(2 * (row % kPerWord)); }

  std::vector<uint64_t> words_;
  size_t size_ = 0;
};

}  // namespace aiprof::analysis
