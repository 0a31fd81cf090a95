#include "runtime/block_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace aiprof::runtime {

namespace {
constexpr uint32_t kGrowStepBlocks = 16;
}

bool BlockPool::Init(size_t cap_bytes, size_t initial_bytes) {
  capacity_blocks_ = std::max<uint32_t>(2, static_cast<uint32_t>(cap_bytes / kBlockBytes));
  size_t data_bytes = static_cast<size_t>(capacity_blocks_) * kBlockBytes;
  void* data = mmap(nullptr, data_bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (data == MAP_FAILED) return false;
  size_t meta_bytes = sizeof(BlockMeta) * capacity_blocks_;
  void* meta = mmap(nullptr, meta_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
  if (meta == MAP_FAILED) {
    munmap(data, data_bytes);
    return false;
  }
  meta_ = new (meta) BlockMeta[capacity_blocks_];
  data_ = static_cast<uint8_t*>(data);
  uint32_t initial = static_cast<uint32_t>(initial_bytes / kBlockBytes);
  Populate(std::clamp<uint32_t>(initial, 2, capacity_blocks_));
  return true;
}

void BlockPool::Populate(uint32_t count) {
  uint32_t first = populated_.load(std::memory_order_relaxed);
  uint32_t last = std::min(capacity_blocks_, first + count);
  long page = sysconf(_SC_PAGESIZE);
  for (uint32_t index = first; index < last; ++index) {
    volatile uint8_t* block = Data(static_cast<int32_t>(index));
    for (uint32_t offset = 0; offset < kBlockBytes; offset += static_cast<uint32_t>(page)) {
      block[offset] = 0;
    }
  }
  populated_.store(last, std::memory_order_relaxed);
  for (uint32_t index = first; index < last; ++index) Push(static_cast<int32_t>(index));
}

int32_t BlockPool::Pop() {
  uint64_t head = free_head_.load(std::memory_order_acquire);
  for (;;) {
    uint32_t top = static_cast<uint32_t>(head);
    if (top == 0) return kNoBlock;
    int32_t index = static_cast<int32_t>(top - 1);
    int32_t next = meta_[index].next_free.load(std::memory_order_relaxed);
    uint64_t tag = (head >> 32) + 1;
    uint64_t replacement = (tag << 32) | static_cast<uint32_t>(next + 1);
    if (free_head_.compare_exchange_weak(head, replacement, std::memory_order_acquire,
                                         std::memory_order_acquire)) {
      free_count_.fetch_sub(1, std::memory_order_relaxed);
      meta_[index].committed.store(0, std::memory_order_relaxed);
      meta_[index].next.store(kNoBlock, std::memory_order_relaxed);
      return index;
    }
  }
}

void BlockPool::Push(int32_t index) {
  uint64_t head = free_head_.load(std::memory_order_relaxed);
  for (;;) {
    meta_[index].next_free.store(static_cast<int32_t>(static_cast<uint32_t>(head)) - 1,
                                 std::memory_order_relaxed);
    uint64_t tag = (head >> 32) + 1;
    uint64_t replacement = (tag << 32) | static_cast<uint32_t>(index + 1);
    if (free_head_.compare_exchange_weak(head, replacement, std::memory_order_release,
                                         std::memory_order_relaxed)) {
      free_count_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
}

void BlockPool::GrowIfLow() {
  uint32_t populated = populated_.load(std::memory_order_relaxed);
  if (populated >= capacity_blocks_) return;
  if (free_count_.load(std::memory_order_relaxed) * 4 >= populated) return;
  Populate(kGrowStepBlocks);
}

void BlockPool::ResetAllFree() {
  free_head_.store(0, std::memory_order_relaxed);
  free_count_.store(0, std::memory_order_relaxed);
  uint32_t populated = populated_.load(std::memory_order_relaxed);
  for (uint32_t index = 0; index < populated; ++index) Push(static_cast<int32_t>(index));
}

}  // namespace aiprof::runtime
