// pprof's profile.proto (github.com/google/pprof/proto/profile.proto) written with a small
// protobuf wire encoder, gzip-compressed with zlib as `go tool pprof` expects.
#include <zlib.h>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "export/cpu/cpu_outputs.h"
#include "format/records_cpu.h"

namespace aiprof::exporter {

namespace {

class ProtoWriter {
 public:
  void Varint(uint64_t value) {
    while (value >= 0x80) {
      bytes_ += static_cast<char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    bytes_ += static_cast<char>(value);
  }
  void Key(uint32_t field, uint32_t wire_type) { Varint((uint64_t{field} << 3) | wire_type); }
  void Int(uint32_t field, uint64_t value) {
    Key(field, 0);
    Varint(value);
  }
  void Bytes(uint32_t field, const std::string& value) {
    Key(field, 2);
    Varint(value.size());
    bytes_ += value;
  }
  void Packed(uint32_t field, const std::vector<uint64_t>& values) {
    ProtoWriter inner;
    for (uint64_t v : values) inner.Varint(v);
    Bytes(field, inner.bytes_);
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class StringTable {
 public:
  StringTable() { Id(""); }
  uint64_t Id(const std::string& text) {
    auto [it, inserted] = ids_.emplace(text, strings_.size());
    if (inserted) strings_.push_back(text);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, uint64_t> ids_;
  std::vector<std::string> strings_;
};

std::string ValueType(StringTable& strings, const std::string& type, const std::string& unit) {
  ProtoWriter w;
  w.Int(1, strings.Id(type));
  w.Int(2, strings.Id(unit));
  return w.bytes();
}

}  // namespace

bool WritePprofProfile(const model::Model& m, const analysis::CpuProfile& profile,
                       const std::string& path, std::string* error) {
  StringTable strings;
  ProtoWriter out;
  uint64_t period_ns = 0;
  if (m.cpu.runs.size() > 0 && m.cpu.runs.freq_hz[0] > 0) {
    period_ns = 1000000000ull / m.cpu.runs.freq_hz[0];
  }
  out.Bytes(1, ValueType(strings, "samples", "count"));
  out.Bytes(1, ValueType(strings, "cpu", "nanoseconds"));

  std::map<std::pair<uint32_t, uint32_t>, uint64_t> counts;  // (thread, stack) → samples
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (size_t i = 0; i < m.cpu.samples.size(); ++i) {
    if (m.cpu.samples.flags[i] & format::kCpuSampleOffCpu) continue;
    counts[{m.cpu.samples.thread[i], m.cpu.samples.stack[i]}]++;
    first = std::min(first, m.cpu.samples.ts[i]);
    last = std::max(last, m.cpu.samples.ts[i]);
  }
  // Stack rows with the same functions are one pprof sample (with stack copies every
  // sample has a row of its own).
  std::map<std::pair<uint32_t, std::vector<uint64_t>>, uint64_t> by_functions;
  for (const auto& [key, count] : counts) {
    std::vector<uint64_t> locations;
    for (uint32_t function : profile.Stack(key.second)) locations.push_back(function + 1);
    by_functions[{key.first, std::move(locations)}] += count;
  }
  for (const auto& [key, count] : by_functions) {
    const auto& [thread, locations] = key;
    ProtoWriter sample;
    sample.Packed(1, locations);
    sample.Packed(2, {count, count * period_ns});
    ProtoWriter label;
    label.Int(1, strings.Id("thread"));
    std::string name(m.Str(m.threads.name[thread]));
    label.Int(2,
              strings.Id(name.empty() ? "thread " + std::to_string(m.threads.tid[thread]) : name));
    sample.Bytes(3, label.bytes());
    ProtoWriter tid;
    tid.Int(1, strings.Id("tid"));
    tid.Int(3, m.threads.tid[thread]);
    sample.Bytes(3, tid.bytes());
    out.Bytes(2, sample.bytes());
  }
  // One location per function (ids are function + 1; 0 is not a valid id).
  for (size_t f = 0; f < profile.function_name.size(); ++f) {
    ProtoWriter line;
    line.Int(1, f + 1);
    ProtoWriter location;
    location.Int(1, f + 1);
    location.Bytes(4, line.bytes());
    out.Bytes(4, location.bytes());
  }
  for (size_t f = 0; f < profile.function_name.size(); ++f) {
    ProtoWriter function;
    function.Int(1, f + 1);
    function.Int(2, strings.Id(profile.function_name[f]));
    function.Int(3, strings.Id(profile.function_name[f]));
    function.Int(4, strings.Id(profile.function_module[f]));
    out.Bytes(5, function.bytes());
  }
  ProtoWriter tail;
  if (first <= last) {
    tail.Int(9, static_cast<uint64_t>(first));
    tail.Int(10, static_cast<uint64_t>(last - first));
  }
  tail.Bytes(11, ValueType(strings, "cpu", "nanoseconds"));
  tail.Int(12, period_ns);
  for (const std::string& s : strings.strings()) out.Bytes(6, s);

  gzFile file = gzopen(path.c_str(), "wb");
  if (file == nullptr) {
    *error = "cannot write " + path;
    return false;
  }
  bool ok = gzwrite(file, out.bytes().data(), static_cast<unsigned>(out.bytes().size())) ==
                static_cast<int>(out.bytes().size()) &&
            gzwrite(file, tail.bytes().data(), static_cast<unsigned>(tail.bytes().size())) ==
                static_cast<int>(tail.bytes().size());
  ok = gzclose(file) == Z_OK && ok;
  if (!ok) *error = "cannot write " + path;
  return ok;
}

}  // namespace aiprof::exporter
