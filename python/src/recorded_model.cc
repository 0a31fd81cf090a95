#include "recorded_model.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "analysis/analysis_set.h"
#include "export/timeline/trace_json.h"
#include "model/framework_operators.h"
#include "model/parser.h"
#include "model/recorded_metadata.h"

namespace aiprof::python {
namespace {

// The string id of `text` in the model, kMissing when no event uses it.
model::StringId Id(const model::Model& m, std::string_view text) {
  return m.strings.Find(text);
}

// The argument keys the Python side reads, as model string ids.
struct ArgKeys {
  explicit ArgKeys(const model::Model& m)
      : external_id(Id(m, "External id")),
        sequence_nr(Id(m, "Sequence number")),
        fwd_thread(Id(m, "Fwd thread id")),
        flops(Id(m, "flops")),
        input_dims(Id(m, "Input Dims")),
        input_types(Id(m, "Input type")),
        concrete_inputs(Id(m, "Concrete Inputs")),
        call_stack(Id(m, "Call stack")),
        module_hierarchy(Id(m, "Module Hierarchy")),
        device_type(Id(m, "Device Type")),
        device_id(Id(m, "Device Id")),
        address(Id(m, "Addr")),
        bytes(Id(m, "Bytes")),
        total_allocated(Id(m, "Total Allocated")),
        total_reserved(Id(m, "Total Reserved")) {}
  model::StringId external_id, sequence_nr, fwd_thread, flops, input_dims, input_types,
      concrete_inputs, call_stack, module_hierarchy, device_type, device_id, address, bytes,
      total_allocated, total_reserved;
};

// Calls `visit(key, index into ArgTable)` for every argument of set `set`.
template <typename Visit>
void ForEachArg(const model::ArgTable& args, uint32_t set, Visit&& visit) {
  if (set == 0) return;
  for (uint32_t i = args.set_begin[set]; i < args.set_begin[set + 1]; ++i) visit(args.key[i], i);
}

int64_t IntValue(const model::ArgTable& args, uint32_t i) {
  if (args.type[i] == model::ArgType::kDouble) {
    return static_cast<int64_t>(std::bit_cast<double>(args.value[i]));
  }
  return static_cast<int64_t>(args.value[i]);
}

std::string Text(const model::Model& m, const model::ArgTable& args, uint32_t i) {
  return std::string(m.Str(static_cast<model::StringId>(args.value[i])));
}

}  // namespace

RecordedModel::RecordedModel(const std::vector<std::string>& prof_dirs) {
  for (const std::string& dir : prof_dirs) {
    std::vector<std::string> files = model::ListRawFiles(dir);
    if (files.empty()) {
      throw std::runtime_error(dir +
                               " holds no raw data (expected host/data/*.data): is it a PROF_* "
                               "directory written by the aiprof runtime?");
    }
    files_.insert(files_.end(), files.begin(), files.end());
  }
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
  model_ = model::ParseFiles(files_, {threads});
}

const analysis::AnalysisSet& RecordedModel::Analyses() const {
  std::call_once(analyses_once_, [this] {
    analyses_ = std::make_unique<analysis::AnalysisSet>(analysis::RunAnalyses(model_));
  });
  return *analyses_;
}

void RecordedModel::WriteChromeTrace(const std::string& path, const std::string& trace_name) const {
  std::string error;
  // The same analyses `aiprof export` runs, so the Overlap Analysis lanes, memory counters
  // and operator memory match its trace event for event (the critical path only with
  // --critical-path=on there).
  const analysis::AnalysisSet& analyses = Analyses();
  if (!exporter::WriteTraceJson(model_, path, trace_name, &error, &analyses.overlap,
                                &analyses.memory, &analyses.cpu_profile, &analyses.critical_path)) {
    throw std::runtime_error("cannot write the trace " + path + ": " + error);
  }
}

StepColumns RecordedModel::Steps() const {
  const model::Model& m = model_;
  StepColumns out;
  out.source = std::string(model::StepSourceName(model::RunStepSource(m)));
  for (uint32_t row = 0; row < m.steps.size(); ++row) {
    const uint32_t thread = m.steps.thread[row];
    out.id.push_back(row);
    out.step.push_back(m.steps.step[row]);
    out.loop.push_back(m.step_loops.ordinal[m.steps.loop[row]]);
    out.label.push_back(model::StepLabel(m, row));
    out.pid.push_back(m.processes.pid[m.ProcessOfThread(thread)]);
    out.tid.push_back(m.threads.tid[thread]);
    out.start_ns.push_back(m.steps.ts[row]);
    out.end_ns.push_back(m.steps.end[row]);
    out.has_range.push_back(m.steps.slice[row] != model::kNoRow);
  }
  return out;
}

OperatorColumns RecordedModel::Operators() const {
  const model::Model& m = model_;
  const model::SliceTable& s = m.slices;
  const ArgKeys keys(m);
  const model::StringId user_annotation = Id(m, "user_annotation");
  const model::StringId fwdbwd = Id(m, "fwdbwd");
  const analysis::MemoryAnalysis& memory = Analyses().memory;

  // The operators and their nesting (per thread, as torch nests its events), listed by
  // start time (outer first).
  const model::FrameworkOperators operators = model::FindFrameworkOperators(m);
  const std::vector<int64_t> self = model::OperatorSelfTimes(m, operators);
  std::vector<uint32_t> order(operators.size());  // indexes into operators.rows
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const uint32_t ra = operators.rows[a], rb = operators.rows[b];
    return s.ts[ra] != s.ts[rb] ? s.ts[ra] < s.ts[rb] : s.end[ra] > s.end[rb];
  });
  std::vector<int64_t> position(operators.size());  // index into rows → output row
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<int64_t>(i);
  std::vector<uint8_t> backward_slice(s.size(), 0);
  for (size_t f = 0; f < m.flows.size(); ++f) {
    if (m.flows.category[f] == fwdbwd) backward_slice[m.flows.to_slice[f]] = 1;
  }

  OperatorColumns out;
  for (size_t i = 0; i < order.size(); ++i) {
    const uint32_t row = operators.rows[order[i]];
    const uint32_t thread = m.ThreadOfSlice(row);
    out.pid.push_back(m.processes.pid[m.ProcessOfThread(thread)]);
    out.tid.push_back(m.threads.tid[thread]);
    out.start_ns.push_back(s.ts[row]);
    out.end_ns.push_back(s.end[row]);
    out.self_ns.push_back(self[order[i]]);
    out.name.emplace_back(m.Str(s.name[row]));
    out.user_annotation.push_back(s.category[row] == user_annotation);
    out.closed.push_back(!(s.flags[row] & model::kSliceUnclosed));
    out.backward.push_back(backward_slice[row]);
    uint64_t record_id = 0, fwd_thread = 0, flops = 0;
    int64_t sequence_nr = -1;
    std::string dims, types, concrete, stack, modules;
    ForEachArg(m.args, s.args[row], [&](model::StringId key, uint32_t a) {
      if (key == keys.external_id) {
        record_id = static_cast<uint64_t>(IntValue(m.args, a));
      } else if (key == keys.sequence_nr) {
        sequence_nr = IntValue(m.args, a);
      } else if (key == keys.fwd_thread) {
        fwd_thread = static_cast<uint64_t>(IntValue(m.args, a));
      } else if (key == keys.flops) {
        flops = static_cast<uint64_t>(IntValue(m.args, a));
      } else if (key == keys.input_dims) {
        dims = Text(m, m.args, a);
      } else if (key == keys.input_types) {
        types = Text(m, m.args, a);
      } else if (key == keys.concrete_inputs) {
        concrete = Text(m, m.args, a);
      } else if (key == keys.call_stack) {
        stack = Text(m, m.args, a);
      } else if (key == keys.module_hierarchy) {
        modules = Text(m, m.args, a);
      }
    });
    out.record_id.push_back(record_id);
    out.sequence_nr.push_back(sequence_nr);
    out.fwd_thread.push_back(fwd_thread);
    out.flops.push_back(flops);
    out.input_dims.push_back(std::move(dims));
    out.input_types.push_back(std::move(types));
    out.concrete_inputs.push_back(std::move(concrete));
    out.call_stack.push_back(std::move(stack));
    out.module_hierarchy.push_back(std::move(modules));
    const uint32_t parent = operators.parent[order[i]];
    out.parent.push_back(parent == model::kNoRow ? -1 : position[parent]);
    const analysis::OperatorMemoryUsage* usage = memory.UsageOf(row);
    out.self_cpu_memory.push_back(usage ? usage->self_host_bytes : 0);
    out.cpu_memory.push_back(usage ? usage->host_bytes : 0);
    out.self_device_memory.push_back(usage ? usage->self_device_bytes : 0);
    out.device_memory.push_back(usage ? usage->device_bytes : 0);
  }
  return out;
}

