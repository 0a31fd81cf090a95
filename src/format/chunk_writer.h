// Appends framed chunks to a raw data file. Used by the runtime's writer thread, the
// launcher's resource sampler, plugins that write their own files, and test generators.
// Not for the record path: it may allocate (once, for the compression buffer) and calls
// write(2).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/layout.h"

namespace aiprof::format {

struct ChunkWriterOptions {
  bool compress = false;  // zstd, only kept when it makes the chunk smaller
  int zstd_level = 1;
};

class ChunkWriter {
 public:
  // Creates (truncates) `path` and writes the file header. nullptr and `error` on failure.
  static std::unique_ptr<ChunkWriter> Create(const std::string& path, uint32_t pid,
                                             const ChunkWriterOptions& options, std::string* error);
  // Writes to a descriptor its caller keeps and closes (the runtime, which must not close a
  // number the profiled program took over), positioned where the header goes.
  static std::unique_ptr<ChunkWriter> FromFd(int fd, uint32_t pid,
                                             const ChunkWriterOptions& options, std::string* error);
  ~ChunkWriter();
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;

  // One chunk, written with a single writev so a crash leaves at most one partial chunk. A
  // failed write (a full disk) is cut back to the previous chunk's end, so what the file
  // holds stays whole chunks and a later chunk (once space is freed) is still readable.
  bool WriteChunk(ChunkType type, uint32_t tid, const void* payload, uint32_t size);
  // fdatasync; normally unnecessary (the page cache survives the process).
  bool Sync();

  uint64_t bytes_written() const { return bytes_written_; }
  uint32_t chunks_written() const { return seq_; }
  const std::string& last_error() const { return last_error_; }
  int fd() const { return fd_; }
  // Continues in `fd`, the same file opened again for appending by the descriptor's owner:
  // no header, chunk numbers go on; the old descriptor is left alone.
  void SwitchDescriptor(int fd) { fd_ = fd; }

 private:
  ChunkWriter(int fd, const ChunkWriterOptions& options);
  bool WriteAll(const void* a, size_t a_size, const void* b, size_t b_size, size_t zero_padding);

  int fd_;
  bool owns_fd_ = false;  // Create opened it
  ChunkWriterOptions options_;
  uint32_t seq_ = 0;
  uint64_t bytes_written_ = 0;
  std::vector<uint8_t> compress_buffer_;
  void* zstd_context_ = nullptr;
  std::string last_error_;
};

// Builds an Events payload in memory (tests, generators, the launcher's sampler).
class RecordBuffer {
 public:
  void Add(uint8_t kind, uint64_t ts, uint16_t aux, uint32_t arg) {
    AddRaw(kind, ts, aux, arg, nullptr, 0);
  }
  // `ext` points to `ext_words` 16-byte words.
  void AddRaw(uint8_t kind, uint64_t ts, uint16_t aux, uint32_t arg, const void* ext,
              uint8_t ext_words);
  template <typename T>
  void AddWith(uint8_t kind, uint64_t ts, uint16_t aux, uint32_t arg, const T& ext) {
    static_assert(sizeof(T) % 16 == 0 && sizeof(T) / 16 <= 255);
    AddRaw(kind, ts, aux, arg, &ext, static_cast<uint8_t>(sizeof(T) / 16));
  }
  const uint8_t* data() const { return bytes_.data(); }
  uint32_t size() const { return static_cast<uint32_t>(bytes_.size()); }
  bool empty() const { return bytes_.empty(); }
  void clear() { bytes_.clear(); }

 private:
  std::vector<uint8_t> bytes_;
};

// Builds a Strings payload.
class StringTableBuffer {
 public:
  void Add(uint32_t id, std::string_view text);
  const uint8_t* data() const { return bytes_.data(); }
  uint32_t size() const { return static_cast<uint32_t>(bytes_.size()); }
  bool empty() const { return bytes_.empty(); }
  void clear() { bytes_.clear(); }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace aiprof::format
