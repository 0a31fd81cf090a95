#include "prof_reader.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <unordered_map>

#include "format/reader.h"
#include "format/records_torch.h"
#include "format/torch_flops.h"

namespace aiprof::python {
namespace {

using format::RecordKind;
using format::TorchKind;

// Least-squares line from process-clock ticks to realtime ns over all ClockSync samples.
class ClockFit {
 public:
  void Add(uint64_t ticks, uint64_t realtime_ns) { samples_.push_back({ticks, realtime_ns}); }
  void Fit() {
    if (samples_.empty()) return;
    const double t0 = static_cast<double>(samples_.front().first);
    const int64_t r0 = static_cast<int64_t>(samples_.front().second);
    origin_ticks_ = samples_.front().first;
    origin_ns_ = r0;
    if (samples_.size() < 2) return;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (auto [ticks, realtime] : samples_) {
      const double x = static_cast<double>(ticks) - t0;
      const double y = static_cast<double>(static_cast<int64_t>(realtime) - r0);
      sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    const double n = static_cast<double>(samples_.size());
    const double denominator = n * sxx - sx * sx;
    if (denominator <= 0) return;
    slope_ = (n * sxy - sx * sy) / denominator;
    intercept_ = (sy - slope_ * sx) / n;
  }
  int64_t ToRealtime(uint64_t ticks) const {
    const double x = static_cast<double>(static_cast<int64_t>(ticks - origin_ticks_));
    return origin_ns_ + static_cast<int64_t>(intercept_ + slope_ * x);
  }

 private:
  std::vector<std::pair<uint64_t, uint64_t>> samples_;
  uint64_t origin_ticks_ = 0;
  int64_t origin_ns_ = 0;
  double slope_ = 1.0, intercept_ = 0.0;
};

struct RawRecord {
  uint32_t tid;
  std::vector<uint8_t> bytes;  // header + ext words
};

class FileDecoder {
 public:
  FileDecoder(uint32_t pid, ProfData* out) : pid_(pid), out_(out) {}

  void Read(const format::RawFileReader& reader) {
    std::vector<std::pair<uint32_t, std::vector<uint8_t>>> event_chunks;
    std::string metadata;
    const format::ReadReport report = reader.ForEachChunk([&](const format::ChunkView& chunk) {
      if (chunk.type == format::ChunkType::kStrings) {
        format::ForEachString(chunk.payload, [&](uint32_t id, std::string_view text) {
          strings_[id] = std::string(text);
        });
      } else if (chunk.type == format::ChunkType::kMetadata) {
        metadata.assign(reinterpret_cast<const char*>(chunk.payload.data()), chunk.payload.size());
      } else if (chunk.type == format::ChunkType::kEvents) {
        event_chunks.emplace_back(chunk.tid,
                                  std::vector<uint8_t>(chunk.payload.begin(), chunk.payload.end()));
      }
      return true;
    });
    if (!report.clean()) out_->problems.push_back(reader.path() + ": " + report.Summary());
    out_->metadata_json.push_back(metadata);
    // Clock samples first: every timestamp needs the complete fit.
    for (const auto& [tid, payload] : event_chunks) {
      format::RecordCursor cursor(payload);
      format::RecordView record;
      while (cursor.Next(&record)) {
        if (record.kind() != static_cast<uint8_t>(RecordKind::kClockSync)) continue;
        if (const auto* sample = record.ExtAs<format::ClockSample>()) {
          clock_.Add(record.ts(), sample->realtime_ns);
        }
      }
    }
    clock_.Fit();
    for (const auto& [tid, payload] : event_chunks) {
      format::RecordCursor cursor(payload);
      format::RecordView record;
      while (cursor.Next(&record)) Decode(tid, record);
      if (cursor.malformed()) {
        out_->problems.push_back(reader.path() + ": malformed events chunk of thread " +
                                 std::to_string(tid) + ", " + std::to_string(cursor.bytes_left()) +
                                 " bytes skipped");
      }
    }
    CloseOpen();
    for (const auto& [key, count] : drops_) out_->dropped += count;
  }

 private:
  const std::string& String(uint32_t id) {
    static const std::string kEmpty;
    auto it = strings_.find(id);
    return it == strings_.end() ? kEmpty : it->second;
  }

