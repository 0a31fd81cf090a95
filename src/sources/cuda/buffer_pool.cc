#include "sources/cuda/buffer_pool.h"

#include <algorithm>
#include <cstdlib>

namespace aiprof::cuda {

BufferPool::BufferPool(size_t buffer_bytes, size_t max_buffers)
    : buffer_bytes_((buffer_bytes + kAlignment - 1) / kAlignment * kAlignment),
      max_buffers_(std::max<size_t>(max_buffers, 1)) {
  all_.reserve(max_buffers_);
  free_.reserve(max_buffers_);
}

BufferPool::~BufferPool() {
  for (uint8_t* buffer : all_) std::free(buffer);
}

uint8_t* BufferPool::Acquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!free_.empty()) {
    uint8_t* buffer = free_.back();
    free_.pop_back();
    return buffer;
  }
  if (all_.size() >= max_buffers_) {
    ++refused_;
    return nullptr;
  }
  auto* buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, buffer_bytes_));
  if (buffer == nullptr) {
    ++refused_;
    return nullptr;
  }
  all_.push_back(buffer);
  return buffer;
}

void BufferPool::Release(uint8_t* buffer) {
  if (buffer == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::find(all_.begin(), all_.end(), buffer) == all_.end()) return;
  free_.push_back(buffer);
}

size_t BufferPool::allocated() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return all_.size();
}

size_t BufferPool::in_use() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return all_.size() - free_.size();
}

uint64_t BufferPool::refused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refused_;
}

}  // namespace aiprof::cuda
