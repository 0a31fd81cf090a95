// The activity buffers handed to CUPTI: fixed size (4 MiB, as Kineto), reused, at most
// `max_buffers` alive. When all are in CUPTI's hands a request is refused (CUPTI then drops
// records and counts them, which the source reports) instead of growing without bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace aiprof::cuda {

class BufferPool {
 public:
  static constexpr size_t kDefaultBufferBytes = 4u << 20;
  // CUPTI requires 8-byte alignment; page alignment keeps buffers off shared cache lines.
  static constexpr size_t kAlignment = 4096;

  BufferPool(size_t buffer_bytes, size_t max_buffers);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A free buffer, allocating a new one while under the bound; nullptr when exhausted.
  uint8_t* Acquire();
  void Release(uint8_t* buffer);

  size_t buffer_bytes() const { return buffer_bytes_; }
  size_t max_buffers() const { return max_buffers_; }
  size_t allocated() const;
  size_t in_use() const;
  uint64_t refused() const;

 private:
  const size_t buffer_bytes_;
  const size_t max_buffers_;
  mutable std::mutex mutex_;
  std::vector<uint8_t*> all_;
  std::vector<uint8_t*> free_;
  uint64_t refused_ = 0;
};

}  // namespace aiprof::cuda
