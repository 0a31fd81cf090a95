// Fuzz inputs for the reader and the parser: a compact description of a raw file whose
// chunks all have valid checksums, so a fuzzer spends its time in the payload decoders
// (strings, records, importers, metadata) instead of failing CRCs. Shared by the reader's
// fuzzer (tests/format/raw_reader_fuzzer.cc), the parser's (tests/model/raw_parser_fuzzer.cc),
// the checked-in seed corpus (fuzz_corpus/, written by hostile_corpus_main.cc) and the unit
// tests that replay it.
//
// Input: repeated {u8 control, u8 size_hi, u8 size_lo, payload[size]}. control bits 0-1:
// chunk type 1 + (bits % chunk_types) (events, strings, metadata; with 4, a fourth type the
// reader must reject); bits 2-6: the chunk's tid; bit 7: the payload is marked
// zstd-compressed (raw size 4x). A payload longer than what is left is cut short.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "format/crc32c.h"
#include "format/layout.h"
#include "format/records.h"

namespace aiprof::testing {

inline std::vector<uint8_t> FrameRawFile(const uint8_t* data, size_t size, int chunk_types = 3) {
  using namespace aiprof::format;
  std::vector<uint8_t> image(sizeof(FileHeader));
  FileHeader header{};
  std::memcpy(header.magic, kFileMagic, sizeof(kFileMagic));
  header.version_major = kVersionMajor;
  header.header_size = sizeof(FileHeader);
  header.pid = 4242;
  std::memcpy(image.data(), &header, sizeof(header));
  uint32_t seq = 0;
  size_t pos = 0;
  while (pos + 3 <= size) {
    uint8_t control = data[pos];
    size_t length = (size_t{data[pos + 1]} << 8) | data[pos + 2];
    pos += 3;
    if (length > size - pos) length = size - pos;
    ChunkHeader chunk{};
    chunk.magic = kChunkMagic;
    chunk.type = static_cast<uint16_t>(1 + (control & 3) % chunk_types);
    chunk.flags = (control & 0x80) ? kChunkCompressedZstd : 0;
    chunk.stored_size = static_cast<uint32_t>(length);
    chunk.raw_size = (control & 0x80) ? static_cast<uint32_t>(length * 4) : chunk.stored_size;
    chunk.tid = (control >> 2) & 0x1F;
    chunk.payload_crc = Crc32c(data + pos, length);
    chunk.seq = seq++;
    chunk.header_crc = Crc32c(&chunk, offsetof(ChunkHeader, header_crc));
    size_t at = image.size();
    image.resize(at + sizeof(chunk) + (length + 15) / 16 * 16);
    std::memcpy(image.data() + at, &chunk, sizeof(chunk));
    if (length > 0) std::memcpy(image.data() + at + sizeof(chunk), data + pos, length);
    pos += length;
  }
  return image;
}

// Builds fuzz inputs chunk by chunk.
class FuzzInput {
 public:
  FuzzInput& Chunk(format::ChunkType type, const std::vector<uint8_t>& payload, uint8_t tid = 1) {
    bytes_.push_back(static_cast<uint8_t>((static_cast<uint8_t>(type) - 1) | (tid & 0x1F) << 2));
    bytes_.push_back(static_cast<uint8_t>(payload.size() >> 8));
    bytes_.push_back(static_cast<uint8_t>(payload.size()));
    bytes_.insert(bytes_.end(), payload.begin(), payload.end());
    return *this;
  }
  // One Strings chunk entry.
  static std::vector<uint8_t> StringEntry(uint32_t id, const std::string& text) {
    std::vector<uint8_t> entry(8 + text.size());
    uint32_t length = static_cast<uint32_t>(text.size());
    std::memcpy(entry.data(), &id, 4);
    std::memcpy(entry.data() + 4, &length, 4);
    std::memcpy(entry.data() + 8, text.data(), text.size());
    return entry;
  }
  // One record: kind, ts, aux, arg and `ext_words` 16-byte words of `ext_byte`.
  static std::vector<uint8_t> Record(uint8_t kind, uint64_t ts, uint16_t aux, uint32_t arg,
                                     const std::vector<uint8_t>& ext = {}) {
    format::RecordHeader header{ts, kind, static_cast<uint8_t>(ext.size() / 16), aux, arg};
    std::vector<uint8_t> record(sizeof(header) + ext.size() / 16 * 16);
    std::memcpy(record.data(), &header, sizeof(header));
    if (!ext.empty()) std::memcpy(record.data() + sizeof(header), ext.data(), ext.size() / 16 * 16);
    return record;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace aiprof::testing
