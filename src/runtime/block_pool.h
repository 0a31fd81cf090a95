// A bounded pool of fixed-size record blocks. The whole cap is reserved as one mapping at
// init; the writer thread pre-faults blocks (touches their pages) before handing them out,
// so the record path never faults a fresh page. Free blocks sit on a lock-free stack with
// an ABA tag; Pop and Push are safe from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace aiprof::runtime {

inline constexpr uint32_t kBlockBytes = 64 * 1024;
inline constexpr int32_t kNoBlock = -1;

// Per-block state shared by the owning thread (producer) and the writer.
struct BlockMeta {
  // Bytes of whole records published by the owner (release store, acquire load).
  std::atomic<uint32_t> committed{0};
  // Next block of the owner's chain once this one is sealed (full); kNoBlock until then.
  std::atomic<int32_t> next{kNoBlock};
  // Free-stack link.
  std::atomic<int32_t> next_free{kNoBlock};
};

class BlockPool {
 public:
  // Reserves `cap_bytes` (rounded down to whole blocks, at least 2) and pre-faults
  // `initial_bytes`. Returns false if the mapping fails.
  bool Init(size_t cap_bytes, size_t initial_bytes);
  bool initialized() const { return data_ != nullptr; }

  int32_t Pop();
  void Push(int32_t index);

  uint8_t* Data(int32_t index) const { return data_ + static_cast<size_t>(index) * kBlockBytes; }
  BlockMeta& Meta(int32_t index) const { return meta_[index]; }

  // Writer thread: pre-faults more blocks while fewer than a quarter of the populated
  // ones are free, up to the cap.
  void GrowIfLow();
  // After fork in the child: every populated block becomes free again.
  void ResetAllFree();

  uint32_t capacity_blocks() const { return capacity_blocks_; }
  uint32_t populated_blocks() const { return populated_.load(std::memory_order_relaxed); }
  uint32_t free_blocks() const { return free_count_.load(std::memory_order_relaxed); }

 private:
  void Populate(uint32_t count);

  uint8_t* data_ = nullptr;
  BlockMeta* meta_ = nullptr;
  uint32_t capacity_blocks_ = 0;
  std::atomic<uint32_t> populated_{0};
  std::atomic<uint32_t> free_count_{0};
  // Low 32 bits: index + 1 of the top block (0 = empty); high 32 bits: ABA tag.
  std::atomic<uint64_t> free_head_{0};
};

}  // namespace aiprof::runtime
