#include "support/raw_data_builder.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace aiprof::testing {

using format::RecordKind;

RawProcessWriter::RawProcessWriter(const std::string& path, uint32_t pid,
                                   const std::string& metadata_json, bool compress) {
  std::string error;
  format::ChunkWriterOptions options;
  options.compress = compress;
  writer_ = format::ChunkWriter::Create(path, pid, options, &error);
  if (!writer_) throw std::runtime_error(error);
  writer_->WriteChunk(format::ChunkType::kMetadata, 0, metadata_json.data(),
                      static_cast<uint32_t>(metadata_json.size()));
}

RawProcessWriter::~RawProcessWriter() {
  Close();
}

uint32_t RawProcessWriter::Intern(const std::string& text) {
  if (text.empty()) return 0;
  auto [it, inserted] = strings_.emplace(text, static_cast<uint32_t>(strings_.size() + 1));
  if (inserted) pending_strings_.Add(it->second, text);
  return it->second;
}

void RawProcessWriter::ThreadName(uint32_t tid, uint64_t ts, const std::string& name) {
  Thread(tid).Add(static_cast<uint8_t>(RecordKind::kThreadName), ts, 0, Intern(name));
}

void RawProcessWriter::Push(uint32_t tid, uint64_t ts, const std::string& message,
                            uint16_t domain) {
  Thread(tid).Add(static_cast<uint8_t>(RecordKind::kRangePush), ts, domain, Intern(message));
}

void RawProcessWriter::Pop(uint32_t tid, uint64_t ts, uint16_t domain) {
  Thread(tid).Add(static_cast<uint8_t>(RecordKind::kRangePop), ts, domain, 0);
}

void RawProcessWriter::Mark(uint32_t tid, uint64_t ts, const std::string& message,
                            uint16_t domain) {
  Thread(tid).Add(static_cast<uint8_t>(RecordKind::kMark), ts, domain, Intern(message));
}

void RawProcessWriter::RangeStart(uint32_t tid, uint64_t ts, uint64_t id,
                                  const std::string& message, uint16_t domain) {
  Thread(tid).AddWith(static_cast<uint8_t>(RecordKind::kRangeStart), ts, domain, Intern(message),
                      format::RangeId{id, 0});
}

void RawProcessWriter::RangeEnd(uint32_t tid, uint64_t ts, uint64_t id) {
  Thread(tid).AddWith(static_cast<uint8_t>(RecordKind::kRangeEnd), ts, 0, 0,
                      format::RangeId{id, 0});
}

void RawProcessWriter::StepBegin(uint32_t tid, uint64_t ts, uint32_t step) {
  Thread(tid).Add(static_cast<uint8_t>(RecordKind::kStepBegin), ts, 0, step);
}

void RawProcessWriter::StepEnd(uint32_t tid, uint64_t ts, uint32_t step) {
  Thread(tid).Add(static_cast<uint8_t>(RecordKind::kStepEnd), ts, 0, step);
}

void RawProcessWriter::Counter(uint32_t tid, uint64_t ts, const std::string& name, double value,
                               format::CounterScope scope, uint32_t instance,
                               const std::string& unit) {
  Thread(tid).AddWith(static_cast<uint8_t>(RecordKind::kCounter), ts, static_cast<uint16_t>(scope),
                      Intern(name), format::CounterValue{value, instance, Intern(unit)});
}

void RawProcessWriter::ClockSync(uint64_t ticks, uint64_t monotonic_raw_ns, uint64_t realtime_ns) {
  Thread(0).AddWith(static_cast<uint8_t>(RecordKind::kClockSync), ticks, 0, 0,
                    format::ClockSample{monotonic_raw_ns, realtime_ns});
}

void RawProcessWriter::Drops(uint32_t tid, uint64_t ts, uint8_t kind, uint64_t cumulative) {
  Thread(0).AddWith(static_cast<uint8_t>(RecordKind::kDrops), ts, 0, kind,
                    format::DropCount{cumulative, tid, 0});
}

void RawProcessWriter::DomainName(uint32_t tid, uint64_t ts, uint16_t domain,
                                  const std::string& name) {
  Thread(tid).Add(static_cast<uint8_t>(RecordKind::kDomainName), ts, domain, Intern(name));
}

void RawProcessWriter::Flush() {
  if (!writer_) return;
  if (!pending_strings_.empty()) {
    writer_->WriteChunk(format::ChunkType::kStrings, 0, pending_strings_.data(),
                        pending_strings_.size());
    pending_strings_.clear();
  }
  for (auto& [tid, records] : threads_) {
    if (records.empty()) continue;
    writer_->WriteChunk(format::ChunkType::kEvents, tid, records.data(), records.size());
    records.clear();
  }
}

void RawProcessWriter::Close() {
  if (!writer_) return;
  Flush();
  bytes_ = writer_->bytes_written();
  writer_.reset();
}

std::string MetadataJson(uint32_t pid, const std::string& hostname, bool tsc, double tsc_hz,
                         int rank, int64_t start_realtime_ns, int64_t end_realtime_ns) {
  nlohmann::json clock = {{"source", tsc ? "tsc" : "monotonic_raw"}};
  if (tsc) clock["tsc_hz_estimate"] = tsc_hz;
  nlohmann::json metadata = {
      {"pid", pid},
      {"ppid", 1},
      {"hostname", hostname},
      {"cmdline", {"python3", "train.py"}},
      {"clock", clock},
      {"rank", rank},
      {"options", {{"msproftx", true}}},
      {"start_realtime_ns", start_realtime_ns},
      {"end_realtime_ns", end_realtime_ns},
  };
  return metadata.dump();
}

}  // namespace aiprof::testing