MemoryColumns RecordedModel::Memory() const {
  const model::Model& m = model_;
  const model::InstantTable& in = m.instants;
  const ArgKeys keys(m);
  const model::StringId memory = Id(m, "[memory]");
  const model::StringId out_of_memory = Id(m, "[OutOfMemory]");
  const model::StringId category = Id(m, "cpu_instant_event");
  const std::vector<uint32_t>& outside = Analyses().memory.events_outside_operators;
  std::unordered_map<uint32_t, int8_t> category_of_event;  // InstantTable row → category
  for (const analysis::MemoryBlock& block : Analyses().memory.blocks) {
    category_of_event[block.allocation] = static_cast<int8_t>(block.category);
    if (block.release != model::kNoRow) {
      category_of_event[block.release] = static_cast<int8_t>(block.category);
    }
  }
  MemoryColumns out;
  for (uint32_t row = 0; row < in.size(); ++row) {
    if (in.category[row] != category || (in.name[row] != memory && in.name[row] != out_of_memory)) {
      continue;
    }
    const uint32_t thread = m.tracks.thread[in.track[row]];
    out.pid.push_back(m.processes.pid[m.ProcessOfThread(thread)]);
    out.tid.push_back(m.threads.tid[thread]);
    out.ts_ns.push_back(in.ts[row]);
    out.out_of_memory.push_back(in.name[row] == out_of_memory);
    out.outside_operators.push_back(std::binary_search(outside.begin(), outside.end(), row));
    const auto category_found = category_of_event.find(row);
    out.category.push_back(category_found == category_of_event.end() ? -1 : category_found->second);
    uint64_t address = 0;
    int64_t bytes = 0, allocated = 0, reserved = 0, device_type = 0, device_index = -1;
    ForEachArg(m.args, in.args[row], [&](model::StringId key, uint32_t a) {
      const int64_t value = IntValue(m.args, a);
      if (key == keys.address) {
        address = static_cast<uint64_t>(value);
      } else if (key == keys.bytes) {
        bytes = value;
      } else if (key == keys.total_allocated) {
        allocated = value;
      } else if (key == keys.total_reserved) {
        reserved = value;
      } else if (key == keys.device_type) {
        device_type = value;
      } else if (key == keys.device_id) {
        device_index = value;
      }
    });
    out.address.push_back(address);
    out.bytes.push_back(bytes);
    out.total_allocated.push_back(allocated);
    out.total_reserved.push_back(reserved);
    out.device_type.push_back(static_cast<int32_t>(device_type));
    out.device_index.push_back(static_cast<int32_t>(device_index));
  }
  return out;
}

int64_t RecordedModel::start_ns() const {
  if (model_.start_ns != 0) return model_.start_ns;
  return exporter::TimelineBaseNs(model_);
}

std::vector<std::pair<std::string, std::string>> RecordedModel::Environment() const {
  return model::ReadRecordedMetadata(model_).environment;
}

std::vector<std::string> RecordedModel::Problems() const {
  std::vector<std::string> problems;
  for (const model::FileReport& file : model_.files) {
    if (!file.error.empty()) {
      problems.push_back(file.path + ": " + file.error);
    } else if (!file.report.clean()) {
      problems.push_back(file.path + ": " + file.report.Summary());
    }
  }
  return problems;
}

}  // namespace aiprof::python
