#include "runtime/block_pool.h"

#include <sys/mman.h>

#include <algorithm>

namespace aiprof::runtime {

bool BlockPool::Init(size_t cap_bytes) {
  capacity_blocks_ = std::max<uint32_t>(2, static_cast<uint32_t>(cap_bytes / kBlockBytes));
  size_t data_bytes = static_cast<size_t>(capacity_blocks_) * kBlockBytes;
  void* data = mmap(nullptr, data_bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (data == MAP_FAILED) return false;
  size_t meta_bytes = sizeof(BlockMeta) * capacity_blocks_;
  void* meta = mmap(nullptr, meta_bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (meta == MAP_FAILED) {
    munmap(data, data_bytes);
    return false;
  }
  meta_ = new (meta) BlockMeta[capacity_blocks_];
  data_ = static_cast<uint8_t*>(data);
  for (uint32_t index = capacity_blocks_; index > 0; --index) Push(static_cast<int32_t>(index - 1));
  return true;
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

void BlockPool::ResetAllFree() {
  free_head_.store(0, std::memory_order_relaxed);
  free_count_.store(0, std::memory_order_relaxed);
  for (uint32_t index = capacity_blocks_; index > 0; --index) Push(static_cast<int32_t>(index - 1));
}

}  // namespace aiprof::runtime
