#include "format/chunk_writer.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>

#include "format/crc32c.h"
#include "format/records.h"

namespace aiprof::format {

ChunkWriter::ChunkWriter(int fd, const ChunkWriterOptions& options) : fd_(fd), options_(options) {}

ChunkWriter::~ChunkWriter() {
  if (zstd_context_ != nullptr) ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(zstd_context_));
  if (fd_ >= 0 && owns_fd_) close(fd_);
}

std::unique_ptr<ChunkWriter> ChunkWriter::Create(const std::string& path, uint32_t pid,
                                                 const ChunkWriterOptions& options,
                                                 std::string* error) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (error) *error = "cannot create " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  std::unique_ptr<ChunkWriter> writer = FromFd(fd, pid, options, error);
  if (writer == nullptr) {
    close(fd);
    return nullptr;
  }
  writer->owns_fd_ = true;
  return writer;
}

std::unique_ptr<ChunkWriter> ChunkWriter::FromFd(int fd, uint32_t pid,
                                                 const ChunkWriterOptions& options,
                                                 std::string* error) {
  std::unique_ptr<ChunkWriter> writer(new ChunkWriter(fd, options));
  FileHeader header{};
  std::memcpy(header.magic, kFileMagic, sizeof(kFileMagic));
  header.version_major = kVersionMajor;
  header.version_minor = kVersionMinor;
  header.header_size = sizeof(FileHeader);
  header.pid = pid;
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  header.created_realtime_ns =
      static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
  if (!writer->WriteAll(&header, sizeof(header), nullptr, 0, 0)) {
    if (error) *error = writer->last_error_;
    return nullptr;
  }
  return writer;
}

bool ChunkWriter::WriteAll(const void* a, size_t a_size, const void* b, size_t b_size,
                           size_t zero_padding) {
  static const uint8_t kZeros[kChunkAlignment] = {};
  iovec iov[3] = {{const_cast<void*>(a), a_size},
                  {const_cast<void*>(b), b_size},
                  {const_cast<uint8_t*>(kZeros), zero_padding}};
  int count = 3;
  size_t remaining = a_size + b_size + zero_padding;
  while (remaining > 0) {
    ssize_t n = writev(fd_, iov, count);
    if (n < 0) {
      if (errno == EINTR) continue;
      last_error_ = std::string("write failed: ") + std::strerror(errno);
      return false;
    }
    remaining -= static_cast<size_t>(n);
    bytes_written_ += static_cast<uint64_t>(n);
    // Advance the iovecs past what was written (short writes on full disks or pipes).
    size_t done = static_cast<size_t>(n);
    for (int i = 0; i < count && done > 0; ++i) {
      size_t take = done < iov[i].iov_len ? done : iov[i].iov_len;
      iov[i].iov_base = static_cast<char*>(iov[i].iov_base) + take;
      iov[i].iov_len -= take;
      done -= take;
    }
  }
  return true;
}

bool ChunkWriter::WriteChunk(ChunkType type, uint32_t tid, const void* payload, uint32_t size) {
  if (size > kMaxChunkPayload) {
    last_error_ = "chunk payload too large";
    return false;
  }
  const void* stored = payload;
  uint32_t stored_size = size;
  uint16_t flags = 0;
  if (options_.compress && size >= 256) {
    if (zstd_context_ == nullptr) zstd_context_ = ZSTD_createCCtx();
    size_t bound = ZSTD_compressBound(size);
    if (compress_buffer_.size() < bound) compress_buffer_.resize(bound);
    size_t n = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(zstd_context_), compress_buffer_.data(),
                                 compress_buffer_.size(), payload, size, options_.zstd_level);
    if (!ZSTD_isError(n) && n < size) {
      stored = compress_buffer_.data();
      stored_size = static_cast<uint32_t>(n);
      flags |= kChunkCompressedZstd;
    }
  }
  ChunkHeader header{};
  header.magic = kChunkMagic;
  header.type = static_cast<uint16_t>(type);
  header.flags = flags;
  header.stored_size = stored_size;
  header.raw_size = size;
  header.tid = tid;
  header.payload_crc = Crc32c(stored, stored_size);
  header.seq = seq_++;
  header.header_crc = Crc32c(&header, offsetof(ChunkHeader, header_crc));
  // Chunks start on 16-byte boundaries so records can be read in place, aligned.
  size_t padding = (kChunkAlignment - stored_size % kChunkAlignment) % kChunkAlignment;
  const uint64_t chunk_start = bytes_written_;
  if (WriteAll(&header, sizeof(header), stored, stored_size, padding)) return true;
  if (bytes_written_ != chunk_start) {
    // Part of the chunk went out: take it back (this also frees its blocks on a full disk).
    // The offset is where the chunk began; an appending descriptor ignores it anyway.
    off_t file_end = lseek(fd_, 0, SEEK_END);
    off_t partial = static_cast<off_t>(bytes_written_ - chunk_start);
    if (file_end >= partial && ftruncate(fd_, file_end - partial) == 0) {
      lseek(fd_, file_end - partial, SEEK_SET);
      bytes_written_ = chunk_start;
    }
  }
  --seq_;
  return false;
}

bool ChunkWriter::Sync() {
  return fdatasync(fd_) == 0;
}

void RecordBuffer::AddRaw(uint8_t kind, uint64_t ts, uint16_t aux, uint32_t arg, const void* ext,
                          uint8_t ext_words) {
  RecordHeader header{ts, kind, ext_words, aux, arg};
  size_t old = bytes_.size();
  bytes_.resize(old + sizeof(header) + size_t{ext_words} * kRecordWordBytes);
  std::memcpy(bytes_.data() + old, &header, sizeof(header));
  if (ext_words > 0) {
    std::memcpy(bytes_.data() + old + sizeof(header), ext, size_t{ext_words} * kRecordWordBytes);
  }
}

void StringTableBuffer::Add(uint32_t id, std::string_view text) {
  uint32_t length = static_cast<uint32_t>(text.size());
  size_t old = bytes_.size();
  bytes_.resize(old + 8 + length);
  std::memcpy(bytes_.data() + old, &id, 4);
  std::memcpy(bytes_.data() + old + 4, &length, 4);
  std::memcpy(bytes_.data() + old + 8, text.data(), length);
}

}  // namespace aiprof::format
