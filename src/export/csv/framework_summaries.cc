#include "export/csv/framework_summaries.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "analysis/analysis_set.h"
#include "format/torch_inputs.h"
#include "model/huge_pages.h"

namespace aiprof::exporter {
namespace {

using model::Model;

constexpr double kBytesPerMegabyte = 1048576.0;

SummaryWriter& Megabytes(SummaryWriter& w, int64_t bytes) {
  return w.Fixed(static_cast<double>(bytes) / kBytesPerMegabyte, 6);
}

std::string DeviceType(int64_t type, int64_t index) {
  std::string name = type == 0 ? "CPU" : type == 1 ? "CUDA" : "device" + std::to_string(type);
  return index >= 0 ? name + ":" + std::to_string(index) : name;
}

// The figures of one allocator event ("[memory]" instant) that the files show.
struct AllocatorEvent {
  int64_t ts = 0, bytes = 0, allocated = 0, reserved = 0, type = 0, index = -1;
};

class AllocatorEventReader {
 public:
  explicit AllocatorEventReader(const Model& m)
      : m_(m),
        bytes_(m.strings.Find("Bytes")),
        allocated_(m.strings.Find("Total Allocated")),
        reserved_(m.strings.Find("Total Reserved")),
        type_(m.strings.Find("Device Type")),
        index_(m.strings.Find("Device Id")) {}

  AllocatorEvent Read(uint32_t row) const {
    const uint32_t set = m_.instants.args[row];
    const model::ArgTable& args = m_.args;
    return {m_.instants.ts[row],
            args.Int(set, bytes_).value_or(0),
            args.Int(set, allocated_).value_or(0),
            args.Int(set, reserved_).value_or(0),
            args.Int(set, type_).value_or(0),
            args.Int(set, index_).value_or(-1)};
  }

