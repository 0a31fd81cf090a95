// libFuzzer target: the reader must survive any byte string without crashing, reading out
// of bounds, or looping forever. Each input is parsed twice: as a raw file image, and
// framed into chunks with valid checksums (random bytes rarely pass a CRC, so without the
// framing the fuzzer would never reach the record, string and zstd paths).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "format/crc32c.h"
#include "format/reader.h"

namespace {

using namespace aiprof::format;

uint64_t Consume(std::span<const uint8_t> bytes) {
  uint64_t sink = 0;
  FileHeader header;
  if (!RawFileReader::ParseHeader(bytes, &header, nullptr)) return 0;
  RawFileReader::WalkChunks(bytes, header.header_size, [&](const ChunkView& chunk) {
    if (chunk.type == ChunkType::kEvents) {
      RecordCursor cursor(chunk.payload);
      RecordView record;
      while (cursor.Next(&record)) {
        sink += record.ts() + record.header->ext_words;
        if (const auto* id = record.ExtAs<RangeId>()) sink += id->id;
      }
    } else if (chunk.type == ChunkType::kStrings) {
      ForEachString(chunk.payload,
                    [&](uint32_t id, std::string_view text) { sink += id + text.size(); });
    }
    return true;
  });
  return sink;
}

// Input: repeated {u8 type_and_flags, u8 size_hi, u8 size_lo, payload...}; bit 7 of the
// first byte marks the payload as zstd-compressed (it usually is not: a decoder error path).
std::vector<ExtWord> FrameChunks(const uint8_t* data, size_t size) {
  std::vector<uint8_t> image(sizeof(FileHeader));
  FileHeader header{};
  std::memcpy(header.magic, kFileMagic, sizeof(kFileMagic));
  header.version_major = kVersionMajor;
  header.header_size = sizeof(FileHeader);
  std::memcpy(image.data(), &header, sizeof(header));
  uint32_t seq = 0;
  size_t pos = 0;
  while (pos + 3 <= size) {
    uint8_t type = data[pos];
    size_t length = (size_t{data[pos + 1]} << 8) | data[pos + 2];
    pos += 3;
    if (length > size - pos) length = size - pos;
    ChunkHeader chunk{};
    chunk.magic = kChunkMagic;
    chunk.type = static_cast<uint16_t>(1 + (type & 3));
    chunk.flags = (type & 0x80) ? kChunkCompressedZstd : 0;
    chunk.stored_size = static_cast<uint32_t>(length);
    chunk.raw_size = (type & 0x80) ? static_cast<uint32_t>(length * 4) : chunk.stored_size;
    chunk.payload_crc = Crc32c(data + pos, length);
    chunk.seq = seq++;
    chunk.header_crc = Crc32c(&chunk, offsetof(ChunkHeader, header_crc));
    size_t at = image.size();
    image.resize(at + sizeof(chunk) + (length + 15) / 16 * 16);
    std::memcpy(image.data() + at, &chunk, sizeof(chunk));
    std::memcpy(image.data() + at + sizeof(chunk), data + pos, length);
    pos += length;
  }
  std::vector<ExtWord> aligned((image.size() + 15) / 16);
  std::memcpy(aligned.data(), image.data(), image.size());
  return aligned;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Raw files are read from page-aligned mappings; mirror that alignment here.
  std::vector<ExtWord> aligned((size + sizeof(ExtWord) - 1) / sizeof(ExtWord));
  if (size > 0) std::memcpy(aligned.data(), data, size);
  uint64_t sink = Consume({reinterpret_cast<const uint8_t*>(aligned.data()), size});
  std::vector<ExtWord> framed = FrameChunks(data, size);
  sink += Consume({reinterpret_cast<const uint8_t*>(framed.data()), framed.size() * 16});
  return sink == 42 ? 1 : 0;
}
