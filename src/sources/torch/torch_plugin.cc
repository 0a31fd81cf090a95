// libaiprof_torch.so: PyTorch operators and allocator events as aiprof records.
//
// A global RecordFunction callback is added when a collection window opens (the runtime
// calls on_start) and removed when it closes, so a process that is not collecting pays
// nothing. The callbacks format nothing and allocate nothing after a thread's first
// operator: the start callback fills a slot of a fixed per-thread operator stack (start
// time, ids, name id, packed inputs), and the end callback completes it and hands the one
// record to the runtime's per-thread buffer. Names become string ids through a per-thread
// cache keyed by the name pointer (checked against a copy of the text, because autograd
// builds some names in temporary std::strings); shapes and scalars are copied as integers.
//
// This is the only translation unit that includes libtorch headers (they are slow to
// compile); the record layouts are in src/format/records_torch.h.
#include <ATen/record_function.h>
#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <dlfcn.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <tuple>

#include "aiprof/cuda_correlation.h"
#include "aiprof/plugin.h"
#include "format/records_torch.h"
#include "format/torch_flops.h"
#include "sources/torch/operator_name_cache.h"
#include "sources/torch/plugin_settings.h"
#include "sources/torch/record_function_fields.h"

namespace aiprof::torch_source {
namespace {

using format::ExtWord;
using format::RecordHeader;
using format::TorchInputTag;
using format::TorchKind;

std::atomic<bool> g_memory_enabled{false};

// The process clock, read here when it is the TSC: one rdtsc instead of a call into the
// runtime, twice per operator.
inline uint64_t Now() {
#if defined(__x86_64__)
  if (__builtin_expect(aiprof_clock_is_tsc != 0, 1)) return __rdtsc();
#endif
  return aiprof_now();
}

// ---- per-thread operator state ------------------------------------------------------

// What the window asked for, set before the callback is added (whose registration
// publishes it to the threads that run it).
std::atomic<bool> g_record_shapes{false};
std::atomic<bool> g_with_flops{false};

// An operator's record as it is written, built in place in the operator's stack slot: a
// kOpCompact when the operator fits one (the usual case), else a kOp.
struct FullOp {
  format::TorchOpIds ids;
  format::TorchOpEnd end;
  uint64_t inputs[format::kTorchMaxInputValues];
};
struct OpRecord {
  RecordHeader header;
  union {
    format::TorchOpCompact compact;  // header.kind kOpCompact
    FullOp full;                     // header.kind kOp
  };
};
static_assert(sizeof(OpRecord) == 16 * (3 + format::kTorchMaxInputValues / 2));

constexpr uint8_t kCompactKind = format::ToKind(TorchKind::kOpCompact);

struct OpFrame {
  const at::RecordFunction* fn;  // identifies the operator at its end callback
  OpRecord record;
};

// Operators deeper than this on one thread fall back to kOpBegin/kOpEnd pairs.
constexpr uint32_t kMaxOpDepth = 64;
// CUPTI external ids pushed by this thread, innermost last.
constexpr int kMaxPushedDepth = 64;

struct ThreadOps {
  uint32_t depth = 0;
  int pushed_depth = 0;
  // This thread's unused record ids: [next_record_id, record_id_limit).
  uint64_t next_record_id = 0;
  uint64_t record_id_limit = 0;
  uint64_t pushed_ids[kMaxPushedDepth];
  OpFrame frames[kMaxOpDepth];
  NameCache names;
};

// Made at the thread's first operator (the only allocation, never on the record path
// afterwards) and freed when the thread exits. Initial-exec TLS: one load instead of a
// __tls_get_addr call per callback; 8 bytes fit glibc's static TLS reserve for dlopen'ed
// libraries. Everything else per thread lives behind this pointer.
__attribute__((tls_model("initial-exec"))) thread_local ThreadOps* t_ops = nullptr;

struct ThreadOpsOwner {
  ~ThreadOpsOwner() {
    delete t_ops;
    t_ops = nullptr;
  }
};

ThreadOps& CurrentThreadOps() {
  if (__builtin_expect(t_ops == nullptr, 0)) {
    thread_local ThreadOpsOwner owner;
    t_ops = new ThreadOps();
  }
  return *t_ops;
}

// ---- record ids ----------------------------------------------------------------------
// Every operator needs an id unique in the process (TorchOpIds::record_id): it joins a
// kOpBegin to its kOpEnd, becomes the CUPTI external id of the kernels the operator
// launches, and is exported as "External id" and "Record function id". Torch numbers
// RecordFunctions only for callbacks registered with needsIds, by a locked add on one
// process-wide counter in every RecordFunction's constructor, which each thread contends
// for. The plugin numbers them itself: a thread takes ids in batches from its own
// process-wide counter (one locked add per kRecordIdBatch operators) and stores the id as
// the RecordFunction's handle, where the end callback, on whatever thread it runs, and the
// CUDA attribution read it. An operator that already has a handle (another callback, such
// as torch.profiler's, asked torch for ids) keeps it.
constexpr uint64_t kRecordIdBatch = 4096;
std::atomic<uint64_t> g_next_record_id_batch{1};

__attribute__((noinline)) void TakeRecordIds(ThreadOps& ops) {
  ops.next_record_id = g_next_record_id_batch.fetch_add(kRecordIdBatch, std::memory_order_relaxed);
  ops.record_id_limit = ops.next_record_id + kRecordIdBatch;
}

uint64_t NumberOperator(ThreadOps& ops, const at::RecordFunction& fn) {
  const uint64_t handle = fn.handle();
  if (handle != 0) return handle;
  if (__builtin_expect(ops.next_record_id == ops.record_id_limit, 0)) TakeRecordIds(ops);
  const uint64_t id = ops.next_record_id++;
  // The callback API hands the RecordFunction out as const, but the object is the
  // dispatcher's (or the caller's) mutable guard, and setHandle is its public setter.
  const_cast<at::RecordFunction&>(fn).setHandle(id);
  return id;
}

// ---- allocator events ----------------------------------------------------------------

uint16_t DeviceAux(c10::Device device) {
  const auto type = static_cast<uint16_t>(static_cast<uint8_t>(device.type()));
  const auto index = static_cast<uint16_t>(device.has_index() ? device.index() + 1 : 0);
  return static_cast<uint16_t>(type | (index << 8));
}

void EmitMemory(TorchKind kind, void* address, int64_t bytes, int64_t total_allocated,
                int64_t total_reserved, c10::Device device) {
  struct {
    RecordHeader header;
    format::TorchMemoryBlock block;
    format::TorchMemoryTotals totals;
  } record{};
  record.header = {Now(), format::ToKind(kind), 2, DeviceAux(device), 0};
  record.block = {reinterpret_cast<uint64_t>(address), bytes};
  record.totals = {total_allocated, total_reserved};
  aiprof_emit(&record, 3);
}

// c10 allocators report to the innermost PROFILER_STATE debug info of the allocating
// thread. The reporter answers "enabled" only while
// a window with profile_memory is open.
//
// The totals are int64_t in PyTorch 1.x and size_t from 2.x on; the overrides take whatever
// type the base class declares, so one source builds against both.
template <std::size_t Index, typename MemberFunction>
struct ParameterOf;
template <std::size_t Index, typename Result, typename Class, typename... Args>
struct ParameterOf<Index, Result (Class::*)(Args...)> {
  using type = std::tuple_element_t<Index, std::tuple<Args...>>;
};
using UsageTotal = ParameterOf<2, decltype(&c10::MemoryReportingInfoBase::reportMemoryUsage)>::type;
using OomTotal = ParameterOf<1, decltype(&c10::MemoryReportingInfoBase::reportOutOfMemory)>::type;

class MemoryReporter final : public c10::MemoryReportingInfoBase {
 public:
  void reportMemoryUsage(void* ptr, int64_t alloc_size, UsageTotal total_allocated,
                         UsageTotal total_reserved, c10::Device device) override {
    EmitMemory(TorchKind::kMemory, ptr, alloc_size, static_cast<int64_t>(total_allocated),
               static_cast<int64_t>(total_reserved), device);
  }
  void reportOutOfMemory(int64_t alloc_size, OomTotal total_allocated, OomTotal total_reserved,
                         c10::Device device) override {
    EmitMemory(TorchKind::kOutOfMemory, nullptr, alloc_size, static_cast<int64_t>(total_allocated),
               static_cast<int64_t>(total_reserved), device);
  }
  bool memoryProfilingEnabled() const override {
    return g_memory_enabled.load(std::memory_order_relaxed) && aiprof_collecting != 0;
  }
};

// The reporter is pushed on the thread that opens the window (the Python thread calling
// start(), or the thread importing torch in launch mode) and popped when the window
// closes on that thread. PyTorch's ThreadLocalState carries it into autograd and
// at::launch worker threads for the work they do on that thread's behalf. It is not pushed
// on other threads: torch.profiler reads PROFILER_STATE as its own state object, so a
// reporter left behind on a thread would break a later torch.profiler session there. A
// thread that already has a profiler state (torch.profiler running) keeps it.
thread_local MemoryReporter* t_pushed_reporter = nullptr;

void PushMemoryReporterOnThisThread() {
  if (t_pushed_reporter != nullptr) return;
  if (c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE) != nullptr) return;
  auto reporter = std::make_shared<MemoryReporter>();
  t_pushed_reporter = reporter.get();
  c10::ThreadLocalDebugInfo::_push(c10::DebugInfoKind::PROFILER_STATE, std::move(reporter));
}

void PopMemoryReporterOnThisThread() {
  if (t_pushed_reporter == nullptr) return;
  if (c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE) == t_pushed_reporter) {
    c10::ThreadLocalDebugInfo::_pop(c10::DebugInfoKind::PROFILER_STATE);
  }
  t_pushed_reporter = nullptr;
}

