// libaiprof_torch.so: PyTorch operators and allocator events as aiprof records.
//
// A global RecordFunction callback is added when a collection window opens (the runtime
// calls on_start) and removed when it closes, so a process that is not collecting pays
// nothing. The callbacks format nothing: names become string ids through a per-thread
// cache keyed by the name pointer (checked against a copy of the text, because autograd
// builds some names in temporary std::strings), shapes and scalars are copied as
// integers, and each event is one aiprof_emit into the runtime's per-thread buffer.
//
// This is the only translation unit that includes libtorch headers (they are slow to
// compile); the record layouts are in src/format/records_torch.h.
#include <ATen/record_function.h>
#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <dlfcn.h>

#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "aiprof/cuda_correlation.h"
#include "aiprof/plugin.h"
#include "format/records_torch.h"

namespace aiprof::torch_source {
namespace {

using format::ExtWord;
using format::RecordHeader;
using format::TorchInputTag;
using format::TorchKind;

struct Settings {
  bool operators = true;
  bool record_shapes = false;
  bool profile_memory = false;
};

Settings ReadSettings() {
  Settings settings;
  const char* text = aiprof_options_json();
  auto options = nlohmann::json::parse(text ? text : "{}", nullptr, /*allow_exceptions=*/false);
  if (!options.is_object()) return settings;
  auto flag = [&](const char* key, bool fallback) {
    auto it = options.find(key);
    return it != options.end() && it->is_boolean() ? it->get<bool>() : fallback;
  };
  auto task_time = options.find("task_time");
  if (task_time != options.end() && task_time->is_string()) {
    settings.operators = task_time->get<std::string>() != "off";
  }
  settings.record_shapes = flag("record_shapes", false);
  settings.profile_memory = flag("profile_memory", false);
  return settings;
}

std::atomic<bool> g_memory_enabled{false};

// ---- operator names ------------------------------------------------------------------

// Direct-mapped, per thread, so lookups need no synchronisation. A hit needs the same
// pointer and the same text; names too long to keep a copy of are interned every time.
class NameCache {
 public:
  uint32_t Intern(const char* name) {
    const size_t length = std::strlen(name);
    if (length >= kTextBytes) return aiprof_intern(name, length);
    const auto key = reinterpret_cast<uintptr_t>(name);
    Entry& entry = entries_[(key >> 3 ^ key >> 13) & (kEntries - 1)];
    if (entry.pointer == name && entry.length == length &&
        std::memcmp(entry.text, name, length) == 0) {
      return entry.id;
    }
    const uint32_t id = aiprof_intern(name, length);
    if (id != 0) {
      entry.pointer = name;
      entry.length = static_cast<uint32_t>(length);
      entry.id = id;
      std::memcpy(entry.text, name, length);
    }
    return id;
  }

