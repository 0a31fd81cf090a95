// PyTorch records (src/format/records_torch.h) as Kineto shapes them: operators become
// "cpu_op" slices (record_function ranges "user_annotation") with Kineto's argument
// names (and "flops" with with_flops), forward operators link to their backward with "fwdbwd"
// flows, Python frames and nn.Module ranges become "python_function" slices, allocator events
// become "[memory]" instants plus "Total Allocated"/"Total Reserved" counters per device, long
// garbage collections become "gc" slices, and torch.distributed calls on a sub-group become
// "python_function" slices "torch.distributed (process group)" with Kineto's
// "Process Group Name" argument (read by model/process_group_call.h).
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/records_torch.h"
#include "format/torch_flops.h"
#include "format/torch_inputs.h"
#include "model/importer.h"

namespace aiprof::model {
namespace {

using format::TorchKind;

constexpr uint8_t kUserScope = 7;  // at::RecordScope::USER_SCOPE

class TorchImporter : public RecordImporter {
 public:
  bool Handles(uint8_t kind) const override {
    return kind >= format::ToKind(TorchKind::kOpBegin) &&
           kind <= format::ToKind(TorchKind::kProcessGroupEnd);
  }

  void Import(const format::RecordView& record, ImportContext& context) override {
    Strings(context);
    const format::RecordHeader& h = *record.header;
    switch (static_cast<TorchKind>(h.kind)) {
      case TorchKind::kOpBegin: {
        const auto* ids = record.ExtAs<format::TorchOpIds>(0);
        const auto* threads = record.ExtAs<format::TorchOpThreads>(1);
        if (ids == nullptr || threads == nullptr) break;
        const uint32_t slice = AddOperator(record, context, kOpenEnd, *ids,
                                           threads->forward_thread_id, threads->thread_id);
        open_ops_[static_cast<uint32_t>(ids->record_id)] = slice;
        break;
      }
      case TorchKind::kOp: {
        const auto* ids = record.ExtAs<format::TorchOpIds>(0);
        const auto* end = record.ExtAs<format::TorchOpEnd>(1);
        if (ids == nullptr || end == nullptr) break;
        AddOperator(record, context, static_cast<int64_t>(end->end_ts), *ids,
                    end->forward_thread_id, end->thread_id);
        break;
      }
      case TorchKind::kOpCompact: {
        const auto* compact = record.ExtAs<format::TorchOpCompact>(0);
        if (compact == nullptr) break;
        AddOperator(record, context, static_cast<int64_t>(format::UnpackTorchOpEnd(*compact, h.ts)),
                    format::UnpackTorchOpIds(*compact), 0, format::UnpackTorchOpThread(*compact));
        break;
      }
      case TorchKind::kOpEnd: {
        auto found = open_ops_.find(h.arg);
        if (found == open_ops_.end()) {
          ++context.model().unmatched_ends;
          break;
        }
        context.EndSlice(found->second, h.ts);
        open_ops_.erase(found);
        break;
      }
      case TorchKind::kPyCall:
      case TorchKind::kModuleBegin: {
        auto& stack = h.kind == format::ToKind(TorchKind::kPyCall)
                          ? python_stacks_[context.thread()]
                          : module_stacks_[context.thread()];
        const StringId name = context.FileString(h.arg);
        const uint32_t slice =
            context.AddSlice(context.track(), h.ts, kOpenEnd, name, python_category_);
        stack.push_back({slice, name});
        break;
      }
      case TorchKind::kPyReturn:
      case TorchKind::kModuleEnd: {
        auto& stack = h.kind == format::ToKind(TorchKind::kPyReturn)
                          ? python_stacks_[context.thread()]
                          : module_stacks_[context.thread()];
        if (stack.empty()) {  // entered before the window opened
          ++context.model().unmatched_ends;
          break;
        }
        context.EndSlice(stack.back().slice, h.ts);
        stack.pop_back();
        break;
      }
      case TorchKind::kProcessGroupBegin: {
        const uint32_t args =
            context.Args().String("Process Group Name", context.FileString(h.arg)).Commit();
        const uint32_t slice = context.AddSlice(context.track(), h.ts, kOpenEnd, group_call_name_,
                                                python_category_, args);
        group_call_stacks_[context.thread()].push_back(slice);
        break;
      }
      case TorchKind::kProcessGroupEnd: {
        auto& stack = group_call_stacks_[context.thread()];
        if (stack.empty()) {  // entered before the window opened
          ++context.model().unmatched_ends;
          break;
        }
        context.EndSlice(stack.back(), h.ts);
        stack.pop_back();
        break;
      }
      case TorchKind::kMemory:
      case TorchKind::kOutOfMemory:
        Memory(record, context);
        break;
      case TorchKind::kGc: {
        const auto* gc = record.ExtAs<format::TorchGc>(0);
        if (gc == nullptr) break;
        const uint32_t args = context.Args()
                                  .Int("generation", h.arg)
                                  .UInt("collected", gc->collected)
                                  .UInt("uncollectable", gc->uncollectable)
                                  .Commit();
        context.AddSlice(context.track(), h.ts, static_cast<int64_t>(gc->end_ts), gc_name_,
                         gc_category_, args);
        break;
      }
    }
  }