// ---- operators -----------------------------------------------------------------------

// Appends the input stream; returns the number of u64 values written, or sets truncated.
uint32_t PackInputs(const at::RecordFunction& fn, uint64_t* out, bool* truncated) {
  uint32_t count = 0;
  auto fits = [&](uint32_t values) {
    if (count + values <= format::kTorchMaxInputValues) return true;
    *truncated = true;
    return false;
  };
  for (const c10::IValue& input : fn.inputs()) {
    if (input.isTensor()) {
      const at::Tensor& tensor = input.toTensor();
      if (!tensor.defined()) {
        if (!fits(1)) break;
        out[count++] = TorchInputDescriptor(TorchInputTag::kUndefinedTensor, 0, 0);
        continue;
      }
      const auto sizes = tensor.sizes();
      const auto rank = static_cast<uint8_t>(std::min<size_t>(sizes.size(), format::kTorchMaxRank));
      if (!fits(1u + rank)) break;
      out[count++] = TorchInputDescriptor(TorchInputTag::kTensor,
                                          static_cast<uint8_t>(tensor.scalar_type()), rank);
      for (uint8_t d = 0; d < rank; ++d) out[count++] = static_cast<uint64_t>(sizes[d]);
    } else if (input.isInt() || input.isDouble() || input.isBool()) {
      if (!fits(2)) break;
      if (input.isInt()) {
        out[count++] = TorchInputDescriptor(TorchInputTag::kInt, 0, 0);
        out[count++] = static_cast<uint64_t>(input.toInt());
      } else if (input.isDouble()) {
        out[count++] = TorchInputDescriptor(TorchInputTag::kDouble, 0, 0);
        const double value = input.toDouble();
        std::memcpy(&out[count++], &value, sizeof(value));
      } else {
        out[count++] = TorchInputDescriptor(TorchInputTag::kBool, 0, 0);
        out[count++] = input.toBool() ? 1 : 0;
      }
    } else if (input.isIntList()) {
      const auto list = input.toIntList();
      const auto size = static_cast<uint8_t>(std::min<size_t>(list.size(), format::kTorchMaxRank));
      if (!fits(1u + size)) break;
      out[count++] = TorchInputDescriptor(TorchInputTag::kIntList, 0, size);
      for (uint8_t i = 0; i < size; ++i) out[count++] = static_cast<uint64_t>(list.get(i));
    } else {
      TorchInputTag tag = TorchInputTag::kOther;
      if (input.isNone()) {
        tag = TorchInputTag::kNone;
      } else if (input.isTensorList()) {
        tag = TorchInputTag::kTensorList;
      } else if (input.isDoubleList()) {
        tag = TorchInputTag::kScalarList;
      }
      if (!fits(1)) break;
      out[count++] = TorchInputDescriptor(tag, 0, 0);
    }
  }
  return count;
}

