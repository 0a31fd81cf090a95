#include "recorded_model.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <thread>

#include "analysis/analysis_set.h"
#include "export/timeline/trace_json.h"
#include "model/parser.h"

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

void RecordedModel::WriteChromeTrace(const std::string& path, const std::string& trace_name) const {
  std::string error;
  // The same analyses `aiprof export` runs, so the Overlap Analysis lanes and memory counters
  // match its trace event for event (the critical path only with --critical-path=on there).
  const analysis::AnalysisSet analyses = analysis::RunAnalyses(model_);
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
  const model::StringId cpu_op = Id(m, "cpu_op");
  const model::StringId user_annotation = Id(m, "user_annotation");
  const model::StringId fwdbwd = Id(m, "fwdbwd");

  // Torch operators are the cpu_op / user_annotation slices carrying Kineto's "External id"
  // (mstx ranges share the user_annotation category but have no id).
  std::vector<uint32_t> rows;
  for (uint32_t row = 0; row < s.size(); ++row) {
    if (s.category[row] != cpu_op && s.category[row] != user_annotation) continue;
    bool has_id = false;
    ForEachArg(m.args, s.args[row],
               [&](model::StringId key, uint32_t) { has_id |= key == keys.external_id; });
    if (has_id) rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
    return s.ts[a] != s.ts[b] ? s.ts[a] < s.ts[b] : s.end[a] > s.end[b];
  });
  std::vector<int64_t> operator_of_slice(s.size(), -1);
  for (size_t i = 0; i < rows.size(); ++i) operator_of_slice[rows[i]] = static_cast<int64_t>(i);
  std::vector<uint8_t> backward_slice(s.size(), 0);
  for (size_t f = 0; f < m.flows.size(); ++f) {
    if (m.flows.category[f] == fwdbwd) backward_slice[m.flows.to_slice[f]] = 1;
  }

  OperatorColumns out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint32_t row = rows[i];
    const uint32_t thread = m.ThreadOfSlice(row);
    out.pid.push_back(m.processes.pid[m.ProcessOfThread(thread)]);
    out.tid.push_back(m.threads.tid[thread]);
    out.start_ns.push_back(s.ts[row]);
    out.end_ns.push_back(s.end[row]);
    out.self_ns.push_back(s.dur(row));
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
    // The enclosing operator: Python frames and module ranges nest between operators on
    // the same track, so walk up past them.
    int64_t parent = -1;
    for (uint32_t up = s.parent[row]; up != model::kNoRow; up = s.parent[up]) {
      if (operator_of_slice[up] >= 0) {
        parent = operator_of_slice[up];
        break;
      }
    }
    out.parent.push_back(parent);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out.parent[i] >= 0) {
      out.self_ns[static_cast<size_t>(out.parent[i])] -= out.end_ns[i] - out.start_ns[i];
    }
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
