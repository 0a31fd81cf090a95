// The bytes of a trace file, plain or gzip-compressed (decoded on the fly with zlib, several
// concatenated gzip members included), read block by block into the caller's buffer so that
// a file of any size costs one buffer of memory, never a copy of the file.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace aiprof::model {

class FileInput {
 public:
  FileInput() = default;
  ~FileInput();
  FileInput(const FileInput&) = delete;
  FileInput& operator=(const FileInput&) = delete;

  // Opens `path`; a gzip file is recognised by its magic bytes, not by its name.
  bool Open(const std::string& path, std::string* error);
  // Up to `capacity` decoded bytes into `out`; 0 at the end of the data or on an error
  // (error() then says what; the bytes before it were delivered).
  size_t Read(char* out, size_t capacity);

  bool compressed() const { return compressed_; }
  uint64_t file_size() const { return file_size_; }
  uint64_t decoded_bytes() const { return decoded_; }
  const std::string& error() const { return error_; }

 private:
  size_t ReadCompressed(char* out, size_t capacity);
  bool FillCompressed();

  int fd_ = -1;
  bool compressed_ = false;
  bool stream_open_ = false;
  bool at_end_ = false;
  bool in_member_ = false;  // inside a gzip member (its end not seen yet)
  uint64_t file_size_ = 0;
  uint64_t decoded_ = 0;
  z_stream stream_{};
  std::vector<unsigned char> compressed_block_;
  std::string error_;
};

// The first `bytes` decoded bytes of `path` (fewer for a shorter file; empty when it cannot
// be read): what format sniffing and input discovery look at.
std::string ReadFileHead(const std::string& path, size_t bytes);

}  // namespace aiprof::model
