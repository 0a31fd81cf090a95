// Per-thread record buffers and the record path. Each thread owns one ThreadState (found
// through an initial-exec TLS pointer) and writes records into its current block; the
// writer thread drains the published part. Nothing here allocates, locks or makes a
// system call except registration (first record of a thread) and the rare poke of the
// writer when blocks run low.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>

#include "aiprof/plugin.h"
#include "runtime/block_pool.h"

namespace aiprof::runtime {

inline constexpr uint32_t kInternCacheSize = 64;
inline constexpr uint32_t kMaxThreads = 4096;
inline constexpr uint32_t kRangeIdBatch = 1024;

// Caches the id of a string the thread passed recently, by pointer. The content is checked
// against the interned copy, so a reused buffer with new text is interned again.
struct InternCacheEntry {
  const char* pointer;
  const char* interned;
  uint32_t length;
  uint32_t id;
};

enum ThreadStatus : uint32_t { kSlotFree = 0, kSlotClaimed = 1, kSlotActive = 2, kSlotExited = 3 };

// The inherited aiprof_thread_buffer (block_data, committed, position) is the record
// cursor that plugins also advance inline (aiprof_emit_inline in plugin.h). position is
// kBlockBytes when there is no block, so the next record goes slow; committed points at the
// current block's BlockMeta::committed (CommittedWord).
struct alignas(64) ThreadState : aiprof_thread_buffer {
  // Owned by the thread.
  int32_t block;
  uint32_t tid;
  uint64_t next_range_id;
  uint64_t range_id_limit;
  InternCacheEntry intern_cache[kInternCacheSize];
  // Written only by the thread (load + store), read by the writer.
  std::atomic<uint64_t> drops[256];

  // Kernel name at registration, refreshed at thread exit (published with `status`).
  char name_at_exit[16];
  // Shared: the first block of the chain once the thread has one.
  std::atomic<int32_t> chain_head;
  std::atomic<uint32_t> status;

  // Owned by the writer thread.
  int32_t drain_block;
  uint32_t drain_position;
  uint64_t drops_reported_total;
  char reported_name[16];
};

static_assert(kBlockBytes == AIPROF_BLOCK_BYTES);
static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
              std::atomic<uint32_t>::is_always_lock_free);

// The current block's publication count as the plain word plugins store to atomically.
inline uint32_t* CommittedWord(BlockMeta& meta) {
  return reinterpret_cast<uint32_t*>(&meta.committed);
}

class ThreadRegistry {
 public:
  bool Init();
  // The calling thread's state, registering it on first use; nullptr if none can be had.
  ThreadState* Register(BlockPool& pool);
  ThreadState* Slot(uint32_t index) const { return &slots_[index]; }
  uint32_t high_water() const { return high_water_.load(std::memory_order_acquire); }
  // Writer: returns a slot whose thread exited and whose data was drained.
  void Release(ThreadState* state);
  // After fork in the child: every slot but the caller's is dead; all become free.
  void ResetAfterFork();

 private:
  ThreadState* slots_ = nullptr;
  std::atomic<uint32_t> high_water_{0};
};

// Slow path of Reserve: seals the full block and takes a fresh one. nullptr = dropped.
uint8_t* ReserveSlow(ThreadState* state, uint32_t bytes, uint8_t kind);
ThreadState* RegisterCurrentThread();

inline void CountDrop(ThreadState* state, uint8_t kind) {
  auto& counter = state->drops[kind];
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

inline ThreadState* CurrentThread() {
  aiprof_thread_buffer* buffer = aiprof_current_buffer;
  if (__builtin_expect(buffer != nullptr, 1)) return static_cast<ThreadState*>(buffer);
  return RegisterCurrentThread();
}

// Space for `bytes` (a multiple of 16) in the thread's block, or nullptr (drop counted).
inline uint8_t* Reserve(ThreadState* state, uint32_t bytes, uint8_t kind) {
  if (__builtin_expect(state->position + bytes <= kBlockBytes, 1)) {
    return state->block_data + state->position;
  }
  return ReserveSlow(state, bytes, kind);
}

// Publishes the records written into the reserved space, as aiprof_emit_inline does.
inline void Commit(ThreadState* state, uint32_t bytes) {
  state->position += bytes;
  __atomic_store_n(state->committed, state->position, __ATOMIC_RELEASE);
}

}  // namespace aiprof::runtime
