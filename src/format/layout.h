// Byte layout of aiprof raw data files (see docs/raw-format.md). Shared by every writer
// (runtime, launcher, plugins, test generators) and the one reader. Little-endian only.
#pragma once

#include <cstdint>
#include <cstring>

namespace aiprof::format {

inline constexpr char kFileMagic[8] = {'A', 'I', 'P', 'R', 'O', 'F', '\r', '\n'};
inline constexpr uint16_t kVersionMajor = 1;
inline constexpr uint16_t kVersionMinor = 0;

// First bytes of every raw file.
struct FileHeader {
  char magic[8];
  uint16_t version_major;
  uint16_t version_minor;
  uint32_t header_size;  // sizeof(FileHeader); a reader skips unknown trailing fields
  uint32_t pid;          // process that wrote the file
  uint32_t flags;        // reserved, 0
  uint64_t created_realtime_ns;
  uint8_t reserved[32];
};
static_assert(sizeof(FileHeader) == 64);

inline constexpr uint32_t kChunkMagic = 0x4B434941;  // "AICK" in file byte order

enum class ChunkType : uint16_t {
  kEvents = 1,    // a run of records (records.h) written by one thread
  kStrings = 2,   // interned strings: repeated {u32 id, u32 length, bytes[length]}
  kMetadata = 3,  // one JSON object (process, clock, options, environment)
};

enum ChunkFlags : uint16_t {
  kChunkCompressedZstd = 1u << 0,
};

// Frames every chunk. header_crc covers the first 28 bytes so a reader can tell a real
// chunk start from payload bytes that happen to contain the magic while resynchronising.
struct ChunkHeader {
  uint32_t magic;
  uint16_t type;         // ChunkType
  uint16_t flags;        // ChunkFlags
  uint32_t stored_size;  // payload bytes that follow in the file
  uint32_t raw_size;     // payload bytes after decompression (== stored_size if plain)
  uint32_t tid;          // thread whose records these are (0: process-wide data)
  uint32_t payload_crc;  // crc32c of the stored payload
  uint32_t seq;          // per-file chunk counter, starts at 0
  uint32_t header_crc;   // crc32c of the 28 bytes before this field
};
static_assert(sizeof(ChunkHeader) == 32);

// Every chunk header starts at a multiple of this file offset; the writer pads payloads
// with zeros (not counted in stored_size) to get there.
inline constexpr uint32_t kChunkAlignment = 16;

// Upper bound a reader accepts for one chunk; anything larger is treated as corruption.
inline constexpr uint32_t kMaxChunkPayload = 64u << 20;

}  // namespace aiprof::format