  // Slices still open are closed by the parser at the end of the data (kOpenEnd).
  void Finish(ImportContext& context, uint64_t last_ticks) override {
    (void)last_ticks;
    for (const auto* links : {&forward_links_, &backward_links_}) {
      for (const auto& [key, link] : *links) {
        context.AddFlowEndpoint(fwdbwd_, key, link.slice, links == &forward_links_);
      }
    }
    forward_links_.clear();
    backward_links_.clear();
  }

 private:
  struct Frame {
    uint32_t slice;
    StringId name;
  };

  void Strings(ImportContext& context) {
    if (cpu_op_ != kNoString) return;
    cpu_op_ = context.Intern("cpu_op");
    user_annotation_ = context.Intern("user_annotation");
    python_category_ = context.Intern("python_function");
    gc_category_ = context.Intern("gc");
    gc_name_ = context.Intern("GC");
    group_call_name_ = context.Intern("torch.distributed (process group)");
    fwdbwd_ = context.Intern("fwdbwd");
    memory_name_ = context.Intern("[memory]");
    oom_name_ = context.Intern("[OutOfMemory]");
    memory_category_ = context.Intern("cpu_instant_event");
    bytes_unit_ = context.Intern("bytes");
  }

  // Innermost frame first, as Kineto's "Call stack".
  std::string CallStack(ImportContext& context) {
    std::string text;
    const auto& stack = python_stacks_[context.thread()];
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
      if (!text.empty()) text += ';';
      text += context.model().Str(it->name);
    }
    return text;
  }

  std::string ModuleHierarchy(ImportContext& context) {
    std::string text;
    for (const Frame& frame : module_stacks_[context.thread()]) {
      std::string_view name = context.model().Str(frame.name);
      if (name.starts_with("nn.Module: ")) name.remove_prefix(11);
      if (!text.empty()) text += '.';
      text += name;
    }
    return text;
  }

  static std::string JsonStrings(const std::vector<format::TorchInput>& inputs, bool concrete) {
    std::string text = "[";
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (i) text += ", ";
      text += '"';
      text += concrete ? inputs[i].concrete : inputs[i].type;
      text += '"';
    }
    return text + "]";
  }

  // One operator slice (end_ticks kOpenEnd for a kOpBegin, closed by its kOpEnd). A
  // kOpCompact carries no inputs.
  uint32_t AddOperator(const format::RecordView& record, ImportContext& context, int64_t end_ticks,
                       const format::TorchOpIds& ids, uint64_t forward_thread_id,
                       uint64_t thread_id) {
    const format::RecordHeader& h = *record.header;
    const uint8_t scope = h.aux & format::kTorchOpScopeMask;
    const StringId name = context.FileString(h.arg);
    ArgSetBuilder args = context.Args();
    args.UInt("External id", ids.record_id).UInt("Record function id", ids.record_id);
    if (ids.sequence_nr >= 0) {
      args.UInt("Fwd thread id", forward_thread_id ? forward_thread_id : thread_id);
      args.Int("Sequence number", ids.sequence_nr);
    }
    const bool has_inputs = h.kind != format::ToKind(TorchKind::kOpCompact) && h.ext_words > 2;
    if (has_inputs) {
      const auto* values = reinterpret_cast<const uint64_t*>(record.ext + 2);
      const auto inputs = format::DecodeTorchInputs({values, (h.ext_words - 2u) * 2u});
      if (!(h.aux & format::kTorchOpInputsForFlops)) {
        args.Json("Input Dims", format::FormatInputDims(inputs));
        args.Json("Input type", JsonStrings(inputs, false));
        bool any_concrete = false;
        for (const auto& input : inputs) any_concrete |= !input.concrete.empty();
        if (any_concrete) args.Json("Concrete Inputs", JsonStrings(inputs, true));
        if (h.aux & format::kTorchOpInputsTruncated) args.Int("Inputs truncated", 1);
      }
      if (h.aux & format::kTorchOpCountFlops) {
        const uint64_t flops = format::TorchOperatorFlops(context.model().Str(name), inputs);
        if (flops > 0) args.UInt("flops", flops);
      }
    }
    const std::string stack = CallStack(context);
    if (!stack.empty()) args.String("Call stack", stack);
    const std::string modules = ModuleHierarchy(context);
    if (!modules.empty()) args.String("Module Hierarchy", modules);
    const uint32_t slice =
        context.AddSlice(context.track(), h.ts, end_ticks, name,
                         scope == kUserScope ? user_annotation_ : cpu_op_, args.Commit());

    // Forward op (seq, its thread) -> the backward op that names it (seq, fwd thread).
    // Only the outermost op of each side is linked, as Kineto does: the earliest start,
    // since kOp and kOpCompact records arrive in end order (inner operators first). Written
    // in Finish.
    if (ids.sequence_nr >= 0) {
      const bool backward = forward_thread_id != 0;
      const uint64_t key =
          FlowKey(context, ids.sequence_nr, backward ? forward_thread_id : thread_id);
      auto [it, inserted] =
          (backward ? backward_links_ : forward_links_).try_emplace(key, FlowLink{h.ts, slice});
      const bool end_order = h.kind == format::ToKind(TorchKind::kOp) ||
                             h.kind == format::ToKind(TorchKind::kOpCompact);
      if (!inserted && (h.ts < it->second.ts || (end_order && h.ts == it->second.ts))) {
        it->second = {h.ts, slice};
      }
    }
    return slice;
  }

