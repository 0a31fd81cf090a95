// A bounded pool of fixed-size record blocks: the whole cap is one mapping, pre-faulted
// (MAP_POPULATE) when the pool is created, so the record path never faults a fresh page and
// nothing is lost while less than the cap is buffered, however late the writer thread gets
// a CPU. (Growing lazily from the writer thread lost events under bursts on a busy 2-core
// machine: producers fill a 64 KiB block in ~40 us, the writer may wait a scheduler tick.)
// Free blocks sit on a lock-free stack with an ABA tag; Pop and Push are safe from any
// thread.
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
  // Maps and pre-faults `cap_bytes` (rounded down to whole blocks, at least 2). Returns
  // false if the mapping fails.
  bool Init(size_t cap_bytes);
  bool initialized() const { return data_ != nullptr; }

  int32_t Pop();
  void Push(int32_t index);

  uint8_t* Data(int32_t index) const { return data_ + static_cast<size_t>(index) * kBlockBytes; }
  BlockMeta& Meta(int32_t index) const { return meta_[index]; }

  // Fewer than half of the blocks are free: time for the writer to drain.
  bool Low() const { return free_count_.load(std::memory_order_relaxed) * 2 < capacity_blocks_; }
  // After fork in the child: every populated block becomes free again.
  void ResetAllFree();

  uint32_t capacity_blocks() const { return capacity_blocks_; }
  uint32_t free_blocks() const { return free_count_.load(std::memory_order_relaxed); }

 private:
  uint8_t* data_ = nullptr;
  BlockMeta* meta_ = nullptr;
  uint32_t capacity_blocks_ = 0;
  std::atomic<uint32_t> free_count_{0};
  // Low 32 bits: index + 1 of the top block (0 = empty); high 32 bits: ABA tag.
  std::atomic<uint64_t> free_head_{0};
};

}  // namespace aiprof::runtime