 private:
  static constexpr size_t kEntries = 512;
  static constexpr size_t kTextBytes = 64;
  struct Entry {
    const char* pointer = nullptr;
    uint32_t length = 0;
    uint32_t id = 0;
    char text[kTextBytes];
  };
  std::array<Entry, kEntries> entries_{};
};

// One heap cache per thread, made at the thread's first operator (not on the record path
// afterwards) and freed when the thread exits. The pointer uses the initial-exec TLS
// model: one load instead of a __tls_get_addr call per operator; 8 bytes fit glibc's
// static TLS reserve for dlopen'ed libraries.
__attribute__((tls_model("initial-exec"))) thread_local NameCache* t_name_cache = nullptr;

struct NameCacheOwner {
  ~NameCacheOwner() {
    delete t_name_cache;
    t_name_cache = nullptr;
  }
};

NameCache& ThreadNameCache() {
  if (__builtin_expect(t_name_cache == nullptr, 0)) {
    thread_local NameCacheOwner owner;
    t_name_cache = new NameCache();
  }
  return *t_name_cache;
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
  record.header = {aiprof_now(), format::ToKind(kind), 2, DeviceAux(device), 0};
  record.block = {reinterpret_cast<uint64_t>(address), bytes};
  record.totals = {total_allocated, total_reserved};
  aiprof_emit(&record, 3);
}

// c10 allocators report to the innermost PROFILER_STATE debug info of the allocating
// thread. The reporter answers "enabled" only while
// a window with profile_memory is open.
class MemoryReporter final : public c10::MemoryReportingInfoBase {
 public:
  void reportMemoryUsage(void* ptr, int64_t alloc_size, int64_t total_allocated,
                         int64_t total_reserved, c10::Device device) override {
    EmitMemory(TorchKind::kMemory, ptr, alloc_size, total_allocated, total_reserved, device);
  }
  void reportOutOfMemory(int64_t alloc_size, int64_t total_allocated, int64_t total_reserved,
                         c10::Device device) override {
    EmitMemory(TorchKind::kOutOfMemory, nullptr, alloc_size, total_allocated, total_reserved,
               device);
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

struct OpRecord {
  RecordHeader header;
  format::TorchOpIds ids;
  format::TorchOpThreads threads;
  uint64_t inputs[format::kTorchMaxInputValues];
};
static_assert(sizeof(OpRecord) == 16 * (3 + format::kTorchMaxInputValues / 2));

// Appends the input stream; returns the number of u64 values written, or sets truncated.
uint32_t PackInputs(const at::RecordFunction& fn, uint64_t* out, bool* truncated) {
  uint32_t count = 0;
  auto push = [&](uint64_t value) {
    if (count == format::kTorchMaxInputValues) {
      *truncated = true;
      return false;
    }
    out[count++] = value;
    return true;
  };
  for (const c10::IValue& input : fn.inputs()) {
    if (input.isTensor()) {
      const at::Tensor& tensor = input.toTensor();
      if (!tensor.defined()) {
        if (!push(TorchInputDescriptor(TorchInputTag::kUndefinedTensor, 0, 0))) break;
        continue;
      }
      const auto sizes = tensor.sizes();
      const auto rank = static_cast<uint8_t>(std::min<size_t>(sizes.size(), format::kTorchMaxRank));
      if (count + 1 + rank > format::kTorchMaxInputValues) {
        *truncated = true;
        break;
      }
      push(TorchInputDescriptor(TorchInputTag::kTensor, static_cast<uint8_t>(tensor.scalar_type()),
                                rank));
      for (uint8_t d = 0; d < rank; ++d) push(static_cast<uint64_t>(sizes[d]));
    } else if (input.isInt() || input.isDouble() || input.isBool()) {
      if (count + 2 > format::kTorchMaxInputValues) {
        *truncated = true;
        break;
      }
      if (input.isInt()) {
        push(TorchInputDescriptor(TorchInputTag::kInt, 0, 0));
        push(static_cast<uint64_t>(input.toInt()));
      } else if (input.isDouble()) {
        push(TorchInputDescriptor(TorchInputTag::kDouble, 0, 0));
        const double value = input.toDouble();
        uint64_t bits;
        std::memcpy(&bits, &value, sizeof(bits));
        push(bits);
      } else {
        push(TorchInputDescriptor(TorchInputTag::kBool, 0, 0));
        push(input.toBool() ? 1 : 0);
      }
    } else {
      TorchInputTag tag = TorchInputTag::kOther;
      if (input.isNone()) {
        tag = TorchInputTag::kNone;
      } else if (input.isTensorList()) {
        tag = TorchInputTag::kTensorList;
      } else if (input.isIntList() || input.isDoubleList()) {
        tag = TorchInputTag::kScalarList;
      }
      if (!push(TorchInputDescriptor(tag, 0, 0))) break;
    }
  }
  return count;
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

// Operators whose id this thread pushed, innermost last; exit pops only its own id, so a
// window that opens or closes while operators are running never unbalances CUPTI's stack.
constexpr int kMaxPushedDepth = 64;
thread_local uint64_t t_pushed_ids[kMaxPushedDepth];
thread_local int t_pushed_depth = 0;

void PushCudaExternalId(const at::RecordFunction& fn) {
  auto push = g_cuda_push.load(std::memory_order_acquire);
  if (push == nullptr || fn.isAsync() || t_pushed_depth >= kMaxPushedDepth) return;
  if (push(AIPROF_CUDA_EXTERNAL_OPERATOR, fn.handle()) != 0) {
    t_pushed_ids[t_pushed_depth++] = fn.handle();
  }
}

void PopCudaExternalId(const at::RecordFunction& fn) {
  if (t_pushed_depth == 0 || t_pushed_ids[t_pushed_depth - 1] != fn.handle()) return;
  --t_pushed_depth;
  g_cuda_pop.load(std::memory_order_relaxed)(AIPROF_CUDA_EXTERNAL_OPERATOR);
}

std::unique_ptr<at::ObserverContext> OnOpEnter(const at::RecordFunction& fn) {
  if (aiprof_collecting == 0) return nullptr;
  PushCudaExternalId(fn);
  OpRecord record;
  uint16_t aux = static_cast<uint16_t>(fn.scope());
  if (fn.isAsync()) aux |= format::kTorchOpAsync;
  uint32_t values = 0;
  if (fn.needsInputs()) {
    bool truncated = false;
    // Some tensor kinds (nested, symbolic sizes) throw from sizes(); the operator must
    // never see a profiler exception, so such inputs end the stream instead.
    try {
      values = PackInputs(fn, record.inputs, &truncated);
    } catch (...) {
      values = 0;
      truncated = true;
    }
    if (truncated) aux |= format::kTorchOpInputsTruncated;
    if (values % 2 == 1) record.inputs[values++] = 0;
  }
  const auto ext_words = static_cast<uint8_t>(2 + values / 2);
  record.header = {0, format::ToKind(TorchKind::kOpBegin), ext_words, aux,
                   ThreadNameCache().Intern(fn.name())};
  record.ids = {fn.handle(), fn.seqNr()};
  record.threads = {fn.forwardThreadId(), fn.threadId()};
  record.header.ts = aiprof_now();
  aiprof_emit(&record, 1u + ext_words);
  return nullptr;
}

void OnOpExit(const at::RecordFunction& fn, at::ObserverContext*) {
  PopCudaExternalId(fn);
  RecordHeader header{aiprof_now(), format::ToKind(TorchKind::kOpEnd), 0,
                      static_cast<uint16_t>(fn.scope()), static_cast<uint32_t>(fn.handle())};
  aiprof_emit(&header, 1);
}

// ---- collection windows --------------------------------------------------------------

std::mutex g_window_mutex;
at::CallbackHandle g_callback = 0;

void OnStart(void*) {
  const Settings settings = ReadSettings();
  ResolveCudaAttribution();
  std::lock_guard<std::mutex> lock(g_window_mutex);
  g_memory_enabled.store(settings.profile_memory, std::memory_order_relaxed);
  if (settings.profile_memory) PushMemoryReporterOnThisThread();
  if (!settings.operators || g_callback != 0) return;
  g_callback = at::addGlobalCallback(at::RecordFunctionCallback(OnOpEnter, OnOpExit)
                                         .needsInputs(settings.record_shapes)
                                         .needsIds(true));
}

void OnStop(void*) {
  std::lock_guard<std::mutex> lock(g_window_mutex);
  g_memory_enabled.store(false, std::memory_order_relaxed);
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
  static const int result = aiprof_register_source(&aiprof::torch_source::kSource);
  return result;
}