  void Decode(uint32_t tid, const format::RecordView& record) {
    const int64_t ts = clock_.ToRealtime(record.ts());
    last_ts_ = std::max(last_ts_, ts);
    const auto& header = *record.header;
    switch (record.kind()) {
      case format::ToKind(TorchKind::kOpBegin): {
        const auto* ids = record.ExtAs<format::TorchOpIds>(0);
        const auto* threads = record.ExtAs<format::TorchOpThreads>(1);
        if (ids == nullptr || threads == nullptr) return;
        open_ops_[static_cast<uint32_t>(ids->record_id)] = out_->ops.size();
        AddOp(tid, record, ts, ts, false, *ids, threads->forward_thread_id, threads->thread_id);
        return;
      }
      case format::ToKind(TorchKind::kOp): {
        const auto* ids = record.ExtAs<format::TorchOpIds>(0);
        const auto* end = record.ExtAs<format::TorchOpEnd>(1);
        if (ids == nullptr || end == nullptr) return;
        const int64_t end_ns = clock_.ToRealtime(end->end_ts);
        last_ts_ = std::max(last_ts_, end_ns);
        AddOp(tid, record, ts, end_ns, true, *ids, end->forward_thread_id, end->thread_id);
        return;
      }
      case format::ToKind(TorchKind::kOpEnd): {
        auto it = open_ops_.find(header.arg);
        if (it == open_ops_.end()) return;  // began before the window
        OpEvent& op = out_->ops[it->second];
        op.end_ns = ts;
        op.closed = true;
        open_ops_.erase(it);
        return;
      }
      case format::ToKind(TorchKind::kMemory):
      case format::ToKind(TorchKind::kOutOfMemory): {
        const auto* block = record.ExtAs<format::TorchMemoryBlock>(0);
        const auto* totals = record.ExtAs<format::TorchMemoryTotals>(1);
        if (block == nullptr || totals == nullptr) return;
        out_->memory.push_back({pid_, tid, ts, block->address, block->bytes,
                                totals->total_allocated, totals->total_reserved,
                                static_cast<uint8_t>(header.aux & 0xff),
                                static_cast<int16_t>((header.aux >> 8) - 1),
                                record.kind() == format::ToKind(TorchKind::kOutOfMemory)});
        return;
      }
      case format::ToKind(TorchKind::kPyCall):
        Push(&python_stacks_[tid], tid, ts, String(header.arg), 0);
        return;
      case format::ToKind(TorchKind::kPyReturn):
        Pop(&python_stacks_[tid], &out_->python_calls, ts);
        return;
      case format::ToKind(TorchKind::kModuleBegin):
        Push(&module_stacks_[tid], tid, ts, String(header.arg), 0);
        return;
      case format::ToKind(TorchKind::kModuleEnd):
        Pop(&module_stacks_[tid], &out_->modules, ts);
        return;
      case format::ToKind(TorchKind::kGc): {
        const auto* gc = record.ExtAs<format::TorchGc>(0);
        if (gc == nullptr) return;
        out_->gcs.push_back({pid_, tid, ts, clock_.ToRealtime(gc->end_ts),
                             "GC gen" + std::to_string(header.arg), header.arg});
        return;
      }
      case static_cast<uint8_t>(RecordKind::kStepBegin):
        open_steps_[{tid, header.arg}] = ts;
        return;
      case static_cast<uint8_t>(RecordKind::kStepEnd): {
        auto it = open_steps_.find({tid, header.arg});
        if (it == open_steps_.end()) return;
        out_->steps.push_back(
            {pid_, tid, it->second, ts, "ProfilerStep#" + std::to_string(header.arg), header.arg});
        open_steps_.erase(it);
        return;
      }
      case static_cast<uint8_t>(RecordKind::kMark):
        out_->marks.push_back({pid_, tid, ts, String(header.arg)});
        return;
      case static_cast<uint8_t>(RecordKind::kRangePush):
        Push(&range_stacks_[{tid, header.aux}], tid, ts, String(header.arg), 0);
        return;
      case static_cast<uint8_t>(RecordKind::kRangePop):
        Pop(&range_stacks_[{tid, header.aux}], &out_->ranges, ts);
        return;
      case static_cast<uint8_t>(RecordKind::kRangeStart):
        if (const auto* id = record.ExtAs<format::RangeId>(0)) {
          open_ranges_[id->id] = {pid_, tid, ts, ts, String(header.arg), 0};
        }
        return;
      case static_cast<uint8_t>(RecordKind::kRangeEnd):
        if (const auto* id = record.ExtAs<format::RangeId>(0)) {
          auto it = open_ranges_.find(id->id);
          if (it == open_ranges_.end()) return;
          it->second.end_ns = ts;
          out_->ranges.push_back(std::move(it->second));
          open_ranges_.erase(it);
        }
        return;
      case static_cast<uint8_t>(RecordKind::kThreadName):
        out_->thread_names[tid] = String(header.arg);
        return;
      case static_cast<uint8_t>(RecordKind::kDrops):
        if (const auto* drops = record.ExtAs<format::DropCount>(0)) {
          drops_[{drops->tid ? drops->tid : tid, header.arg}] = drops->count;
        }
        return;
      default:
        return;
    }
  }

