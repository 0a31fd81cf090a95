#include "export/csv/framework_summaries.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string_view>
#include <unordered_map>

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
  const model::StringId memory = m.strings.Find("[memory]");

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
    if (memory != model::kNoString && m.instants.name[row] == memory) events.push_back(row);
  }
  if (events.empty()) return;
  std::stable_sort(events.begin(), events.end(),
                   [&](uint32_t a, uint32_t b) { return m.instants.ts[a] < m.instants.ts[b]; });

  // Innermost operator of the allocating thread at a time.
  std::unordered_map<uint32_t, std::vector<uint32_t>> thread_ops;
  for (uint32_t row : operators) thread_ops[m.ThreadOfSlice(row)].push_back(row);
  for (auto& [thread, rows] : thread_ops) {
    std::sort(rows.begin(), rows.end(),
              [&](uint32_t a, uint32_t b) { return m.slices.ts[a] < m.slices.ts[b]; });
  }
  auto allocating_op = [&](uint32_t instant) -> std::string_view {
    const uint32_t thread = m.tracks.thread[m.instants.track[instant]];
    const int64_t ts = m.instants.ts[instant];
    auto found = thread_ops.find(thread);
    if (found == thread_ops.end()) return "";
    std::string_view best;
    int64_t best_start = INT64_MIN;
    for (uint32_t row : found->second) {  // latest-starting operator that contains ts
      if (m.slices.ts[row] > ts) break;
      if (m.slices.end[row] >= ts && m.slices.ts[row] >= best_start) {
        best = m.Str(m.slices.name[row]);
        best_start = m.slices.ts[row];
      }
    }
    return best;
  };

  struct Event {
    int64_t ts, bytes, allocated, reserved, type, index;
    uint64_t address;
  };
  auto read = [&](uint32_t row) {
    Event e{m.instants.ts[row], 0, 0, 0, 0, -1, 0};
    const uint32_t set = m.instants.args[row];
    int64_t address = 0;
    args.Int(set, "Bytes", &e.bytes);
    args.Int(set, "Total Allocated", &e.allocated);
    args.Int(set, "Total Reserved", &e.reserved);
    args.Int(set, "Device Type", &e.type);
    args.Int(set, "Device Id", &e.index);
    args.Int(set, "Addr", &address);
    e.address = static_cast<uint64_t>(address);
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
  {
    CsvFile file(dir, "operator_memory.csv",
                 "Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),"
                 "Duration(us),Active Duration(us),Allocation Total Allocated(MB),Allocation "
                 "Total Reserved(MB),Allocation Total Active(MB),Release Total Allocated(MB),"
                 "Release Total Reserved(MB),Release Total Active(MB),Stream Ptr,Device Type",
                 &written, error);
    struct Open {
      uint32_t row;
      Event event;
    };
    std::map<std::pair<int64_t, uint64_t>, Open> open;  // (device, address) -> allocation
    auto write = [&](const Open& alloc, const Event* release) {
      const Event& a = alloc.event;
      char size[32];
      std::snprintf(size, sizeof(size), "%.3f", static_cast<double>(a.bytes) / 1024.0);
      file.out() << Csv(allocating_op(alloc.row)) << ',' << size << ',' << Micros(a.ts) << ',';
      if (release != nullptr) {
        file.out() << Micros(release->ts) << ',' << Micros(release->ts) << ','
                   << Micros(release->ts - a.ts) << ',' << Micros(release->ts - a.ts) << ',';
      } else {
        file.out() << ",,,,";  // still allocated when the data ends
      }
      file.out() << Megabytes(a.allocated) << ',' << Megabytes(a.reserved) << ','
                 << Megabytes(a.allocated) << ',';
      if (release != nullptr) {
        file.out() << Megabytes(release->allocated) << ',' << Megabytes(release->reserved) << ','
                   << Megabytes(release->allocated);
      } else {
        file.out() << ",,";
      }
      file.out() << ",," << DeviceType(a.type, a.index) << '\n';
    };
    for (uint32_t row : events) {
      const Event e = read(row);
      const auto key = std::make_pair(e.type << 8 | (e.index + 1), e.address);
      if (e.bytes > 0) {
        open[key] = {row, e};
        continue;
      }
      auto found = open.find(key);
      if (found == open.end()) continue;  // allocated before the window
      write(found->second, &e);
      open.erase(found);
    }
    for (const auto& [key, alloc] : open) write(alloc, nullptr);
  }
}

}  // namespace aiprof::exporter
