#include "export/csv/framework_summaries.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string_view>
#include <unordered_map>

#include "analysis/analysis_set.h"
#include "format/torch_inputs.h"
#include "model/huge_pages.h"

namespace aiprof::exporter {
namespace {

using model::Model;

// Exact: epoch ns do not fit a double's 53 bits.
std::string Micros(int64_t ns) {
  char text[32];
  const uint64_t magnitude = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::snprintf(text, sizeof(text), "%s%llu.%03llu", ns < 0 ? "-" : "",
                static_cast<unsigned long long>(magnitude / 1000),
                static_cast<unsigned long long>(magnitude % 1000));
  return text;
}

std::string Megabytes(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6f", static_cast<double>(bytes) / 1048576.0);
  return text;
}

std::string Csv(std::string_view text) {
  if (text.find_first_of(",\"\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// Arguments of one event set as key -> (type, value).
struct ArgLookup {
  const Model& m;
  std::string_view String(uint32_t set, std::string_view key) const {
    for (uint32_t i = m.args.set_begin[set]; i < m.args.set_begin[set + 1]; ++i) {
      if (m.Str(m.args.key[i]) == key &&
          (m.args.type[i] == model::ArgType::kString || m.args.type[i] == model::ArgType::kJson)) {
        return m.Str(static_cast<model::StringId>(m.args.value[i]));
      }
    }
    return {};
  }
  bool Int(uint32_t set, std::string_view key, int64_t* out) const {
    for (uint32_t i = m.args.set_begin[set]; i < m.args.set_begin[set + 1]; ++i) {
      if (m.Str(m.args.key[i]) == key &&
          (m.args.type[i] == model::ArgType::kInt || m.args.type[i] == model::ArgType::kUInt)) {
        *out = static_cast<int64_t>(m.args.value[i]);
        return true;
      }
    }
    return false;
  }
};

class CsvFile {
 public:
  CsvFile(const std::string& dir, const char* name, const char* header,
          std::vector<std::string>* written, std::string* error)
      : path_(dir + "/" + name), out_(path_), written_(written), error_(error) {
    out_ << header << '\n';
  }
  std::ofstream& out() { return out_; }
  ~CsvFile() {
    out_.close();
    if (out_.fail()) {
      if (error_->empty()) *error_ = "cannot write " + path_;
    } else {
      written_->push_back(path_);
    }
  }

 private:
  std::string path_;
  std::ofstream out_;
  std::vector<std::string>* written_;
  std::string* error_;
};

std::string DeviceType(int64_t type, int64_t index) {
  std::string name = type == 0 ? "CPU" : type == 1 ? "CUDA" : "device" + std::to_string(type);
  return index >= 0 ? name + ":" + std::to_string(index) : name;
}

}  // namespace

void WriteFrameworkSummaries(const Model& m, const SummaryTarget& target) {
  std::vector<std::string> written;
  std::string io_error;
  std::string* error = &io_error;
  const std::string& dir = target.dir;
  struct Report {  // hands the outcome to the export job however the function returns
    const SummaryTarget& target;
    std::vector<std::string>& written;
    std::string& error;
    ~Report() {
      if (target.written)
        target.written->insert(target.written->end(), written.begin(), written.end());
      if (target.errors && !error.empty()) target.errors->push_back(error);
    }
  } report{target, written, io_error};
  const ArgLookup args{m};
  const model::StringId cpu_op = m.strings.Find("cpu_op");
  const model::StringId memory_name = m.strings.Find("[memory]");

  // Operators, by thread in time order (slices are sorted per track by the parser).
  std::vector<uint32_t> operators;
  for (uint32_t row = 0; cpu_op != model::kNoString && row < m.slices.size(); ++row) {
    if (m.slices.category[row] == cpu_op) operators.push_back(row);
  }
  // Sized only when there are operators (the name "cpu_op" alone is not enough): a
  // per-slice column costs page faults.
  std::vector<int64_t> child_ns;
  if (!operators.empty()) model::AssignOnHugePages(child_ns, m.slices.size(), int64_t{0});
  for (uint32_t row : operators) {
    const uint32_t parent = m.slices.parent[row];
    if (parent != model::kNoRow) child_ns[parent] += m.slices.dur(row);
  }
  if (!operators.empty()) {
    CsvFile file(dir, "operator_details.csv",
                 "Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),"
                 "Device Self Duration(us),Device Total Duration(us),Device Self Duration With "
                 "AICore(us),Device Total Duration With AICore(us)",
                 &written, error);
    for (uint32_t row : operators) {
      const uint32_t set = m.slices.args[row];
      const int64_t total = m.slices.dur(row);
      file.out() << Csv(m.Str(m.slices.name[row])) << ','
                 << Csv(format::InputShapesFromDims(args.String(set, "Input Dims"))) << ','
                 << Csv(args.String(set, "Call stack")) << ','
                 << Micros(std::max<int64_t>(total - child_ns[row], 0)) << ',' << Micros(total)
                 << ",0,0,0,0\n";
    }
  }

  // Allocator events in time order; blocks pair an allocation with its release by address.
  std::vector<uint32_t> events;
  for (uint32_t row = 0; row < m.instants.size(); ++row) {
    if (m.instants.name[row] == memory_name) events.push_back(row);
  }
  if (events.empty()) return;
  std::stable_sort(events.begin(), events.end(),
                   [&](uint32_t a, uint32_t b) { return m.instants.ts[a] < m.instants.ts[b]; });

  struct Event {
    int64_t ts = 0, bytes = 0, allocated = 0, reserved = 0, type = 0, index = -1;
  };
  auto read = [&](uint32_t row) {
    Event e{m.instants.ts[row], 0, 0, 0, 0, -1};
    const uint32_t set = m.instants.args[row];
    args.Int(set, "Bytes", &e.bytes);
    args.Int(set, "Total Allocated", &e.allocated);
    args.Int(set, "Total Reserved", &e.reserved);
    args.Int(set, "Device Type", &e.type);
    args.Int(set, "Device Id", &e.index);
    return e;
  };
  {
    CsvFile file(dir, "memory_record.csv",
                 "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total "
                 "Active(MB),Stream Ptr,Device Type",
                 &written, error);
    for (uint32_t row : events) {
      const Event e = read(row);
      file.out() << "PTA," << Micros(e.ts) << ',' << Megabytes(e.allocated) << ','
                 << Megabytes(e.reserved) << ',' << Megabytes(e.allocated) << ",,"
                 << DeviceType(e.type, e.index) << '\n';
    }
  }
  // The blocks and their allocating operators, as the memory analysis paired and
  // attributed them (the one attribution every output reads).
  analysis::MemoryAnalysis computed;
  if (target.analyses == nullptr) {
    computed = analysis::ComputeMemoryAnalysis(m, analysis::StepsOf(m));
  }
  const analysis::MemoryAnalysis& memory =
      target.analyses != nullptr ? target.analyses->memory : computed;
  CsvFile file(dir, "operator_memory.csv",
               "Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),"
               "Duration(us),Active Duration(us),Allocation Total Allocated(MB),Allocation "
               "Total Reserved(MB),Allocation Total Active(MB),Release Total Allocated(MB),"
               "Release Total Reserved(MB),Release Total Active(MB),Stream Ptr,Device Type",
               &written, error);
  for (const analysis::MemoryBlock& block : memory.blocks) {
    const Event a = read(block.allocation);
    char size[32];
    std::snprintf(size, sizeof(size), "%.3f", static_cast<double>(block.bytes) / 1024.0);
    const std::string_view name =
        block.op == model::kNoRow ? std::string_view() : m.Str(m.slices.name[block.op]);
    file.out() << Csv(name) << ',' << size << ',' << Micros(a.ts) << ',';
    const bool released = block.release != model::kNoRow;
    const Event r = released ? read(block.release) : Event{};
    if (released) {
      file.out() << Micros(r.ts) << ',' << Micros(r.ts) << ',' << Micros(r.ts - a.ts) << ','
                 << Micros(r.ts - a.ts) << ',';
    } else {
      file.out() << ",,,,";  // still allocated when the data ends
    }
    file.out() << Megabytes(a.allocated) << ',' << Megabytes(a.reserved) << ','
               << Megabytes(a.allocated) << ',';
    if (released) {
      file.out() << Megabytes(r.allocated) << ',' << Megabytes(r.reserved) << ','
                 << Megabytes(r.allocated);
    } else {
      file.out() << ",,";
    }
    file.out() << ",," << DeviceType(a.type, a.index) << '\n';
  }
}

}  // namespace aiprof::exporter
