#include "runtime/block_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace aiprof::runtime {

namespace {

// Blocks faulted in per step of Grow: producers get the first ones while later ones are
// still being faulted in.
constexpr uint32_t kGrowStepBlocks = 16;

uint32_t BlocksOf(size_t bytes) {
  return static_cast<uint32_t>(bytes / kBlockBytes);
}

// Faults in [begin, begin + bytes) for writing. MADV_POPULATE_WRITE (Linux 5.14) does it in
// one call; older kernels get one store per page.
void Populate(uint8_t* begin, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  if (madvise(begin, bytes, MADV_POPULATE_WRITE) == 0) return;
#endif
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (size_t offset = 0; offset < bytes; offset += page) {
    // A volatile store of zero keeps the (zero-filled) content and forces the write fault.
    *static_cast<volatile uint8_t*>(begin + offset) = 0;
  }
}

}  // namespace

bool BlockPool::Init(size_t cap_bytes) {
  capacity_blocks_ = std::max<uint32_t>(2, BlocksOf(cap_bytes));
  initial_blocks_ = std::min(capacity_blocks_, std::max<uint32_t>(2, BlocksOf(kInitialReadyBytes)));
  size_t data_bytes = static_cast<size_t>(capacity_blocks_) * kBlockBytes;
  void* data = mmap(nullptr, data_bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
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
  // A forked child starts from the initial part only: what the parent grew is not copied
  // (nor its page tables, which keeps fork cheap).
  if (capacity_blocks_ > initial_blocks_) {
    size_t initial_bytes = static_cast<size_t>(initial_blocks_) * kBlockBytes;
    wipe_on_fork_ =
        madvise(data_ + initial_bytes, data_bytes - initial_bytes, MADV_WIPEONFORK) == 0;
  }
  claimed_blocks_.store(initial_blocks_, std::memory_order_relaxed);
  MakeReady(0, initial_blocks_);
  return true;
}

void BlockPool::MakeReady(uint32_t first, uint32_t end) {
  Populate(Data(static_cast<int32_t>(first)), static_cast<size_t>(end - first) * kBlockBytes);
  for (uint32_t index = end; index > first; --index) Push(static_cast<int32_t>(index - 1));
}

bool BlockPool::ClaimUnused(uint32_t count, uint32_t limit, uint32_t& first, uint32_t& end) {
  first = claimed_blocks_.load(std::memory_order_relaxed);
  while (first < limit) {
    end = std::min(limit, first + count);
    if (claimed_blocks_.compare_exchange_weak(first, end, std::memory_order_relaxed)) return true;
  }
  return false;
}

uint32_t BlockPool::Grow() {
  uint32_t start = claimed_blocks_.load(std::memory_order_relaxed);
  if (start >= capacity_blocks_) return 0;
  uint32_t target = std::max<uint32_t>(start * 4, BlocksOf(kActiveReadyBytes));
  target = std::min(target, capacity_blocks_);
  // A step at a time, so producers get the first blocks while later ones are still being
  // faulted in; a producer that found the stack empty may claim blocks between two steps.
  uint32_t added = 0;
  uint32_t first = 0;
  uint32_t end = 0;
  while (ClaimUnused(kGrowStepBlocks, target, first, end)) {
    MakeReady(first, end);
    added += end - first;
  }
  return added;
}

void BlockPool::ResetMeta(int32_t index) {
  meta_[index].committed.store(0, std::memory_order_relaxed);
  meta_[index].next.store(kNoBlock, std::memory_order_relaxed);
}

int32_t BlockPool::Pop() {
  uint64_t head = free_head_.load(std::memory_order_acquire);
  for (;;) {
    uint32_t top = static_cast<uint32_t>(head);
    if (top == 0) {
      uint32_t first = 0;
      uint32_t end = 0;
      if (!ClaimUnused(1, capacity_blocks_, first, end)) return kNoBlock;
      ResetMeta(static_cast<int32_t>(first));
      return static_cast<int32_t>(first);
    }
    int32_t index = static_cast<int32_t>(top - 1);
    int32_t next = meta_[index].next_free.load(std::memory_order_relaxed);
    uint64_t tag = (head >> 32) + 1;
    uint64_t replacement = (tag << 32) | static_cast<uint32_t>(next + 1);
    if (free_head_.compare_exchange_weak(head, replacement, std::memory_order_acquire,
                                         std::memory_order_acquire)) {
      free_count_.fetch_sub(1, std::memory_order_relaxed);
      ResetMeta(index);
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

void BlockPool::ResetAfterFork() {
  uint32_t claimed = claimed_blocks_.load(std::memory_order_relaxed);
  if (!wipe_on_fork_ && claimed > initial_blocks_) {
    madvise(Data(static_cast<int32_t>(initial_blocks_)),
            static_cast<size_t>(claimed - initial_blocks_) * kBlockBytes, MADV_DONTNEED);
  }
  free_head_.store(0, std::memory_order_relaxed);
  free_count_.store(0, std::memory_order_relaxed);
  for (uint32_t index = initial_blocks_; index > 0; --index) Push(static_cast<int32_t>(index - 1));
  claimed_blocks_.store(initial_blocks_, std::memory_order_relaxed);
}

}  // namespace aiprof::runtime
