#include "format/reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>

#include "format/crc32c.h"

namespace aiprof::format {

void ReadReport::AddProblem(std::string message) {
  ++problems_total;
  if (problems.size() < kMaxProblems) problems.push_back(std::move(message));
}

std::string ReadReport::Summary() const {
  const std::string read = std::to_string(chunks_read) + " " + unit + " read, ";
  if (clean()) return read + "clean";
  std::string s = read + std::to_string(chunks_skipped) + " skipped (" +
                  std::to_string(bytes_skipped) + " bytes)";
  if (truncated) s += ", file truncated";
  if (!problems.empty()) s += "; first problem: " + problems.front();
  if (problems_total > 1) s += " (+" + std::to_string(problems_total - 1) + " more)";
  return s;
}

RawFileReader::~RawFileReader() {
  if (data_ != nullptr && size_ > 0) munmap(const_cast<uint8_t*>(data_), size_);
}

bool RawFileReader::Open(const std::string& path, std::string* error) {
  path_ = path;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (error) *error = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    if (error) *error = "cannot stat " + path + ": " + std::strerror(errno);
    close(fd);
    return false;
  }
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ > 0) {
    void* map = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      if (error) *error = "cannot map " + path + ": " + std::strerror(errno);
      close(fd);
      size_ = 0;
      return false;
    }
    madvise(map, size_, MADV_SEQUENTIAL);
    data_ = static_cast<const uint8_t*>(map);
  }
  close(fd);
  std::string header_error;
  if (!ParseHeader({data_, size_}, &header_, &header_error)) {
    if (error) *error = path + ": " + header_error;
    return false;
  }
  return true;
}

bool RawFileReader::ParseHeader(std::span<const uint8_t> data, FileHeader* header,
                                std::string* error) {
  if (data.size() < sizeof(FileHeader)) {
    if (error) {
      *error = "not an aiprof raw data file (" + std::to_string(data.size()) +
               " bytes, shorter than the 64-byte header)";
    }
    return false;
  }
  std::memcpy(header, data.data(), sizeof(FileHeader));
  if (std::memcmp(header->magic, kFileMagic, sizeof(kFileMagic)) != 0) {
    if (error) *error = "not an aiprof raw data file (bad magic at offset 0)";
    return false;
  }
  if (header->version_major != kVersionMajor) {
    if (error) {
      *error = "raw format version " + std::to_string(header->version_major) + "." +
               std::to_string(header->version_minor) + " is not supported (this reader reads " +
               std::to_string(kVersionMajor) + ".x); use the aiprof that wrote it";
    }
    return false;
  }
  if (header->header_size < sizeof(FileHeader) || header->header_size > data.size() ||
      header->header_size % kChunkAlignment != 0) {
    if (error)
      *error = "corrupt file header (header_size " + std::to_string(header->header_size) + ")";
    return false;
  }
  return true;
}

ReadReport RawFileReader::ForEachChunk(const ChunkCallback& callback) const {
  // Chunks are read once, front to back: hand the pages before each chunk back to the page
  // cache so that the mapping does not add the whole file to the parser's resident memory.
  // The mapping is private and never written, so a page touched again is read back intact.
  // Released kReleaseStep at a time, not chunk by chunk: each madvise makes the kernel
  // flush the TLBs of every CPU running another thread of the process (an interrupt per
  // CPU), and the runtime's chunks are small (~30 KB compressed), so `aiprof cluster
  // --jobs=2` on 64 ranks made ~6,000 of them (~0.1 s of CPU in the flushes, perf).
  constexpr uint64_t kReleaseStep = uint64_t{4} << 20;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  uint64_t released = 0;
  return WalkChunks({data_, size_}, header_.header_size, [&](const ChunkView& chunk) {
    uint64_t done = chunk.file_offset / page * page;
    if (done >= released + kReleaseStep) {
      madvise(const_cast<uint8_t*>(data_) + released, done - released, MADV_DONTNEED);
      released = done;
    }
    return callback(chunk);
  });
}

namespace {

uint64_t AlignUp(uint64_t offset) {
  return (offset + kChunkAlignment - 1) / kChunkAlignment * kChunkAlignment;
}

bool ValidHeaderAt(std::span<const uint8_t> data, uint64_t offset, ChunkHeader* out) {
  if (offset + sizeof(ChunkHeader) > data.size()) return false;
  std::memcpy(out, data.data() + offset, sizeof(ChunkHeader));
  return out->magic == kChunkMagic &&
         out->header_crc == Crc32c(out, offsetof(ChunkHeader, header_crc)) &&
         out->stored_size <= kMaxChunkPayload && out->raw_size <= kMaxChunkPayload;
}

// Next offset after `from` where a valid chunk header starts, or data.size().
uint64_t Resync(std::span<const uint8_t> data, uint64_t from) {
  ChunkHeader candidate;
  for (uint64_t pos = AlignUp(from); pos + sizeof(ChunkHeader) <= data.size();
       pos += kChunkAlignment) {
    uint32_t magic;
    std::memcpy(&magic, data.data() + pos, sizeof(magic));
    if (magic == kChunkMagic && ValidHeaderAt(data, pos, &candidate)) return pos;
  }
  return data.size();
}

std::string At(uint64_t offset) {
  return " at offset " + std::to_string(offset);
}

}  // namespace