// Fills the input stream of `record` and the matching flags; returns the ext words.
uint8_t CaptureInputs(const at::RecordFunction& fn, bool shapes_only_for_flops, OpRecord* record) {
  bool truncated = false;
  uint32_t values = 0;
  // Some tensor kinds (nested, symbolic sizes) throw from sizes(); the operator must
  // never see a profiler exception, so such inputs end the stream instead.
  try {
    values = PackInputs(fn, record->full.inputs, &truncated);
  } catch (...) {
    values = 0;
    truncated = true;
  }
  if (truncated) record->header.aux |= format::kTorchOpInputsTruncated;
  if (shapes_only_for_flops) record->header.aux |= format::kTorchOpInputsForFlops;
  if (values % 2 == 1) record->full.inputs[values++] = 0;
  return static_cast<uint8_t>(2 + values / 2);
}

// ---- GPU attribution -------------------------------------------------------------------
// When the CUDA source is loaded (the process uses CUDA), each synchronous operator's
// record id is pushed as a CUPTI external id, so the kernels it launches carry it and the
// importers join them to the operator ("External id"). Resolved at window start and again
// on every flush, since PyTorch initialises CUDA lazily, often after the window opened.
std::atomic<aiprof_cuda_push_external_id_fn> g_cuda_push{nullptr};
std::atomic<aiprof_cuda_pop_external_id_fn> g_cuda_pop{nullptr};

