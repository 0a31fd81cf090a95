// The record catalog: what an Events chunk holds. Every record is one 16-byte RecordHeader
// followed by `ext_words` 16-byte extension words whose layout depends on the kind.
// Fixed 16-byte units keep the record path to one or two aligned stores and let the reader
// skip records it does not understand (newer writer, older reader).
//
// Timestamps are in the writing process's clock (TSC ticks or CLOCK_MONOTONIC_RAW ns, as the
// Metadata chunk's "clock" object says); the parser converts them with the ClockSync
// records of the same file. Every source must emit timestamps in that clock.
//
// Kind numbers are grouped by source; each source documents its own kinds in
// records_<source>.h inside its range and never reuses a number.
#pragma once

#include <cstdint>

namespace aiprof::format {

struct RecordHeader {
  uint64_t ts;
  uint8_t kind;       // RecordKind
  uint8_t ext_words;  // 16-byte words that follow
  uint16_t aux;       // kind-specific (marker domain, counter scope, flags)
  uint32_t arg;       // kind-specific (usually a string id)
};
static_assert(sizeof(RecordHeader) == 16);

struct ExtWord {
  uint64_t lo;
  uint64_t hi;
};
static_assert(sizeof(ExtWord) == 16);

inline constexpr uint32_t kRecordWordBytes = 16;
inline constexpr uint32_t kMaxExtWords = 255;

// String id 0 is the empty string; ids are dense and assigned by the writing process.
inline constexpr uint32_t kEmptyStringId = 0;

// Kind ranges owned by each source.
inline constexpr uint8_t kCoreKindFirst = 1, kCoreKindLast = 31;
inline constexpr uint8_t kHostKindFirst = 32, kHostKindLast = 47;    // records_host.h
inline constexpr uint8_t kTorchKindFirst = 48, kTorchKindLast = 79;  // records_torch.h
inline constexpr uint8_t kCudaKindFirst = 80, kCudaKindLast = 127;   // records_cuda.h
// Communication is derived from torch and CUDA records today (docs/communication.md); the
// range stays reserved for a source of its own (records_comm.h).
inline constexpr uint8_t kCommKindFirst = 128, kCommKindLast = 143;
// CPU sampling, thread switches and OS runtime calls: 144-159 (records_cpu.h).

// Core kinds (markers, steps, counters, bookkeeping).
enum class RecordKind : uint8_t {
  kInvalid = 0,
  // arg: thread name string id. Describes the thread of the chunk it appears in.
  // aux: 0 = set by the program (NVTX nvtxNameOsThreadA, API), 1 = the kernel's name
  // (/proc comm, sampled by the writer); a program-set name wins.
  kThreadName = 1,
  // arg: message string id, aux: domain id (0 = default domain).
  // ext: 0 words, or 1 word MarkerAttributes.
  kMark = 2,
  // Thread-local nesting range (push/pop). Same fields as kMark.
  kRangePush = 3,
  // aux: domain id. Closes the innermost open push range of this domain on this thread.
  kRangePop = 4,
  // Range that may end on another thread. arg: message, aux: domain.
  // ext word 0: RangeId; optional ext word 1: MarkerAttributes.
  kRangeStart = 5,
  // ext word 0: RangeId of the matching kRangeStart (any thread of the process).
  kRangeEnd = 6,
  // arg: step (iteration) number. Written by the control API and framework steps.
  kStepBegin = 7,
  kStepEnd = 8,
  // arg: counter name string id, aux: CounterScope. ext word 0: CounterValue.
  kCounter = 9,
  // ts: process clock at the sample. ext word 0: ClockSample.
  kClockSync = 10,
  // arg: RecordKind whose records were dropped (0: not known). ext word 0: DropCount.
  // Counts are cumulative since the start of the file: the last record per (tid, kind) wins.
  kDrops = 11,
  // aux: domain id, arg: domain name string id.
  kDomainName = 12,
  // aux: 1 = collection started, 0 = stopped. arg: window index (dynamic mode).
  kCollection = 13,
  // Attributes the record that immediately follows (in the same chunk) to thread `arg`
  // instead of the chunk's thread (aiprof_emit_for_thread: e.g. CUPTI records written on a
  // CUPTI thread). ts: copy of the next record's ts. Applies to exactly one record.
  kForeignThread = 14,
};

enum MarkerPayloadType : uint8_t {
  kPayloadNone = 0,
  kPayloadUInt64 = 1,
  kPayloadInt64 = 2,
  kPayloadDouble = 3,
  kPayloadUInt32 = 4,
  kPayloadInt32 = 5,
  kPayloadFloat = 6,
};

enum MarkerFieldMask : uint8_t {
  kMarkerHasColor = 1u << 0,
  kMarkerHasCategory = 1u << 1,
  kMarkerHasPayload = 1u << 2,
};

struct MarkerAttributes {
  uint64_t payload;  // raw bits of the payload, interpreted by payload_type
  uint32_t color_argb;
  uint16_t category;
  uint8_t payload_type;  // MarkerPayloadType
  uint8_t fields;        // MarkerFieldMask
};
static_assert(sizeof(MarkerAttributes) == 16);

struct RangeId {
  uint64_t id;  // unique within the process, never 0
  uint64_t reserved;
};
static_assert(sizeof(RangeId) == 16);

enum class CounterScope : uint16_t {
  kMachine = 0,  // instance unused
  kCpu = 1,      // instance: CPU index
  kProcess = 2,  // instance: pid
  kDevice = 3,   // instance: device (GPU) index
  kThread = 4,   // instance: tid
};

struct CounterValue {
  double value;
  uint32_t instance;
  uint32_t unit;  // string id of the unit ("%", "bytes", "MHz", ...), 0 if none
};
static_assert(sizeof(CounterValue) == 16);

struct ClockSample {
  uint64_t monotonic_raw_ns;
  uint64_t realtime_ns;
};
static_assert(sizeof(ClockSample) == 16);

struct DropCount {
  uint64_t count;
  uint32_t tid;
  uint32_t reserved;
};
static_assert(sizeof(DropCount) == 16);

// A kDrops record as the sources emit it (two words): `count` records of the source's kind
// `dropped_kind` lost so far on thread `tid` (0: the emitting thread).
struct DropRecord {
  RecordHeader header;
  DropCount drops;
};
static_assert(sizeof(DropRecord) == 32);

inline DropRecord MakeDropRecord(uint64_t ts, uint32_t dropped_kind, uint64_t count,
                                 uint32_t tid = 0) {
  return {{ts, static_cast<uint8_t>(RecordKind::kDrops), 1, 0, dropped_kind}, {count, tid, 0}};
}

inline const char* CoreKindName(uint8_t kind) {
  switch (static_cast<RecordKind>(kind)) {
    case RecordKind::kThreadName:
      return "thread_name";
    case RecordKind::kMark:
      return "mark";
    case RecordKind::kRangePush:
      return "range_push";
    case RecordKind::kRangePop:
      return "range_pop";
    case RecordKind::kRangeStart:
      return "range_start";
    case RecordKind::kRangeEnd:
      return "range_end";
    case RecordKind::kStepBegin:
      return "step_begin";
    case RecordKind::kStepEnd:
      return "step_end";
    case RecordKind::kCounter:
      return "counter";
    case RecordKind::kClockSync:
      return "clock_sync";
    case RecordKind::kDrops:
      return "drops";
    case RecordKind::kDomainName:
      return "domain_name";
    case RecordKind::kCollection:
      return "collection";
    case RecordKind::kForeignThread:
      return "foreign_thread";
    default:
      return nullptr;
  }
}

}  // namespace aiprof::format
