// Writes raw data exactly as the runtime does (framed chunks via format::ChunkWriter): a
// Metadata chunk, Strings chunks before the events that use them, Events chunks per thread,
// ClockSync samples in process-wide chunks. Used by model/export tests and the export bench
// to generate data sets with known contents.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "format/chunk_writer.h"
#include "format/records.h"

namespace aiprof::testing {

class RawProcessWriter {
 public:
  // metadata_json: the Metadata chunk (pid, hostname, cmdline, clock, rank, ...).
  RawProcessWriter(const std::string& path, uint32_t pid, const std::string& metadata_json,
                   bool compress = false);
  ~RawProcessWriter();

  uint32_t Intern(const std::string& text);
  // Records of thread `tid` (0: process-wide chunk).
  format::RecordBuffer& Thread(uint32_t tid) { return threads_[tid]; }

  void ThreadName(uint32_t tid, uint64_t ts, const std::string& name);
  void Push(uint32_t tid, uint64_t ts, const std::string& message, uint16_t domain = 0);
  void Pop(uint32_t tid, uint64_t ts, uint16_t domain = 0);
  void Mark(uint32_t tid, uint64_t ts, const std::string& message, uint16_t domain = 0);
  void RangeStart(uint32_t tid, uint64_t ts, uint64_t id, const std::string& message,
                  uint16_t domain = 0);
  void RangeEnd(uint32_t tid, uint64_t ts, uint64_t id);
  void StepBegin(uint32_t tid, uint64_t ts, uint32_t step);
  void StepEnd(uint32_t tid, uint64_t ts, uint32_t step);
  void Counter(uint32_t tid, uint64_t ts, const std::string& name, double value,
               format::CounterScope scope, uint32_t instance, const std::string& unit);
  void ClockSync(uint64_t ticks, uint64_t monotonic_raw_ns, uint64_t realtime_ns);
  void Drops(uint32_t tid, uint64_t ts, uint8_t kind, uint64_t cumulative);
  void DomainName(uint32_t tid, uint64_t ts, uint16_t domain, const std::string& name);

  // Writes pending strings, then one Events chunk per thread with pending records.
  void Flush();
  void Close();
  uint64_t bytes_written() const { return writer_ ? writer_->bytes_written() : bytes_; }

 private:
  std::unique_ptr<format::ChunkWriter> writer_;
  format::StringTableBuffer pending_strings_;
  std::unordered_map<std::string, uint32_t> strings_;
  std::map<uint32_t, format::RecordBuffer> threads_;
  uint64_t bytes_ = 0;
};

// Metadata JSON as the runtime writes it.
std::string MetadataJson(uint32_t pid, const std::string& hostname, bool tsc, double tsc_hz,
                         int rank, int64_t start_realtime_ns, int64_t end_realtime_ns);

}  // namespace aiprof::testing