void ResolveCudaAttribution() {
  if (g_cuda_push.load(std::memory_order_relaxed) != nullptr) return;
  auto pop = reinterpret_cast<aiprof_cuda_pop_external_id_fn>(
      dlsym(RTLD_DEFAULT, AIPROF_CUDA_POP_EXTERNAL_ID));
  auto push = reinterpret_cast<aiprof_cuda_push_external_id_fn>(
      dlsym(RTLD_DEFAULT, AIPROF_CUDA_PUSH_EXTERNAL_ID));
  if (push == nullptr || pop == nullptr) return;
  g_cuda_pop.store(pop, std::memory_order_relaxed);
  g_cuda_push.store(push, std::memory_order_release);
}

// Operators whose id this thread pushed, innermost last (ThreadOps::pushed_ids); exit
// pops only its own id, so a window that opens or closes while operators are running
// never unbalances CUPTI's stack.
void PushCudaExternalId(ThreadOps& ops, uint64_t record_id, bool async) {
  auto push = g_cuda_push.load(std::memory_order_acquire);
  if (push == nullptr || async || ops.pushed_depth >= kMaxPushedDepth) return;
  if (push(AIPROF_CUDA_EXTERNAL_OPERATOR, record_id) != 0) {
    ops.pushed_ids[ops.pushed_depth++] = record_id;
  }
}

