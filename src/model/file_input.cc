#include "model/file_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace aiprof::model {
namespace {

constexpr size_t kCompressedBlock = 256 << 10;

// read(2) until `size` bytes or the end of the file; -1 on an error.
ssize_t ReadFully(int fd, void* out, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, static_cast<char*>(out) + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

}  // namespace

FileInput::~FileInput() {
  if (stream_open_) inflateEnd(&stream_);
  if (fd_ >= 0) ::close(fd_);
}

bool FileInput::Open(const std::string& path, std::string* error) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    *error = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  struct stat info {};
  if (fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    *error = "not a regular file";
    return false;
  }
  file_size_ = static_cast<uint64_t>(info.st_size);
  posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  unsigned char magic[2] = {0, 0};
  if (pread(fd_, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    compressed_ = true;
    compressed_block_.resize(kCompressedBlock);
    // 16 + MAX_WBITS: gzip framing.
    if (inflateInit2(&stream_, 16 + MAX_WBITS) != Z_OK) {
      *error = "zlib could not start";
      return false;
    }
    stream_open_ = true;
    in_member_ = true;
  }
  return true;
}

size_t FileInput::Read(char* out, size_t capacity) {
  if (fd_ < 0 || at_end_ || capacity == 0) return 0;
  if (compressed_) return ReadCompressed(out, capacity);
  const ssize_t n = ReadFully(fd_, out, capacity);
  if (n < 0) {
    error_ = std::string("read failed: ") + std::strerror(errno);
    at_end_ = true;
    return 0;
  }
  if (n == 0) at_end_ = true;
  decoded_ += static_cast<uint64_t>(n);
  return static_cast<size_t>(n);
}

bool FileInput::FillCompressed() {
  const ssize_t n = ReadFully(fd_, compressed_block_.data(), compressed_block_.size());
  if (n < 0) {
    error_ = std::string("read failed: ") + std::strerror(errno);
    return false;
  }
  stream_.next_in = compressed_block_.data();
  stream_.avail_in = static_cast<uInt>(n);
  return n > 0;
}

size_t FileInput::ReadCompressed(char* out, size_t capacity) {
  stream_.next_out = reinterpret_cast<Bytef*>(out);
  stream_.avail_out = static_cast<uInt>(std::min<size_t>(capacity, UINT32_MAX));
  const uInt wanted = stream_.avail_out;
  bool input_done = false;
  while (stream_.avail_out > 0) {
    if (stream_.avail_in == 0 && !FillCompressed()) {
      if (in_member_ && error_.empty()) error_ = "gzip data ends early (truncated file?)";
      input_done = true;
      break;
    }
    const int status = inflate(&stream_, Z_NO_FLUSH);
    if (status == Z_STREAM_END) {
      // Another gzip member may follow: gzip files may be concatenated.
      in_member_ = false;
      inflateReset(&stream_);
      continue;
    }
    if (status == Z_OK || status == Z_BUF_ERROR) {
      in_member_ = true;
      continue;
    }
    // Bytes after a complete member that are no gzip member (padding) end the data.
    if (in_member_) {
      error_ =
          std::string("gzip data is corrupt: ") + (stream_.msg ? stream_.msg : "inflate error");
    }
    input_done = true;
    break;
  }
  const size_t produced = wanted - stream_.avail_out;
  if (produced == 0 && input_done) at_end_ = true;
  decoded_ += produced;
  return produced;
}

std::string ReadFileHead(const std::string& path, size_t bytes) {
  FileInput input;
  std::string error;
  if (!input.Open(path, &error)) return "";
  std::string head(bytes, '\0');
  size_t filled = 0;
  while (filled < bytes) {
    const size_t n = input.Read(head.data() + filled, bytes - filled);
    if (n == 0) break;
    filled += n;
  }
  head.resize(filled);
  return head;
}

}  // namespace aiprof::model
