// CPU sampling records (kinds 144-159), written by libaiprof_cpusampling.so
// (src/sources/cpu_sampling) on the runtime's writer thread, and OS runtime call slices
// written by libaiprof_osrt.so (src/sources/osrt) on the calling thread.
//
// Sample and context-switch timestamps come from the kernel (perf_event_open with
// use_clockid = CLOCK_MONOTONIC_RAW, or clock_gettime(CLOCK_MONOTONIC_RAW) in the timer
// fallback): they are CLOCK_MONOTONIC_RAW ns, not the process clock, which the flag
// kCpuTimeMonotonicRaw on every such record states. The parser puts them straight into the
// model's monotonic time base (the same one the ClockSync fit converts ticks to).
//
// Instruction pointers are raw addresses of the sampled process; they are resolved offline
// against the kCpuMapping records (path, build-id, file offset) of the same process.
#pragma once

#include <cstdint>

#include "format/records.h"

namespace aiprof::format {

inline constexpr uint8_t kCpuKindFirst = 144, kCpuKindLast = 159;  // see records.h

enum class CpuRecordKind : uint8_t {
  // One stack sample. ts: sample time (monotonic raw ns). aux: CpuSampleFlags.
  // arg: 0. ext word 0: CpuSampleHeader. ext words 1..: the frames, leaf first, two
  // 64-bit instruction pointers per word (a last odd slot is 0).
  kCpuSample = 144,
  // An executable mapping of the sampled process. ts: when it was seen. arg: path string
  // id. ext word 0: CpuMappingRange, word 1: CpuMappingFile, words 2-3: the GNU build-id
  // (up to 32 bytes, length in CpuMappingFile::build_id_size).
  kCpuMapping = 145,
  // The kernel switched a thread in or out. ts: monotonic raw ns. aux: CpuSwitchFlags.
  // ext word 0: CpuSampleHeader (frames = 0).
  kCpuSwitch = 146,
  // Which sampling mode ran and why (one per start), or what happened to sampling later (one
  // per reopening of the perf events after the job closed their descriptors). aux:
  // CpuSamplingMode. arg: string id of the text. ext word 0: {lo = sampling period in ns, hi =
  // frequency in Hz}.
  kCpuSamplingInfo = 147,
  // An OS runtime call that took at least the threshold (src/sources/osrt). ts: entry in
  // the process clock. arg: function name string id. ext word 0: OsrtCall.
  kOsrtCall = 148,
  // One piece of the user stack copied by the kernel at a sample (call_graph "dwarf"), for
  // offline DWARF unwinding. Follows its kCpuSample (flag kCpuSampleStackCopy) in the same
  // buffer, pieces in order. ts: the sample's time. aux: piece index (0 first). arg: tid.
  // ext word 0: CpuStackCopyPiece. Piece 0 then holds kCpuUserRegs registers
  // (kCpuUserRegs / 2 words); then the piece's stack bytes (copied from the stack pointer
  // upwards), zero-padded to a whole word.
  kCpuStackCopy = 149,
  // The Python frames of the next kCpuSample of the same thread and time (timer mode,
  // src/sources/cpu_sampling/python_stack.h), which follows it in the same buffer. ts: the
  // sample's time. aux: CpuPythonFramesFlags. arg: tid. ext words: one per frame,
  // innermost first: lo = code object address, hi = instruction index (low 32 bits,
  // UINT32_MAX unknown) | kCpuPythonEntry (the frame a C call of the interpreter loop,
  // _PyEval_EvalFrameDefault, started with).
  kCpuPythonFrames = 150,
  // The name of a code object of the sampled process, emitted before the first
  // kCpuPythonFrames that uses it and again when its address was reused by another code
  // object. ts: when it was read. arg: string id of "qualname (file.py:first line)".
  // ext word 0: {lo = code object address, hi = pid}; ext word 1: {lo = string id of the
  // source file path, hi = 0}.
  kCpuPythonCode = 151,
};

enum CpuPythonFramesFlags : uint16_t {
  kCpuPythonTruncated = 1u << 0,  // the chain went on past the frames kept
};
inline constexpr uint64_t kCpuPythonEntry = 1ull << 32;

enum CpuSampleFlags : uint16_t {
  kCpuTimeMonotonicRaw = 1u << 0,
  kCpuSampleKernelLeaf = 1u << 1,  // the sampled IP was in the kernel (frames are user frames)
  kCpuSampleOffCpu = 1u << 2,      // taken at a switch-out: the blocking stack
  kCpuSampleTimer = 1u << 3,       // from the timer_create fallback
  kCpuSampleTruncated = 1u << 4,   // more frames existed than were kept
  kCpuSampleStackCopy = 1u << 5,   // kCpuStackCopy pieces follow (frames: the sampled IP)
};

enum CpuSwitchFlags : uint16_t {
  // kCpuTimeMonotonicRaw (bit 0) is always set.
  kCpuSwitchOut = 1u << 1,      // 0: switched in
  kCpuSwitchPreempt = 1u << 2,  // switched out while runnable (preempted), not blocked
};

enum class CpuSamplingMode : uint16_t {
  kPerfEvent = 1,  // perf_event_open, cpu-clock or cycles, per thread, inherited
  kTimer = 2,      // timer_create(CLOCK_THREAD_CPUTIME_ID) + SIGPROF, per thread
  kNone = 3,       // neither could run; arg says why
};

struct CpuSampleHeader {
  uint32_t pid;
  uint32_t tid;
  uint32_t cpu;     // UINT32_MAX when not known
  uint32_t frames;  // instruction pointers that follow
};
static_assert(sizeof(CpuSampleHeader) == 16);

struct CpuMappingRange {
  uint64_t start;
  uint64_t end;
};
static_assert(sizeof(CpuMappingRange) == 16);

struct CpuMappingFile {
  uint64_t file_offset;  // offset in the file of `start`
  uint32_t pid;
  uint8_t build_id_size;  // 0: none found
  uint8_t reserved[3];
};
static_assert(sizeof(CpuMappingFile) == 16);

// Registers of a stack copy, in x86-64 DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp
// r8..r15, then rip (16); slot 17 is 0. Only x86-64 records stack copies.
inline constexpr uint32_t kCpuUserRegs = 18;
inline constexpr uint32_t kCpuDwarfSp = 7, kCpuDwarfIp = 16;

struct CpuStackCopyPiece {
  uint32_t pid;
  uint32_t total_bytes;  // the whole copy (the kernel's dyn_size)
  uint32_t offset;       // of this piece's first byte in the copy
  uint32_t bytes;        // in this piece
};
static_assert(sizeof(CpuStackCopyPiece) == 16);

// Stack bytes per piece: a record holds kMaxExtWords words, one is the piece header and
// piece 0 also carries the registers.
inline constexpr uint32_t kCpuStackPieceBytes = 16 * (kMaxExtWords - 1);
inline constexpr uint32_t kCpuFirstStackPieceBytes = kCpuStackPieceBytes - 8 * kCpuUserRegs;

struct OsrtCall {
  uint64_t end;    // return, process clock
  int64_t result;  // the call's return value (-1 with errno as in libc)
};
static_assert(sizeof(OsrtCall) == 16);

// Frames kept per sample: a record holds at most kMaxExtWords words, one is the header.
inline constexpr uint32_t kCpuMaxFrames = 2 * (kMaxExtWords - 1);

inline const char* CpuKindName(uint8_t kind) {
  switch (static_cast<CpuRecordKind>(kind)) {
    case CpuRecordKind::kCpuSample:
      return "cpu_sample";
    case CpuRecordKind::kCpuMapping:
      return "cpu_mapping";
    case CpuRecordKind::kCpuSwitch:
      return "cpu_switch";
    case CpuRecordKind::kCpuSamplingInfo:
      return "cpu_sampling_info";
    case CpuRecordKind::kOsrtCall:
      return "osrt_call";
    case CpuRecordKind::kCpuStackCopy:
      return "cpu_stack_copy";
    case CpuRecordKind::kCpuPythonFrames:
      return "cpu_python_frames";
    case CpuRecordKind::kCpuPythonCode:
      return "cpu_python_code";
    default:
      return nullptr;
  }
}

}  // namespace aiprof::format