void PopCudaExternalId(ThreadOps& ops, const at::RecordFunction& fn) {
  if (ops.pushed_depth == 0 || ops.pushed_ids[ops.pushed_depth - 1] != fn.handle()) return;
  --ops.pushed_depth;
  g_cuda_pop.load(std::memory_order_relaxed)(AIPROF_CUDA_EXTERNAL_OPERATOR);
}

// record_function ranges may end on another thread (futures) and async operators do, so
// they are written as a kOpBegin/kOpEnd pair joined by the record id, as are operators
// nested deeper than the stack.
bool WrittenAsPair(const at::RecordFunction& fn, bool async, const ThreadOps& ops) {
  return async || fn.scope() == at::RecordScope::USER_SCOPE || ops.depth == kMaxOpDepth;
}

// A compact record as the kOp it stands for, for an operator that turned out not to fit
// it (its duration) or that is written as a kOpBegin after all.
__attribute__((noinline)) void ExpandCompact(OpRecord& record) {
  const format::TorchOpCompact compact = record.compact;
  record.header.kind = format::ToKind(TorchKind::kOp);
  record.header.ext_words = 2;
  record.full.ids = format::UnpackTorchOpIds(compact);
  record.full.end = {0, 0, format::UnpackTorchOpThread(compact)};
}

void EmitBegin(OpRecord& record) {
  if (record.header.kind == kCompactKind) ExpandCompact(record);
  const uint8_t ext_words = record.header.ext_words;
  struct {
    RecordHeader header;
    format::TorchOpIds ids;
    format::TorchOpThreads threads;
    uint64_t inputs[format::kTorchMaxInputValues];
  } begin;
  begin.header = record.header;
  begin.header.kind = format::ToKind(TorchKind::kOpBegin);
  begin.ids = record.full.ids;
  begin.threads = {record.full.end.forward_thread_id, record.full.end.thread_id};
  std::memcpy(begin.inputs, record.full.inputs, (ext_words - 2u) * 16u);
  aiprof_emit(&begin, 1u + ext_words);
}

// With record_shapes, or with_flops for an operator whose FLOPs are counted: the inputs.
bool InputsRequested(bool flop_counted) {
  return g_record_shapes.load(std::memory_order_relaxed) ||
         (flop_counted && g_with_flops.load(std::memory_order_relaxed));
}

// The kOp record of an operator that does not fit a kOpCompact: its inputs were asked
// for, it names a forward thread (backward operators), or an id is too large.
__attribute__((noinline)) void FillFullRecord(const at::RecordFunction& fn, uint64_t record_id,
                                              RecordHeader header, bool inputs, bool flop_counted,
                                              OpRecord& record) {
  record.header = header;
  record.header.kind = format::ToKind(TorchKind::kOp);
  record.header.ext_words = 2;
  record.full.ids = {record_id, fn.seqNr()};
  record.full.end = {0, static_cast<uint32_t>(fn.forwardThreadId()),
                     static_cast<uint32_t>(fn.threadId())};
  if (!inputs) return;
  const bool shapes = g_record_shapes.load(std::memory_order_relaxed);
  record.header.ext_words = CaptureInputs(fn, !shapes, &record);
  if (flop_counted && g_with_flops.load(std::memory_order_relaxed)) {
    record.header.aux |= format::kTorchOpCountFlops;
  }
}

// Everything of the record of an operator that starts now but its start time. Inlined
// into the start callback, whose common path it is: a kOpCompact, whose duration the end
// callback adds.
[[gnu::always_inline]] inline void FillRecord(ThreadOps& ops, const at::RecordFunction& fn,
                                              uint64_t record_id, bool async, OpRecord& record) {
  const NameCache::Name name = ops.names.Intern(Name(fn));
  uint16_t aux = static_cast<uint16_t>(fn.scope());
  if (async) aux |= format::kTorchOpAsync;
  const RecordHeader header{0, kCompactKind, 1, aux, name.id};
  const int64_t sequence_nr = fn.seqNr();
  const uint64_t thread_id = fn.threadId();
  const bool inputs = __builtin_expect(fn.needsInputs(), 0) && InputsRequested(name.flop_counted);
  if (__builtin_expect(!inputs && format::TorchOpIdsFitCompact(record_id, sequence_nr,
                                                               fn.forwardThreadId(), thread_id),
                       1)) {
    record.header = header;
    record.compact = format::PackTorchOpCompact(record_id, sequence_nr, thread_id);
    return;
  }
  FillFullRecord(fn, record_id, header, inputs, name.flop_counted, record);
}

