// A bounded pool of fixed-size record blocks that grows on demand. The whole cap is one
// reserved mapping, but only the first kInitialReadyBytes are faulted in when the pool is
// created, so a process that records little stays light. The writer thread faults further
// blocks in (Grow) once the record path finds a quarter of them in use, ahead of need, so
// the record path normally pops resident blocks and never takes a page fault. When a burst
// outruns the writer (it got no CPU in time) and the free stack is empty below the cap, Pop
// hands out the next never-used block itself: its first records take the page faults (a
// few µs per 64 KiB block, still lock-free and without a system call) instead of being
// dropped, so nothing below the cap is ever lost. Growth quadruples the resident part (at
// least to kActiveReadyBytes) so that a burst reaches the cap in two or three writer
// wake-ups; the resident part never shrinks while the process lives, so a process that was
// busy once keeps its headroom. Free blocks sit on a lock-free stack with an ABA tag; Pop
// and Push are safe from any thread, Grow and ResetAfterFork run on one thread at a time.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace aiprof::runtime {

inline constexpr uint32_t kBlockBytes = 64 * 1024;
inline constexpr int32_t kNoBlock = -1;
// Resident when the pool is created: what an idle profiled process pays for its buffers.
inline constexpr size_t kInitialReadyBytes = size_t{2} << 20;
// The least the pool grows to once a process records enough to run it low.
inline constexpr size_t kActiveReadyBytes = size_t{16} << 20;

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
  // Reserves `cap_bytes` (rounded down to whole blocks, at least 2) and faults in the
  // initial part. Returns false if the mapping fails.
  bool Init(size_t cap_bytes);
  bool initialized() const { return data_ != nullptr; }

  // A free block, else (below the cap) the next never-used one, else kNoBlock.
  int32_t Pop();
  void Push(int32_t index);

  // Writer thread: faults in more blocks and makes them free (quadrupling the claimed
  // part, at least to kActiveReadyBytes, at most to the cap). Returns the blocks added.
  uint32_t Grow();

  uint8_t* Data(int32_t index) const { return data_ + static_cast<size_t>(index) * kBlockBytes; }
  BlockMeta& Meta(int32_t index) const { return meta_[index]; }

  // Fewer than half of the resident blocks are free: time for the writer to drain.
  bool Low() const {
    return free_count_.load(std::memory_order_relaxed) * 2 <
           claimed_blocks_.load(std::memory_order_relaxed);
  }
  // Below the cap, a quarter of the resident blocks are in use: time for the writer to grow
  // the pool, early enough that the rest lasts while it wakes up.
  bool GrowthDue() const {
    uint32_t claimed = claimed_blocks_.load(std::memory_order_relaxed);
    return claimed < capacity_blocks_ &&
           free_count_.load(std::memory_order_relaxed) * 4 < claimed * 3;
  }
  // After fork in the child: only the initial part stays resident (the parent's grown part
  // is not inherited, see Init), and all of it is free.
  void ResetAfterFork();

  uint32_t capacity_blocks() const { return capacity_blocks_; }
  uint32_t claimed_blocks() const { return claimed_blocks_.load(std::memory_order_relaxed); }
  uint32_t free_blocks() const { return free_count_.load(std::memory_order_relaxed); }

 private:
  // Claims [first, end): up to `count` never-used blocks below `limit`. False if none is left.
  bool ClaimUnused(uint32_t count, uint32_t limit, uint32_t& first, uint32_t& end);
  // Faults in blocks [first, end) and pushes them onto the free stack.
  void MakeReady(uint32_t first, uint32_t end);
  // A block leaving the pool for a thread's chain starts empty and unlinked.
  void ResetMeta(int32_t index);

  uint8_t* data_ = nullptr;
  BlockMeta* meta_ = nullptr;
  uint32_t capacity_blocks_ = 0;
  uint32_t initial_blocks_ = 0;
  // The child of a fork cannot drop the inherited grown part with MADV_WIPEONFORK (kernels
  // before 4.14): it releases it with MADV_DONTNEED instead.
  bool wipe_on_fork_ = false;
  // Blocks [0, claimed_blocks_) were handed to the free stack (resident) or straight to a
  // thread (resident once written); the rest have never been touched.
  std::atomic<uint32_t> claimed_blocks_{0};
  std::atomic<uint32_t> free_count_{0};
  // Low 32 bits: index + 1 of the top block (0 = empty); high 32 bits: ABA tag.
  std::atomic<uint64_t> free_head_{0};
};

}  // namespace aiprof::runtime
