#include <bit>
#include <map>

#include "analysis/analysis_set.h"
#include "analysis/step_trace.h"
#include "export/csv/summaries.h"
#include "export/timeline/track_ids.h"
#include "format/records.h"

namespace aiprof::exporter {

void WriteStepTraceSummary(const model::Model& m, const SummaryTarget& target) {
  const std::vector<analysis::StepTraceRow> computed =
      target.analyses ? std::vector<analysis::StepTraceRow>{}
               : analysis::ComputeStepTrace(m, analysis::StepsOf(m).steps);
  const std::vector<analysis::StepTraceRow>& rows =
      target.analyses ? target.analyses->step_breakdown.trace : computed;
  if (rows.empty()) return;
  const bool several_loops = model::HasSeveralLoops(m);
  SummaryWriter w(target, "step_trace",
                  {"Device_id", "Iteration ID", "FP Start(us)", "BP End(us)", "Iteration End(us)",
                   "Iteration Time(us)", "FP to BP Time(us)", "Iteration Refresh(us)",
                   "Data Aug Bound(us)", "Model ID"},
                  rows.size());
  for (const auto& r : rows) {
    w.Text("host").Step(r.step, r.loop, several_loops).Micros(r.fp_start_ns).Micros(r.bp_end_ns);
    w.Micros(r.iteration_end_ns).Micros(r.iteration_time_ns()).Micros(r.fp_to_bp_ns());
    w.Micros(r.refresh_ns());
    if (r.has_data_aug_bound) {
      w.Micros(r.data_aug_bound_ns);
    } else {
      w.NotApplicable();
    }
    w.NotApplicable().EndRow();
  }
}

namespace {

const char* PayloadTypeName(uint8_t type) {
  switch (type) {
    case format::kPayloadUInt64:
      return "uint64";
    case format::kPayloadInt64:
      return "int64";
    case format::kPayloadDouble:
      return "double";
    case format::kPayloadUInt32:
      return "uint32";
    case format::kPayloadInt32:
      return "int32";
    case format::kPayloadFloat:
      return "float";
    default:
      return "N/A";
  }
}

std::string PayloadValue(uint8_t type, uint64_t bits) {
  switch (type) {
    case format::kPayloadUInt64:
      return std::to_string(bits);
    case format::kPayloadInt64:
      return std::to_string(static_cast<int64_t>(bits));
    case format::kPayloadDouble:
      return std::to_string(std::bit_cast<double>(bits));
    case format::kPayloadUInt32:
      return std::to_string(static_cast<uint32_t>(bits));
    case format::kPayloadInt32:
      return std::to_string(static_cast<int32_t>(bits));
    case format::kPayloadFloat:
      return std::to_string(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    default:
      return "N/A";
  }
}

}  // namespace

void WriteMsprofTx(const model::Model& m, const SummaryTarget& target) {
  const model::MarkerTable& mk = m.markers;
  if (mk.size() == 0) return;
  SummaryWriter w(target, "msprof_tx",
                  {"Device_id", "pid", "tid", "category", "event_type", "payload_type",
                   "payload_value", "Start_time(us)", "End_time(us)", "message_type", "message",
                   "domain", "Device Start_time(us)", "Device End_time(us)"},
                  mk.size());
  static const char* kEventTypes[] = {"marker", "push/pop", "start/end"};
  // Whether each string needs CSV quoting, decided once per string instead of per cell.
  std::vector<uint8_t> plain(m.strings.size());
  for (model::StringId id = 0; id < plain.size(); ++id) {
    plain[id] = m.strings.Get(id).find_first_of(",\"\n\r") == std::string_view::npos;
  }
  auto text = [&](SummaryWriter& writer, model::StringId id) -> SummaryWriter& {
    return plain[id] ? writer.PlainText(m.Str(id)) : writer.Text(m.Str(id));
  };
  for (size_t i = 0; i < mk.size(); ++i) {
    uint32_t row = mk.row[i];
    bool instant = mk.is_instant[i];
    uint32_t track = instant ? m.instants.track[row] : m.slices.track[row];
    uint32_t thread = m.tracks.thread[track];
    int64_t start = instant ? m.instants.ts[row] : m.slices.ts[row];
    int64_t end = instant ? start : m.slices.end[row];
    model::StringId message = instant ? m.instants.name[row] : m.slices.name[row];
    w.PlainText("host").Unsigned(m.processes.pid[m.threads.process[thread]]);
    w.Unsigned(m.threads.tid[thread]).Unsigned(mk.category(i));
    w.PlainText(kEventTypes[static_cast<int>(mk.event_type[i])]);
    uint8_t payload_type = mk.payload_type(i);
    w.PlainText(PayloadTypeName(payload_type));
    if (payload_type == format::kPayloadNone) {
      w.NotApplicable();
    } else {
      w.Text(PayloadValue(payload_type, mk.payload(i)));
    }
    w.Micros(start).Micros(end).PlainText("ascii");
    text(w, message);
    text(w, mk.domain[i]);
    // Device time of a range given a stream (CUDA source): its span on the stream.
    const uint32_t device = mk.device_slice(i);
    if (device == model::kNoRow) {
      w.NotApplicable().NotApplicable();
    } else {
      w.Micros(m.slices.ts[device]).Micros(m.slices.end[device]);
    }
    w.EndRow();
  }
}

// Resource samples (launcher sampler, CUDA/NVML source, user counters): one long-format
// table of every counter series, since their names come from the sources.
void WriteCounterSummaries(const model::Model& m, const SummaryTarget& target) {
  const model::CounterTable& c = m.counters;
  if (c.size() == 0) return;
  std::vector<std::string> names(m.counter_series.size());
  for (uint32_t s = 0; s < names.size(); ++s) names[s] = CounterDisplayName(m, s);
  SummaryWriter w(target, "counters",
                  {"Device_id", "PID", "Name", "Unit", "Timestamp(us)", "Value"}, c.size());
  for (size_t i = 0; i < c.size(); ++i) {
    uint32_t s = c.series[i];
    uint32_t process = m.counter_series.process[s];
    int32_t device = m.processes.device_id[process];
    w.Text(device >= 0 ? std::to_string(device) : "host").Unsigned(m.processes.pid[process]);
    w.Text(names[s]).Text(m.Str(m.counter_series.unit[s])).Micros(c.ts[i]).Real(c.value[i]);
    w.EndRow();
  }
}

}  // namespace aiprof::exporter