// Out of line: the record (up to 512 bytes) is built on the stack, which the usual path,
// building in the thread's operator stack, does not need.
__attribute__((noinline)) void EnterAsPair(ThreadOps& ops, const at::RecordFunction& fn,
                                           uint64_t record_id, bool async) {
  OpRecord record;
  FillRecord(ops, fn, record_id, async, record);
  record.header.ts = Now();
  EmitBegin(record);
}

std::unique_ptr<at::ObserverContext> OnOpEnter(const at::RecordFunction& fn) {
  if (aiprof_collecting == 0) return nullptr;
  ThreadOps& ops = CurrentThreadOps();
  const uint64_t record_id = NumberOperator(ops, fn);
  const bool async = IsAsync(fn);
  PushCudaExternalId(ops, record_id, async);
  if (__builtin_expect(WrittenAsPair(fn, async, ops), 0)) {
    EnterAsPair(ops, fn, record_id, async);
    return nullptr;
  }
  OpFrame& frame = ops.frames[ops.depth];
  FillRecord(ops, fn, record_id, async, frame.record);
  frame.fn = &fn;
  ++ops.depth;
  // Last, so the capture work above is not charged to the operator.
  frame.record.header.ts = Now();
  return nullptr;
}

// One 16-byte store. aiprof_emit_inline copies the record 16 bytes at a time right after the end
// callback completes its last word; an 8-byte store into that word cannot be forwarded to
// the wider load, which then waits for the store to reach the cache.
inline void StoreWord(void* word, uint64_t lo, uint64_t hi) {
#if defined(__x86_64__)
  _mm_storeu_si128(static_cast<__m128i*>(word),
                   _mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo)));
#else
  const format::ExtWord value{lo, hi};
  std::memcpy(word, &value, sizeof(value));
#endif
}

// Writes the record of an operator that ended at `end`: the kOpCompact with its duration,
// or, when the duration does not fit it or the operator is a kOp, the kOp with its end.
inline void EmitOperator(OpRecord& record, uint64_t end) {
  if (__builtin_expect(record.header.kind == kCompactKind, 1)) {
    const uint64_t duration = end - record.header.ts;
    if (__builtin_expect(format::TorchDurationFitsCompact(duration), 1)) {
      StoreWord(&record.compact, record.compact.ids,
                format::TorchOpCompactTiming(record.compact, duration));
      aiprof_emit_inline(&record, 2);
      return;
    }
    ExpandCompact(record);
  }
  uint64_t threads;
  std::memcpy(&threads, &record.full.end.forward_thread_id, sizeof(threads));
  StoreWord(&record.full.end, end, threads);
  aiprof_emit_inline(&record, 1u + record.header.ext_words);
}

// An operator without a record id was not recorded (its start callback found no window
// open), so there is no begin for an end to close.
void EmitEnd(const at::RecordFunction& fn, uint64_t end) {
  if (fn.handle() == 0) return;
  RecordHeader header{end, format::ToKind(TorchKind::kOpEnd), 0, static_cast<uint16_t>(fn.scope()),
                      static_cast<uint32_t>(fn.handle())};
  aiprof_emit(&header, 1);
}