ReadReport RawFileReader::WalkChunks(std::span<const uint8_t> data, uint64_t offset,
                                     const ChunkCallback& callback) {
  ReadReport report;
  std::vector<uint8_t> scratch;
  ZSTD_DCtx* dctx = nullptr;
  while (offset < data.size()) {
    ChunkHeader header;
    if (data.size() - offset < sizeof(ChunkHeader)) {
      report.truncated = true;
      report.bytes_skipped += data.size() - offset;
      report.AddProblem("file ends inside a chunk header" + At(offset));
      break;
    }
    if (!ValidHeaderAt(data, offset, &header)) {
      uint64_t next = Resync(data, offset + 1);
      report.bytes_skipped += next - offset;
      ++report.chunks_skipped;
      report.AddProblem("corrupt chunk header" + At(offset) + ", skipped " +
                        std::to_string(next - offset) + " bytes");
      offset = next;
      continue;
    }
    uint64_t payload_offset = offset + sizeof(ChunkHeader);
    if (header.stored_size > data.size() - payload_offset) {
      report.truncated = true;
      report.bytes_skipped += data.size() - offset;
      ++report.chunks_skipped;
      report.AddProblem("file ends inside chunk #" + std::to_string(header.seq) + At(offset) +
                        " (" + std::to_string(header.stored_size) + " payload bytes expected, " +
                        std::to_string(data.size() - payload_offset) + " present)");
      break;
    }
    std::span<const uint8_t> stored(data.data() + payload_offset, header.stored_size);
    uint64_t next = AlignUp(payload_offset + header.stored_size);
    if (Crc32c(stored.data(), stored.size()) != header.payload_crc) {
      report.bytes_skipped += next - offset;
      ++report.chunks_skipped;
      report.AddProblem("checksum mismatch in chunk #" + std::to_string(header.seq) + At(offset));
      offset = next;
      continue;
    }
    std::span<const uint8_t> payload = stored;
    if (header.flags & kChunkCompressedZstd) {
      if (dctx == nullptr) dctx = ZSTD_createDCtx();
      scratch.resize(header.raw_size);
      size_t n =
          ZSTD_decompressDCtx(dctx, scratch.data(), scratch.size(), stored.data(), stored.size());
      if (ZSTD_isError(n) || n != header.raw_size) {
        report.bytes_skipped += next - offset;
        ++report.chunks_skipped;
        report.AddProblem("cannot decompress chunk #" + std::to_string(header.seq) + At(offset));
        offset = next;
        continue;
      }
      payload = {scratch.data(), header.raw_size};
    } else if (header.raw_size != header.stored_size) {
      report.bytes_skipped += next - offset;
      ++report.chunks_skipped;
      report.AddProblem("size mismatch in uncompressed chunk #" + std::to_string(header.seq) +
                        At(offset));
      offset = next;
      continue;
    }
    ++report.chunks_read;
    ChunkView view{
        static_cast<ChunkType>(header.type), header.flags, header.tid, header.seq, offset, payload};
    offset = next;
    if (!callback(view)) break;
  }
  if (dctx != nullptr) ZSTD_freeDCtx(dctx);
  return report;
}

bool RecordCursor::Next(RecordView* out) {
  if (malformed_ || offset_ >= payload_.size()) return false;
  if (payload_.size() - offset_ < sizeof(RecordHeader)) {
    malformed_ = true;
    return false;
  }
  const auto* header = reinterpret_cast<const RecordHeader*>(payload_.data() + offset_);
  uint64_t total = uint64_t{kRecordWordBytes} * (1u + header->ext_words);
  if (total > payload_.size() - offset_) {
    malformed_ = true;
    return false;
  }
  out->header = header;
  out->ext = reinterpret_cast<const ExtWord*>(payload_.data() + offset_ + sizeof(RecordHeader));
  offset_ += total;
  return true;
}

bool ForEachString(std::span<const uint8_t> payload,
                   const std::function<void(uint32_t, std::string_view)>& callback) {
  uint64_t offset = 0;
  while (offset < payload.size()) {
    if (payload.size() - offset < 8) return false;
    uint32_t id, length;
    std::memcpy(&id, payload.data() + offset, 4);
    std::memcpy(&length, payload.data() + offset + 4, 4);
    if (length > payload.size() - offset - 8) return false;
    callback(id, {reinterpret_cast<const char*>(payload.data() + offset + 8), length});
    offset += 8 + uint64_t{length};
  }
  return true;
}

}  // namespace aiprof::format
