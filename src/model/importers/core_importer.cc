// Core records (src/format/records.h): thread names, markers and ranges, steps, counters,
// drop counts. ClockSync records are consumed by the parser itself.
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/importer.h"

namespace aiprof::model {
namespace {

using format::RecordKind;

class CoreImporter : public RecordImporter {
 public:
  bool Handles(uint8_t kind) const override {
    return kind >= format::kCoreKindFirst && kind <= format::kCoreKindLast &&
           kind != static_cast<uint8_t>(RecordKind::kClockSync) &&
           kind != static_cast<uint8_t>(RecordKind::kForeignThread);
  }

  void Import(const format::RecordView& record, ImportContext& context) override {
    const format::RecordHeader& h = *record.header;
    switch (static_cast<RecordKind>(h.kind)) {
      case RecordKind::kThreadName: {
        // aux 1: the kernel's name sampled by the writer; a name the program set wins.
        uint32_t thread = context.thread();
        if (h.aux == 0) {
          program_named_.insert(thread);
        } else if (program_named_.count(thread) > 0) {
          break;
        }
        context.SetThreadName(thread, context.FileString(h.arg));
        break;
      }
      case RecordKind::kMark: {
        Strings(context);
        uint32_t row =
            context.AddInstant(context.track(), h.ts, context.FileString(h.arg), marker_category_);
        AddMarker(context, true, row, MarkerEventType::kMarker, h.aux,
                  record.ExtAs<format::MarkerAttributes>(0));
        break;
      }
      case RecordKind::kRangePush: {
        Strings(context);
        uint32_t row = context.AddSlice(context.track(), h.ts, kOpenEnd, context.FileString(h.arg),
                                        range_category_);
        AddMarker(context, false, row, MarkerEventType::kPushPop, h.aux,
                  record.ExtAs<format::MarkerAttributes>(0));
        PushStack(StackKey(context.thread(), h.aux)).push_back(row);
        break;
      }
      case RecordKind::kRangePop: {
        std::vector<uint32_t>& stack = PushStack(StackKey(context.thread(), h.aux));
        if (stack.empty()) {
          ++context.model().unmatched_ends;
          break;
        }
        context.EndSlice(stack.back(), h.ts);
        stack.pop_back();
        break;
      }
      case RecordKind::kRangeStart:
        StartRange(record, context);
        break;
      case RecordKind::kRangeEnd:
        EndRange(record, context);
        break;
      case RecordKind::kStepBegin: {
        Strings(context);
        std::string name = "ProfilerStep#" + std::to_string(h.arg);
        uint32_t row =
            context.AddSlice(context.track(), h.ts, kOpenEnd, context.Intern(name), step_category_);
        RecordedStepTable& steps = context.model().recorded_steps;
        steps.step.push_back(h.arg);
        steps.slice.push_back(row);
        open_steps_[context.thread()].push_back(row);
        break;
      }
      case RecordKind::kStepEnd: {
        std::vector<uint32_t>& open = open_steps_[context.thread()];
        if (open.empty()) {
          ++context.model().unmatched_ends;
          break;
        }
        context.EndSlice(open.back(), h.ts);
        open.pop_back();
        break;
      }
      case RecordKind::kCounter:
        AddCounterSample(record, context);
        break;
      case RecordKind::kDrops:
        AddDropCount(record, context);
        break;
      case RecordKind::kDomainName:
        domains_[h.aux] = context.FileString(h.arg);
        break;
      case RecordKind::kCollection:
        Strings(context);
        context.AddInstant(context.track(), h.ts,
                           context.Intern(h.aux ? "Collection start" : "Collection stop"),
                           context.Intern("collection"));
        break;
      default:
        ++context.model().unknown_records;
        break;
    }
  }

  // A range that may end on another thread (kRangeStart).
  void StartRange(const format::RecordView& record, ImportContext& context) {
    const format::RecordHeader& h = *record.header;
    const format::RangeId* id = record.ExtAs<format::RangeId>(0);
    if (id == nullptr) return;
    Strings(context);
    uint32_t row = context.AddSlice(context.track(), h.ts, kOpenEnd, context.FileString(h.arg),
                                    range_category_);
    uint32_t marker = AddMarker(context, false, row, MarkerEventType::kStartEnd, h.aux,
                                record.ExtAs<format::MarkerAttributes>(1));
    MarkerTable& markers = context.model().markers;
    markers.details.range_id[markers.detail[marker]] = id->id;
    open_ranges_[id->id] = {row, marker};
  }

  // kRangeEnd: closes the range of its id, wherever it started.
  void EndRange(const format::RecordView& record, ImportContext& context) {
    const format::RecordHeader& h = *record.header;
    const format::RangeId* id = record.ExtAs<format::RangeId>(0);
    auto found = id == nullptr ? open_ranges_.end() : open_ranges_.find(id->id);
    if (found == open_ranges_.end()) {
      ++context.model().unmatched_ends;
      return;
    }
    context.EndSlice(found->second.slice, h.ts);
    MarkerTable& markers = context.model().markers;
    markers.details.end_thread[markers.detail[found->second.marker]] = context.thread();
    open_ranges_.erase(found);
  }

  // kCounter: a sample of the series named by the record.
  void AddCounterSample(const format::RecordView& record, ImportContext& context) {
    const format::RecordHeader& h = *record.header;
    const format::CounterValue* value = record.ExtAs<format::CounterValue>(0);
    if (value == nullptr) return;
    uint64_t key = (uint64_t{h.arg} << 32) ^ (uint64_t{h.aux} << 24) ^ value->instance;
    auto [it, inserted] = series_.emplace(key, 0);
    if (inserted) {
      it->second = context.CounterSeries(context.FileString(h.arg), context.process(), h.aux,
                                         value->instance, context.FileString(value->unit));
    }
    context.AddCounter(it->second, h.ts, value->value);
  }