// An operator whose slot is not on top: slots above it belong to operators that will end
// on another thread (they became async after their start), so they are written as
// kOpBegin records now and their kOpEnd comes from that thread. No slot at all: the
// operator began as a pair, or before the window opened.
__attribute__((noinline)) void EndOffTop(ThreadOps& ops, const at::RecordFunction& fn,
                                         uint64_t end) {
  uint32_t index = ops.depth;
  while (index > 0 && ops.frames[index - 1].fn != &fn) --index;
  if (index == 0) {
    EmitEnd(fn, end);
    return;
  }
  for (uint32_t above = index; above < ops.depth; ++above) {
    EmitBegin(ops.frames[above].record);
  }
  ops.depth = index - 1;
  EmitOperator(ops.frames[index - 1].record, end);
}

void OnOpExit(const at::RecordFunction& fn, at::ObserverContext*) {
  const uint64_t end = Now();
  ThreadOps* ops = t_ops;
  if (ops == nullptr) {
    EmitEnd(fn, end);
    return;
  }
  PopCudaExternalId(*ops, fn);
  if (__builtin_expect(ops->depth > 0 && ops->frames[ops->depth - 1].fn == &fn, 1)) {
    EmitOperator(ops->frames[--ops->depth].record, end);
    return;
  }
  EndOffTop(*ops, fn, end);
}

// ---- collection windows --------------------------------------------------------------

std::mutex g_window_mutex;
at::CallbackHandle g_callback = 0;

// At exit glibc destroys the main thread's thread_local objects (c10's ThreadLocalDebugInfo
// stack that holds the memory reporter, RecordFunction's thread-local callback manager)
// before it runs any exit handler, and the runtime's handler, registered when it was
// preloaded, runs after libtorch's static destructors. A window closed by that handler
// must not pop the reporter or remove the callback: both read torch state that is already
// freed (it corrupted the job's heap, and glog printed "Requested callback is not found").
// The handler registered here, after libtorch was loaded, runs before both; from then on
// the plugin only switches itself off, through the flags its callbacks already read.
std::atomic<bool> g_process_exiting{false};

void NoteProcessExit() {
  g_process_exiting.store(true, std::memory_order_relaxed);
}

void OnStart(void*) {
  const PluginSettings settings = ParsePluginSettings(aiprof_options_json());
  ResolveCudaAttribution();
  std::lock_guard<std::mutex> lock(g_window_mutex);
  g_memory_enabled.store(settings.profile_memory, std::memory_order_relaxed);
  g_record_shapes.store(settings.record_shapes, std::memory_order_relaxed);
  g_with_flops.store(settings.with_flops, std::memory_order_relaxed);
  if (settings.profile_memory) PushMemoryReporterOnThisThread();
  if (!settings.operators || g_callback != 0) return;
  g_callback =
      at::addGlobalCallback(at::RecordFunctionCallback(OnOpEnter, OnOpExit)
                                .needsInputs(settings.record_shapes || settings.with_flops));
}

void OnStop(void*) {
  std::lock_guard<std::mutex> lock(g_window_mutex);
  g_memory_enabled.store(false, std::memory_order_relaxed);
  if (g_process_exiting.load(std::memory_order_relaxed)) return;
  PopMemoryReporterOnThisThread();
  if (g_callback == 0) return;
  at::removeCallback(g_callback);
  g_callback = 0;
}

void OnFlush(void*) {
  ResolveCudaAttribution();
}

const aiprof_source kSource = {
    AIPROF_PLUGIN_ABI_VERSION, "torch", OnStart, OnStop, OnFlush, nullptr, nullptr,
};

}  // namespace
}  // namespace aiprof::torch_source

// Registers the source with the runtime (once; later calls return the first result).
// Called by the Python package and the launch-mode import hook after `import torch`.
// The library must never be unloaded: operators that began in a window call OnOpExit
// later, through the pointer the RecordFunction captured.
extern "C" __attribute__((visibility("default"))) int aiprof_torch_attach(void) {
  static const int result = [] {
    std::atexit(aiprof::torch_source::NoteProcessExit);
    return aiprof_register_source(&aiprof::torch_source::kSource);
  }();
  return result;
}