 private:
  const Model& m_;
  model::StringId bytes_, allocated_, reserved_, type_, index_;
};

// operator_details: one row per operator, by thread in time order (slices are sorted per
// track by the parser); device columns 0 on CPU data.
void WriteOperatorDetails(const Model& m, const SummaryTarget& target) {
  const model::StringId cpu_op = m.strings.Find("cpu_op");
  std::vector<uint32_t> operators;
  for (uint32_t row = 0; cpu_op != model::StringPool::kMissing && row < m.slices.size(); ++row) {
    if (m.slices.category[row] == cpu_op) operators.push_back(row);
  }
  if (operators.empty()) return;
  // A per-slice column costs page faults: sized only when there are operators.
  std::vector<int64_t> child_ns;
  model::AssignOnHugePages(child_ns, m.slices.size(), int64_t{0});
  for (uint32_t row : operators) {
    const uint32_t parent = m.slices.parent[row];
    if (parent != model::kNoRow) child_ns[parent] += m.slices.dur(row);
  }
  const model::StringId dims_key = m.strings.Find("Input Dims");
  const model::StringId stack_key = m.strings.Find("Call stack");
  const auto text = [&](uint32_t set, model::StringId key) {
    const auto id = m.args.Text(set, key);
    return id ? m.Str(*id) : std::string_view();
  };
  SummaryWriter w(
      target, "operator_details",
      {"Name", "Input Shapes", "Call Stack", "Host Self Duration(us)", "Host Total Duration(us)",
       "Device Self Duration(us)", "Device Total Duration(us)",
       "Device Self Duration With AICore(us)", "Device Total Duration With AICore(us)"},
      operators.size());
  for (uint32_t row : operators) {
    const uint32_t set = m.slices.args[row];
    const int64_t total = m.slices.dur(row);
    w.Text(m.Str(m.slices.name[row]))
        .Text(format::InputShapesFromDims(text(set, dims_key)))
        .Text(text(set, stack_key))
        .Micros(std::max<int64_t>(total - child_ns[row], 0))
        .Micros(total);
    for (int device_column = 0; device_column < 4; ++device_column) w.Number(0);
    w.EndRow();
  }
}

// memory_record: the allocator totals at every allocator event, in time order.
void WriteMemoryRecord(const std::vector<uint32_t>& events, const AllocatorEventReader& reader,
                       const SummaryTarget& target) {
  SummaryWriter w(target, "memory_record",
                  {"Component", "Timestamp(us)", "Total Allocated(MB)", "Total Reserved(MB)",
                   "Total Active(MB)", "Stream Ptr", "Device Type"},
                  events.size());
  for (uint32_t row : events) {
    const AllocatorEvent e = reader.Read(row);
    w.PlainText("PTA").Micros(e.ts);
    Megabytes(w, e.allocated);
    Megabytes(w, e.reserved);
    Megabytes(w, e.allocated);
    w.Text("").Text(DeviceType(e.type, e.index));
    w.EndRow();
  }
}

// operator_memory: one row per allocator block, as the memory analysis paired and
// attributed them (the one attribution every output reads).
void WriteOperatorMemory(const Model& m, const analysis::MemoryAnalysis& memory,
                         const AllocatorEventReader& reader, const SummaryTarget& target) {
  SummaryWriter w(
      target, "operator_memory",
      {"Name", "Size(KB)", "Allocation Time(us)", "Release Time(us)", "Active Release Time(us)",
       "Duration(us)", "Active Duration(us)", "Allocation Total Allocated(MB)",
       "Allocation Total Reserved(MB)", "Allocation Total Active(MB)",
       "Release Total Allocated(MB)", "Release Total Reserved(MB)", "Release Total Active(MB)",
       "Stream Ptr", "Device Type"},
      memory.blocks.size());
  for (const analysis::MemoryBlock& block : memory.blocks) {
    const AllocatorEvent a = reader.Read(block.allocation);
    w.Text(block.op == model::kNoRow ? std::string_view() : m.Str(m.slices.name[block.op]))
        .Fixed(static_cast<double>(block.bytes) / 1024.0, 3)
        .Micros(a.ts);
    const bool released = block.release != model::kNoRow;
    const AllocatorEvent r = released ? reader.Read(block.release) : AllocatorEvent{};
    if (released) {
      w.Micros(r.ts).Micros(r.ts).Micros(r.ts - a.ts).Micros(r.ts - a.ts);
    } else {
      w.Text("").Text("").Text("").Text("");  // still allocated when the data ends
    }
    Megabytes(w, a.allocated);
    Megabytes(w, a.reserved);
    Megabytes(w, a.allocated);
    if (released) {
      Megabytes(w, r.allocated);
      Megabytes(w, r.reserved);
      Megabytes(w, r.allocated);
    } else {
      w.Text("").Text("").Text("");
    }
    w.Text("").Text(DeviceType(a.type, a.index));
    w.EndRow();
  }
}

}  // namespace

void WriteFrameworkSummaries(const Model& m, const SummaryTarget& target) {
  WriteOperatorDetails(m, target);

  const model::StringId memory_name = m.strings.Find("[memory]");
  std::vector<uint32_t> events;
  for (uint32_t row = 0; memory_name != model::StringPool::kMissing && row < m.instants.size();
       ++row) {
    if (m.instants.name[row] == memory_name) events.push_back(row);
  }
  if (events.empty()) return;
  std::stable_sort(events.begin(), events.end(),
                   [&](uint32_t a, uint32_t b) { return m.instants.ts[a] < m.instants.ts[b]; });
  const AllocatorEventReader reader(m);
  WriteMemoryRecord(events, reader, target);

  analysis::MemoryAnalysis computed;
  if (target.analyses == nullptr) {
    computed = analysis::ComputeMemoryAnalysis(m, analysis::StepsOf(m));
  }
  const analysis::MemoryAnalysis& memory =
      target.analyses != nullptr ? target.analyses->memory : computed;
  WriteOperatorMemory(m, memory, reader, target);
}

}  // namespace aiprof::exporter
