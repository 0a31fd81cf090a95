// The one reader of raw data files, shared by every consumer (parser, dump tool, tests,
// fuzzer). It never trusts the input: a truncated or corrupt file yields every intact
// chunk, and ReadReport says what was skipped and where.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/layout.h"
#include "format/records.h"

namespace aiprof::format {

struct ChunkView {
  ChunkType type;
  uint16_t flags;
  uint32_t tid;
  uint32_t seq;
  uint64_t file_offset;              // of the chunk header
  std::span<const uint8_t> payload;  // decompressed; valid only during the callback
};

struct ReadReport {
  // What a "chunk" is in this report: raw files read chunks; an imported trace (a Kineto
  // JSON file) reads events.
  const char* unit = "chunks";
  uint64_t chunks_read = 0;
  uint64_t chunks_skipped = 0;
  uint64_t bytes_skipped = 0;
  bool truncated = false;             // the file ends inside a chunk
  std::vector<std::string> problems;  // first kMaxProblems, with offsets
  uint64_t problems_total = 0;
  // Not faults: what an importer read but has no model row for, or decided, e.g. "12 flow
  // events have no other end in the trace" (an imported trace); every command shows them.
  std::vector<std::string> notes;

  static constexpr size_t kMaxProblems = 64;
  bool clean() const { return problems_total == 0; }
  void AddProblem(std::string message);
  // One line: "N chunks read, M skipped (B bytes): first problem ..." or "clean".
  std::string Summary() const;
};

// Returns false from the callback to stop early.
using ChunkCallback = std::function<bool(const ChunkView&)>;

class RawFileReader {
 public:
  RawFileReader() = default;
  ~RawFileReader();
  RawFileReader(const RawFileReader&) = delete;
  RawFileReader& operator=(const RawFileReader&) = delete;

  // Maps the file and validates its header. On failure `error` says what and where.
  bool Open(const std::string& path, std::string* error);
  const FileHeader& header() const { return header_; }
  uint64_t file_size() const { return size_; }
  const std::string& path() const { return path_; }

  ReadReport ForEachChunk(const ChunkCallback& callback) const;

  // Validates a header and walks the chunks of an in-memory file image.
  static bool ParseHeader(std::span<const uint8_t> data, FileHeader* header, std::string* error);
  static ReadReport WalkChunks(std::span<const uint8_t> data, uint64_t first_chunk_offset,
                               const ChunkCallback& callback);

 private:
  std::string path_;
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  FileHeader header_{};
};

struct RecordView {
  const RecordHeader* header;
  const ExtWord* ext;  // header->ext_words words
  uint8_t kind() const { return header->kind; }
  uint64_t ts() const { return header->ts; }
  template <typename T>
  const T* ExtAs(uint32_t word = 0) const {
    static_assert(sizeof(T) % 16 == 0);
    if (word + sizeof(T) / 16 > header->ext_words) return nullptr;
    return reinterpret_cast<const T*>(ext + word);
  }
};

// Walks the records of one Events payload. Stops at the first record that does not fit;
// malformed() then tells the caller to report the rest of the chunk as skipped.
class RecordCursor {
 public:
  explicit RecordCursor(std::span<const uint8_t> payload) : payload_(payload) {}
  bool Next(RecordView* out);
  bool malformed() const { return malformed_; }
  uint64_t bytes_left() const { return payload_.size() - offset_; }

 private:
  std::span<const uint8_t> payload_;
  uint64_t offset_ = 0;
  bool malformed_ = false;
};

// Walks a Strings payload. Returns false if it is malformed (entries before that are
// still delivered).
bool ForEachString(std::span<const uint8_t> payload,
                   const std::function<void(uint32_t id, std::string_view text)>& callback);

}  // namespace aiprof::format
