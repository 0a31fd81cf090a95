#include "runtime/runtime.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <new>

extern "C" {
__attribute__((visibility("default"))) volatile int aiprof_collecting = 0;
__attribute__((visibility("default"))) volatile int aiprof_markers_active = 0;
__attribute__((visibility("default"))) __thread aiprof_thread_buffer* aiprof_current_buffer
    __attribute__((tls_model("initial-exec"))) = nullptr;
}

namespace aiprof::runtime {

std::atomic<uint64_t> g_ignored_marker_calls{0};

namespace {

constexpr uint32_t kMaxStrings = 1u << 18;
constexpr size_t kStringArenaBytes = 16u << 20;

alignas(Runtime) unsigned char g_runtime_storage[sizeof(Runtime)];
std::once_flag g_runtime_once;
std::mutex g_init_mutex;
pthread_key_t g_thread_exit_key;

// Marks the thread's slot exited; the writer drains what is left and frees the slot.
void OnThreadExit(void* state_pointer) {
  auto* state = static_cast<ThreadState*>(state_pointer);
  if (aiprof_current_buffer == state) aiprof_current_buffer = nullptr;
  prctl(PR_GET_NAME, state->name_at_exit, 0, 0, 0);
  state->status.store(kSlotExited, std::memory_order_release);
}

}  // namespace

Runtime& GetRuntime() {
  std::call_once(g_runtime_once, [] { new (g_runtime_storage) Runtime(); });
  return *reinterpret_cast<Runtime*>(g_runtime_storage);
}

bool InitBuffers(uint32_t buffer_mb) {
  Runtime& runtime = GetRuntime();
  if (runtime.buffers_ready.load(std::memory_order_acquire)) return true;
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (runtime.buffers_ready.load(std::memory_order_acquire)) return true;
  size_t cap = static_cast<size_t>(buffer_mb) << 20;
  if (!InitStrings() || !runtime.pool.Init(cap) || !runtime.threads.Init()) {
    std::fprintf(stderr, "aiprof: cannot reserve %u MiB of buffer memory; profiling disabled\n",
                 buffer_mb);
    return false;
  }
  pthread_key_create(&g_thread_exit_key, OnThreadExit);
  runtime.buffers_ready.store(true, std::memory_order_release);
  return true;
}

bool InitStrings() {
  Runtime& runtime = GetRuntime();
  if (runtime.strings_ready.load(std::memory_order_acquire)) return true;
  static std::mutex strings_mutex;
  std::lock_guard<std::mutex> lock(strings_mutex);
  if (runtime.strings_ready.load(std::memory_order_acquire)) return true;
  if (!runtime.strings.Init(kMaxStrings, kStringArenaBytes)) return false;
  runtime.strings_ready.store(true, std::memory_order_release);
  return true;
}

void PokeWriter() {
  Runtime& runtime = GetRuntime();
  if (runtime.poke_pending.exchange(true, std::memory_order_acq_rel)) return;
  WakeWriter();
}

void WakeWriter() {
  Runtime& runtime = GetRuntime();
  runtime.wake_sequence.fetch_add(1, std::memory_order_release);
  syscall(SYS_futex, &runtime.wake_sequence, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void WaitForWake(uint32_t seen, int timeout_ms) {
  Runtime& runtime = GetRuntime();
  timespec timeout{timeout_ms / 1000, static_cast<long>(timeout_ms % 1000) * 1000000};
  // Returns at once when a wake came after `seen` was read (the counter differs).
  syscall(SYS_futex, &runtime.wake_sequence, FUTEX_WAIT_PRIVATE, seen, &timeout, nullptr, 0);
}

bool ThreadRegistry::Init() {
  void* memory = mmap(nullptr, sizeof(ThreadState) * kMaxThreads, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) return false;
  // Zero pages are a valid free slot; pages are touched only when a slot is first used.
  slots_ = static_cast<ThreadState*>(memory);
  return true;
}

ThreadState* ThreadRegistry::Register(BlockPool& pool) {
  for (uint32_t index = 0; index < kMaxThreads; ++index) {
    ThreadState* state = &slots_[index];
    uint32_t expected = kSlotFree;
    if (state->status.load(std::memory_order_relaxed) != kSlotFree ||
        !state->status.compare_exchange_strong(expected, kSlotClaimed, std::memory_order_acquire)) {
      continue;
    }
    state->tid = static_cast<uint32_t>(syscall(SYS_gettid));
    state->next_range_id = 0;
    state->range_id_limit = 0;
    std::memset(state->intern_cache, 0, sizeof state->intern_cache);
    for (auto& counter : state->drops) counter.store(0, std::memory_order_relaxed);
    state->drain_block = kNoBlock;
    state->drain_position = 0;
    state->drops_reported_total = 0;
    state->reported_name[0] = '\0';
    std::memset(state->name_at_exit, 0, sizeof state->name_at_exit);
    prctl(PR_GET_NAME, state->name_at_exit, 0, 0, 0);
    int32_t block = pool.Pop();
    // Many threads starting at once take many blocks without ever reaching ReserveSlow.
    if (pool.Low() || pool.GrowthDue()) PokeWriter();
    state->block = block;
    if (block == kNoBlock) {
      state->block_data = nullptr;
      state->committed = nullptr;
      state->position = kBlockBytes;
      state->chain_head.store(kNoBlock, std::memory_order_relaxed);
    } else {
      state->block_data = pool.Data(block);
      state->committed = CommittedWord(pool.Meta(block));
      state->position = 0;
      state->chain_head.store(block, std::memory_order_relaxed);
    }
    uint32_t high = high_water_.load(std::memory_order_relaxed);
    while (high < index + 1 &&
           !high_water_.compare_exchange_weak(high, index + 1, std::memory_order_release)) {
    }
    state->status.store(kSlotActive, std::memory_order_release);
    return state;
  }
  return nullptr;
}

void ThreadRegistry::Release(ThreadState* state) {
  state->status.store(kSlotFree, std::memory_order_release);
}

void ThreadRegistry::ResetAfterFork() {
  uint32_t high = high_water_.load(std::memory_order_relaxed);
  for (uint32_t index = 0; index < high; ++index) {
    slots_[index].status.store(kSlotFree, std::memory_order_relaxed);
  }
  high_water_.store(0, std::memory_order_relaxed);
}

ThreadState* RegisterCurrentThread() {
  Runtime& runtime = GetRuntime();
  if (!runtime.buffers_ready.load(std::memory_order_acquire)) return nullptr;
  ThreadState* state = runtime.threads.Register(runtime.pool);
  if (state == nullptr) return nullptr;
  aiprof_current_buffer = state;
  pthread_setspecific(g_thread_exit_key, state);
  return state;
}

uint8_t* ReserveSlow(ThreadState* state, uint32_t bytes, uint8_t kind) {
  Runtime& runtime = GetRuntime();
  if (bytes > kBlockBytes) {
    CountDrop(state, kind);
    return nullptr;
  }
  int32_t block = runtime.pool.Pop();
  if (block == kNoBlock) {
    // No poke for draining here: the writer was poked when the pool got low, and poking on
    // every dropped record would keep it flushing in a loop while a thread sits on a full
    // block. Below the cap the writer is asked to grow the pool (finite work).
    if (runtime.pool.GrowthDue()) PokeWriter();
    CountDrop(state, kind);
    return nullptr;
  }
  if (state->block == kNoBlock) {
    state->chain_head.store(block, std::memory_order_release);
  } else {
    runtime.pool.Meta(state->block).next.store(block, std::memory_order_release);
  }
  state->block = block;
  state->block_data = runtime.pool.Data(block);
  state->committed = CommittedWord(runtime.pool.Meta(block));
  state->position = 0;
  if (runtime.pool.Low() || runtime.pool.GrowthDue()) PokeWriter();
  return state->block_data;
}

uint32_t InternSlow(ThreadState* state, const char* text, size_t length, InternCacheEntry* entry) {
  (void)state;
  Runtime& runtime = GetRuntime();
  bool full = false;
  uint32_t id = runtime.strings.Intern(text, length, &full);
  if (!full) {
    entry->pointer = text;
    entry->interned = runtime.strings.Text(id);
    entry->length = static_cast<uint32_t>(length);
    entry->id = id;
  }
  return id;
}

}  // namespace aiprof::runtime