  void AddOp(uint32_t tid, const format::RecordView& record, int64_t start_ns, int64_t end_ns,
             bool closed, const format::TorchOpIds& ids, uint64_t forward_thread_id,
             uint64_t thread_id) {
    const auto& header = *record.header;
    OpEvent op{pid_,
               tid,
               start_ns,
               end_ns,
               String(header.arg),
               static_cast<uint8_t>(header.aux & format::kTorchOpScopeMask),
               closed,
               ids.record_id,
               ids.sequence_nr,
               forward_thread_id,
               thread_id,
               false,
               {},
               0};
    if (header.ext_words > 2) {
      const auto* values = reinterpret_cast<const uint64_t*>(record.ext + 2);
      op.inputs = format::DecodeTorchInputs({values, (header.ext_words - 2u) * 2u});
      if (header.aux & format::kTorchOpCountFlops) {
        op.flops = format::TorchOperatorFlops(op.name, op.inputs);
      }
      op.has_inputs = !(header.aux & format::kTorchOpInputsForFlops);
      if (!op.has_inputs) op.inputs.clear();
    }
    out_->ops.push_back(std::move(op));
  }

  using Stack = std::vector<SpanEvent>;
  void Push(Stack* stack, uint32_t tid, int64_t ts, const std::string& name, int64_t value) {
    stack->push_back({pid_, tid, ts, ts, name, value});
  }
  void Pop(Stack* stack, std::vector<SpanEvent>* out, int64_t ts) {
    if (stack->empty()) return;  // entered before the window
    stack->back().end_ns = ts;
    out->push_back(std::move(stack->back()));
    stack->pop_back();
  }

  // What is still open when the data ends closes at the last timestamp of the file.
  void CloseOpen() {
    for (const auto& [id, index] : open_ops_) out_->ops[index].end_ns = last_ts_;
    for (auto* stacks : {&python_stacks_, &module_stacks_}) {
      for (auto& [tid, stack] : *stacks) {
        while (!stack.empty())
          Pop(&stack, stacks == &python_stacks_ ? &out_->python_calls : &out_->modules, last_ts_);
      }
    }
  }

  uint32_t pid_;
  ProfData* out_;
  ClockFit clock_;
  int64_t last_ts_ = 0;
  std::unordered_map<uint32_t, std::string> strings_;
  std::unordered_map<uint32_t, size_t> open_ops_;
  std::map<uint32_t, Stack> python_stacks_, module_stacks_;
  std::map<std::pair<uint32_t, uint16_t>, Stack> range_stacks_;
  std::map<std::pair<uint32_t, uint32_t>, int64_t> open_steps_;
  std::unordered_map<uint64_t, SpanEvent> open_ranges_;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> drops_;
};

}  // namespace

ProfData ReadProfDir(const std::string& prof_dir) {
  namespace fs = std::filesystem;
  ProfData data;
  const fs::path data_dir = fs::path(prof_dir) / "host" / "data";
  std::error_code error;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(data_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("aiprof.", 0) == 0 && entry.path().extension() == ".data") {
      files.push_back(entry.path());
    }
  }
  if (files.empty()) {
    throw std::runtime_error("no raw data (host/data/aiprof.<pid>.data) in " + prof_dir +
                             ": is this a PROF_* directory written by the aiprof runtime?");
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    format::RawFileReader reader;
    std::string open_error;
    if (!reader.Open(file.string(), &open_error)) {
      data.problems.push_back(open_error);
      continue;
    }
    data.files.push_back(file.string());
    FileDecoder(reader.header().pid, &data).Read(reader);
  }
  std::sort(data.ops.begin(), data.ops.end(), [](const OpEvent& a, const OpEvent& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  });
  return data;
}

}  // namespace aiprof::python