  static uint64_t FlowKey(ImportContext& context, int64_t sequence_nr, uint64_t torch_thread) {
    const uint64_t pid = context.model().processes.pid[context.process()];
    return (pid & 0xfffff) << 44 | (torch_thread & 0xfff) << 32 |
           (static_cast<uint64_t>(sequence_nr) & 0xffffffff);
  }

  void Memory(const format::RecordView& record, ImportContext& context) {
    const format::RecordHeader& h = *record.header;
    const auto* block = record.ExtAs<format::TorchMemoryBlock>(0);
    const auto* totals = record.ExtAs<format::TorchMemoryTotals>(1);
    if (block == nullptr || totals == nullptr) return;
    const int device_type = h.aux & 0xff;
    const int device_index = (h.aux >> 8) - 1;
    const bool oom = h.kind == format::ToKind(TorchKind::kOutOfMemory);
    const uint32_t args = context.Args()
                              .Int("Device Type", device_type)
                              .Int("Device Id", device_index)
                              .UInt("Addr", block->address)
                              .Int("Bytes", block->bytes)
                              .Int("Total Allocated", totals->total_allocated)
                              .Int("Total Reserved", totals->total_reserved)
                              .Commit();
    context.AddInstant(context.track(), h.ts, oom ? oom_name_ : memory_name_, memory_category_,
                       args);
    if (oom) return;
    const std::string device = DeviceName(device_type, device_index);
    auto [it, inserted] = memory_series_.try_emplace(h.aux, kNoRow, kNoRow);
    auto& series = it->second;
    if (inserted) {
      const auto scope = static_cast<uint16_t>(format::CounterScope::kProcess);
      const uint32_t pid = context.model().processes.pid[context.process()];
      series.first = context.CounterSeries(context.Intern("Total Allocated (" + device + ")"),
                                           context.process(), scope, pid, bytes_unit_);
      series.second = context.CounterSeries(context.Intern("Total Reserved (" + device + ")"),
                                            context.process(), scope, pid, bytes_unit_);
    }
    context.AddCounter(series.first, h.ts, static_cast<double>(totals->total_allocated));
    context.AddCounter(series.second, h.ts, static_cast<double>(totals->total_reserved));
  }

  static std::string DeviceName(int device_type, int device_index) {
    std::string name = device_type == 0   ? "CPU"
                       : device_type == 1 ? "CUDA"
                                          : "device" + std::to_string(device_type);
    if (device_index >= 0) name += ":" + std::to_string(device_index);
    return name;
  }

  StringId cpu_op_ = kNoString, user_annotation_ = kNoString, python_category_ = kNoString;
  StringId gc_category_ = kNoString, gc_name_ = kNoString, fwdbwd_ = kNoString;
  StringId memory_name_ = kNoString, oom_name_ = kNoString, memory_category_ = kNoString;
  StringId bytes_unit_ = kNoString;
  std::unordered_map<uint32_t, uint32_t> open_ops_;  // low 32 bits of record id -> slice
  std::unordered_map<uint32_t, std::vector<Frame>> python_stacks_, module_stacks_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> group_call_stacks_;  // open slices
  StringId group_call_name_ = kNoString;
  struct FlowLink {
    uint64_t ts;
    uint32_t slice;
  };
  std::map<uint64_t, FlowLink> forward_links_, backward_links_;                // flow key -> op
  std::unordered_map<uint16_t, std::pair<uint32_t, uint32_t>> memory_series_;  // aux -> series
};

}  // namespace
}  // namespace aiprof::model

AIPROF_DEFINE_IMPORTER(torch) {
  return std::make_unique<aiprof::model::TorchImporter>();
}
