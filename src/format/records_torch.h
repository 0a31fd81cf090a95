// Record kinds of the PyTorch source (kind range 48-79): framework operators from
// RecordFunction callbacks, allocator events, and what the Python package adds (Python
// call stack, nn.Module hierarchy, garbage collections). Written by
// src/sources/torch (libaiprof_torch.so) and python/src (the _aiprof extension).
//
// Everything is raw: names are string ids, shapes are integers, scalars are their bits.
// Formatting happens in the parser.
#pragma once

#include <cstdint>

#include "format/records.h"

namespace aiprof::format {

enum class TorchKind : uint8_t {
  // An operator (RecordFunction) starts on this thread.
  // arg: operator name string id. aux: TorchOpFlags (low byte: at::RecordScope).
  // ext word 0: TorchOpIds. ext word 1: TorchOpThreads.
  // ext words 2..: with record_shapes, the packed input stream (TorchInputTag).
  kOpBegin = 48,
  // The operator with TorchOpIds::record_id (low 32 bits in arg) ends. aux: scope.
  // It normally ends on the thread that began it; async operators may end elsewhere.
  kOpEnd = 49,
  // Allocator event (profile_memory). aux: TorchDevice. ext word 0: TorchMemoryBlock,
  // ext word 1: TorchMemoryTotals.
  kMemory = 50,
  // Python function entered (with_stack). arg: "file(line): function" string id.
  kPyCall = 51,
  // The innermost Python function of this thread returned (with_stack).
  kPyReturn = 52,
  // nn.Module forward entered (with_modules). arg: "nn.Module: Class_N" string id.
  kModuleBegin = 53,
  // The innermost module forward of this thread returned.
  kModuleEnd = 54,
  // One Python garbage collection longer than the threshold. ts: start.
  // arg: generation. ext word 0: TorchGc.
  kGc = 55,
  // Allocation failure. aux: TorchDevice. ext word 0: TorchMemoryBlock (address 0),
  // ext word 1: TorchMemoryTotals.
  kOutOfMemory = 56,
  // A whole synchronous operator, written once when it ends (the usual case; kOpBegin and
  // kOpEnd remain for record_function ranges, async operators and nesting deeper than the
  // plugin's per-thread stack). ts: start. arg: name string id. aux: TorchOpFlags.
  // ext word 0: TorchOpIds. ext word 1: TorchOpEnd.
  // ext words 2..: the packed input stream (record_shapes, or with_flops for the operators
  // whose FLOPs are counted).
  kOp = 57,
  // The common synchronous operator in 32 bytes instead of kOp's 48: no inputs, no forward
  // thread, and ids and duration small enough for one TorchOpCompact word (the plugin
  // writes kOp for any operator that does not fit). Written when it ends. ts: start.
  // arg: name string id. aux: TorchOpFlags. ext word 0: TorchOpCompact.
  kOpCompact = 58,
  // A torch.distributed call on a process group other than the default one starts on this
  // thread (the Python package wraps torch.distributed's collective and point-to-point
  // functions): the backend range of its operation starts inside. The backends' ranges do
  // not say which group they ran in. arg: the group's name string id (torch's pg name).
  kProcessGroupBegin = 59,
  // The innermost process-group call of this thread returned.
  kProcessGroupEnd = 60,
};

inline constexpr uint8_t ToKind(TorchKind kind) {
  return static_cast<uint8_t>(kind);
}

// aux of kOpBegin: low byte at::RecordScope (0 FUNCTION, 1 BACKWARD_FUNCTION,
// 2 TORCHSCRIPT_FUNCTION, 3 KERNEL_FUNCTION_DTYPE, 4 CUSTOM_CLASS, 5 BUILD_FEATURE,
// 6 LITE_INTERPRETER, 7 USER_SCOPE, ...), high byte flags.
inline constexpr uint16_t kTorchOpScopeMask = 0x00ff;
inline constexpr uint16_t kTorchOpAsync = 1u << 8;
inline constexpr uint16_t kTorchOpInputsTruncated = 1u << 9;  // more inputs than fit
// The inputs were captured only to count FLOPs (with_flops without record_shapes): readers
// compute "flops" from them but show no Input Dims.
inline constexpr uint16_t kTorchOpInputsForFlops = 1u << 10;
// with_flops was on and the operator is one whose FLOPs are counted (torch_flops.h).
inline constexpr uint16_t kTorchOpCountFlops = 1u << 11;

struct TorchOpIds {
  uint64_t record_id;   // RecordFunction handle, unique in the process, never 0
  int64_t sequence_nr;  // autograd sequence number, -1 if none
};
static_assert(sizeof(TorchOpIds) == 16);

struct TorchOpThreads {
  uint64_t forward_thread_id;  // torch logical thread id of the forward op (backward ops), 0 else
  uint64_t thread_id;          // torch logical thread id running this op (at::RecordFunction)
};
static_assert(sizeof(TorchOpThreads) == 16);

struct TorchOpEnd {
  uint64_t end_ts;             // process clock
  uint32_t forward_thread_id;  // as TorchOpThreads, low 32 bits (torch numbers threads from 1)
  uint32_t thread_id;
};
static_assert(sizeof(TorchOpEnd) == 16);

// ext word 0 of kOpCompact, packed so that the common operator needs one word:
//   ids:    bits 0-47 record_id, bits 48-63 torch thread id
//   timing: bits 0-31 duration in clock ticks (end - start), bits 32-63 sequence_nr + 1
//           (0: none)
// The forward thread id is 0. Decoded only through the functions below.
struct TorchOpCompact {
  uint64_t ids;
  uint64_t timing;
};
static_assert(sizeof(TorchOpCompact) == 16);

inline constexpr uint32_t kTorchCompactRecordIdBits = 48;
inline constexpr uint32_t kTorchCompactDurationBits = 32;

// Whether an operator's ids fit a TorchOpCompact (its duration is checked at its end).
inline constexpr bool TorchOpIdsFitCompact(uint64_t record_id, int64_t sequence_nr,
                                           uint64_t forward_thread_id, uint64_t thread_id) {
  const uint64_t sequence_plus_one = static_cast<uint64_t>(sequence_nr) + 1;
  return (forward_thread_id | record_id >> kTorchCompactRecordIdBits |
          thread_id >> (64 - kTorchCompactRecordIdBits) |
          sequence_plus_one >> (64 - kTorchCompactDurationBits)) == 0;
}

inline constexpr bool TorchDurationFitsCompact(uint64_t duration_ticks) {
  return duration_ticks >> kTorchCompactDurationBits == 0;
}

// Duration 0; the writer adds it with TorchOpCompactTiming when the operator ends.
inline constexpr TorchOpCompact PackTorchOpCompact(uint64_t record_id, int64_t sequence_nr,
                                                   uint64_t thread_id) {
  return {record_id | thread_id << kTorchCompactRecordIdBits,
          (static_cast<uint64_t>(sequence_nr) + 1) << kTorchCompactDurationBits};
}

inline constexpr uint64_t TorchOpCompactTiming(const TorchOpCompact& word,
                                               uint64_t duration_ticks) {
  return word.timing | duration_ticks;
}

inline constexpr TorchOpIds UnpackTorchOpIds(const TorchOpCompact& word) {
  constexpr uint64_t kRecordIdMask = (uint64_t{1} << kTorchCompactRecordIdBits) - 1;
  return {word.ids & kRecordIdMask,
          static_cast<int64_t>(word.timing >> kTorchCompactDurationBits) - 1};
}

inline constexpr uint32_t UnpackTorchOpThread(const TorchOpCompact& word) {
  return static_cast<uint32_t>(word.ids >> kTorchCompactRecordIdBits);
}

inline constexpr uint64_t UnpackTorchOpEnd(const TorchOpCompact& word, uint64_t start_ts) {
  constexpr uint64_t kDurationMask = (uint64_t{1} << kTorchCompactDurationBits) - 1;
  return start_ts + (word.timing & kDurationMask);
}

// The packed input stream is a sequence of u64 values filling ext words 2.. (two per
// word; a trailing zero pads). Each input starts with a descriptor:
//   bits 0-7 TorchInputTag, bits 8-15 c10::ScalarType (tensors), bits 16-23 rank,
// followed by `rank` dims (tensors) or one raw value (scalars: int64, double bits, bool).
// A zero descriptor (kEnd) ends the stream.
enum class TorchInputTag : uint8_t {
  kEnd = 0,
  kTensor = 1,      // rank dims follow
  kInt = 2,         // int64 follows
  kDouble = 3,      // IEEE double bits follow
  kBool = 4,        // 0/1 follows
  kNone = 5,        // nothing follows
  kTensorList = 6,  // nothing follows ("TensorList")
  kOther = 7,       // string, list, object...: nothing follows ("")
  kUndefinedTensor = 8,
  kScalarList = 9,  // int or double list ("ScalarList")
  kIntList = 10,    // int list of `rank` values (at most kTorchMaxRank), which follow
                    // (shown as "ScalarList"; kept for FLOPs: conv stride, padding, ...)
};
inline constexpr uint32_t kTorchMaxInputValues = 62;  // 31 ext words
inline constexpr uint32_t kTorchMaxRank = 8;          // higher ranks keep the first 8 dims

inline constexpr uint64_t TorchInputDescriptor(TorchInputTag tag, uint8_t dtype, uint8_t rank) {
  return static_cast<uint64_t>(tag) | (static_cast<uint64_t>(dtype) << 8) |
         (static_cast<uint64_t>(rank) << 16);
}

// aux of memory records: low byte c10::DeviceType (0 CPU, 1 CUDA, ...), high byte device
// index + 1 (0: no index).
struct TorchMemoryBlock {
  uint64_t address;
  int64_t bytes;  // > 0 allocation, < 0 free
};
static_assert(sizeof(TorchMemoryBlock) == 16);

struct TorchMemoryTotals {
  int64_t total_allocated;
  int64_t total_reserved;
};
static_assert(sizeof(TorchMemoryTotals) == 16);

struct TorchGc {
  uint64_t end_ts;     // process clock
  uint32_t collected;  // objects collected
  uint32_t uncollectable;
};
static_assert(sizeof(TorchGc) == 16);

inline const char* TorchKindName(uint8_t kind) {
  switch (static_cast<TorchKind>(kind)) {
    case TorchKind::kOpBegin:
      return "torch_op_begin";
    case TorchKind::kOpEnd:
      return "torch_op_end";
    case TorchKind::kMemory:
      return "torch_memory";
    case TorchKind::kPyCall:
      return "torch_py_call";
    case TorchKind::kPyReturn:
      return "torch_py_return";
    case TorchKind::kModuleBegin:
      return "torch_module_begin";
    case TorchKind::kModuleEnd:
      return "torch_module_end";
    case TorchKind::kGc:
      return "torch_gc";
    case TorchKind::kOutOfMemory:
      return "torch_out_of_memory";
    case TorchKind::kOp:
      return "torch_op";
    case TorchKind::kOpCompact:
      return "torch_op_compact";
    case TorchKind::kProcessGroupBegin:
      return "torch_process_group_begin";
    case TorchKind::kProcessGroupEnd:
      return "torch_process_group_end";
    default:
      return nullptr;
  }
}

}  // namespace aiprof::format

namespace aiprof::format {

// c10::ScalarType as PyTorch's profiler prints it (caffe2::TypeMeta::name()).
inline const char* TorchScalarTypeName(uint8_t scalar_type) {
  static constexpr const char* kNames[] = {"unsigned char",
                                           "signed char",
                                           "short int",
                                           "int",
                                           "long int",
                                           "c10::Half",
                                           "float",
                                           "double",
                                           "c10::complex<c10::Half>",
                                           "c10::complex<float>",
                                           "c10::complex<double>",
                                           "bool",
                                           "c10::qint8",
                                           "c10::quint8",
                                           "c10::qint32",
                                           "c10::BFloat16",
                                           "c10::quint4x2",
                                           "c10::quint2x4"};
  return scalar_type < sizeof(kNames) / sizeof(kNames[0]) ? kNames[scalar_type] : "unknown";
}

// Bytes per element of a c10::ScalarType (0 for unknown), for memory estimates.
inline uint32_t TorchScalarTypeBytes(uint8_t scalar_type) {
  static constexpr uint8_t kBytes[] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4, 2, 1, 1};
  return scalar_type < sizeof(kBytes) ? kBytes[scalar_type] : 0;
}

}  // namespace aiprof::format