  // kDrops: a thread's cumulative drop count; the process's "Dropped events" series
  // shows the total.
  void AddDropCount(const format::RecordView& record, ImportContext& context) {
    const format::RecordHeader& h = *record.header;
    const format::DropCount* drop = record.ExtAs<format::DropCount>(0);
    if (drop == nullptr) return;
    uint32_t thread =
        drop->tid == 0 ? context.thread() : context.Thread(context.process(), drop->tid);
    DropState& state = drops_[(uint64_t{thread} << 8) | h.arg];
    total_drops_ += drop->count - std::min(state.count, drop->count);
    state = {drop->count, h.ts};
    Strings(context);
    if (drop_series_ == kNoRow) {
      drop_series_ = context.CounterSeries(context.Intern("Dropped events"), context.process(),
                                           static_cast<uint16_t>(format::CounterScope::kProcess), 0,
                                           kNoString);
    }
    context.AddCounter(drop_series_, h.ts, static_cast<double>(total_drops_));
  }

  void Finish(ImportContext& context, uint64_t last_ticks) override {
    SliceTable& slices = context.model().slices;
    auto close = [&](uint32_t row) {
      slices.end[row] = static_cast<int64_t>(last_ticks);
      slices.flags[row] |= kSliceUnclosed;
    };
    for (auto& [key, stack] : push_stacks_) {
      for (uint32_t row : stack) close(row);
    }
    for (auto& [id, open] : open_ranges_) close(open.slice);
    for (auto& [thread, stack] : open_steps_) {
      for (uint32_t row : stack) close(row);
    }
    DropTable& table = context.model().drops;
    for (const auto& [key, state] : drops_) {
      table.thread.push_back(static_cast<uint32_t>(key >> 8));
      table.kind.push_back(static_cast<uint8_t>(key & 0xff));
      table.count.push_back(state.count);
      table.last_ts.push_back(static_cast<int64_t>(state.ts));
    }
  }

 private:
  struct OpenRange {
    uint32_t slice;
    uint32_t marker;
  };
  struct DropState {
    uint64_t count = 0;
    uint64_t ts = 0;
  };

  // The push/pop stack of a thread and domain; the last one looked up is kept at hand
  // (records of a thread come in runs), its node stable in the map.
  std::vector<uint32_t>& PushStack(uint64_t key) {
    if (last_stack_ == nullptr || key != last_stack_key_) {
      last_stack_ = &push_stacks_[key];
      last_stack_key_ = key;
    }
    return *last_stack_;
  }

  static uint64_t StackKey(uint32_t thread, uint16_t domain) {
    return (uint64_t{thread} << 16) | domain;
  }

  void Strings(ImportContext& context) {
    if (range_category_ != kNoString) return;
    range_category_ = context.Intern("user_annotation");
    marker_category_ = context.Intern("marker");
    step_category_ = context.Intern("user_annotation");
    default_domain_ = context.Intern("default");
  }

  uint32_t AddMarker(ImportContext& context, bool instant, uint32_t row, MarkerEventType type,
                     uint16_t domain, const format::MarkerAttributes* attributes) {
    MarkerTable& m = context.model().markers;
    auto domain_name = domains_.find(domain);
    m.is_instant.push_back(instant);
    m.row.push_back(row);
    m.event_type.push_back(type);
    m.domain.push_back(domain_name != domains_.end() ? domain_name->second
                       : domain == 0                 ? default_domain_
                                     : context.Intern("domain " + std::to_string(domain)));
    bool has_category = attributes && (attributes->fields & format::kMarkerHasCategory);
    bool has_payload = attributes && (attributes->fields & format::kMarkerHasPayload);
    bool has_color = attributes && (attributes->fields & format::kMarkerHasColor);
    if (!has_category && !has_payload && !has_color && type != MarkerEventType::kStartEnd) {
      m.detail.push_back(kNoRow);
    } else {
      MarkerDetailTable& d = m.details;
      m.detail.push_back(static_cast<uint32_t>(d.size()));
      d.category.push_back(has_category ? attributes->category : 0);
      d.payload_type.push_back(has_payload ? attributes->payload_type : uint8_t{0});
      d.payload.push_back(has_payload ? attributes->payload : 0);
      d.color_argb.push_back(has_color ? attributes->color_argb : 0);
      d.end_thread.push_back(kNoRow);  // set by the range's end
      d.range_id.push_back(0);         // set by the range's start
      d.device_slice.push_back(kNoRow);
    }
    return static_cast<uint32_t>(m.size() - 1);
  }

  StringId range_category_ = kNoString;
  StringId marker_category_ = kNoString;
  StringId step_category_ = kNoString;
  StringId default_domain_ = kNoString;
  uint32_t drop_series_ = kNoRow;
  uint64_t total_drops_ = 0;
  std::unordered_map<uint64_t, std::vector<uint32_t>> push_stacks_;
  std::vector<uint32_t>* last_stack_ = nullptr;
  uint64_t last_stack_key_ = 0;
  std::unordered_map<uint64_t, OpenRange> open_ranges_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> open_steps_;
  std::unordered_map<uint64_t, uint32_t> series_;
  std::map<uint64_t, DropState> drops_;
  std::unordered_map<uint16_t, StringId> domains_;
  std::unordered_set<uint32_t> program_named_;
};

}  // namespace
}  // namespace aiprof::model

AIPROF_DEFINE_IMPORTER(core) {
  return std::make_unique<aiprof::model::CoreImporter>();
}
