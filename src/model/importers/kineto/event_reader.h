// Reads one trace event (one element of traceEvents) with simdjson's On-Demand API into
// plain fields, without touching the model: an event that turns out malformed halfway is
// dropped whole (and counted by the caller), never half imported. Strings are views into
// the parser's buffer, valid until the next Read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace aiprof::model::kineto {

// A pid or tid: Kineto writes numbers, but also strings ("Spans", "Traces", the legacy
// profiler's "CPU functions", "" on global markers).
struct IdValue {
  bool present = false;
  bool is_string = false;
  int64_t number = 0;
  std::string_view text;
};

struct ArgValue {
  std::string_view key;
  ArgType type = ArgType::kInt;
  uint64_t bits = 0;      // kInt, kUInt, kDouble
  std::string_view text;  // kString (unescaped), kJson (raw JSON text)
};

struct Event {
  char phase = 0;  // first byte of "ph"; 0 when absent
  std::string_view name, category;
  IdValue pid, tid;
  bool has_ts = false, has_dur = false;
  int64_t ts_ns = 0;             // "ts" (µs with up to 3 decimals, read exactly) in ns
  int64_t dur_ns = 0;            // "dur"
  IdValue id;                    // flow / async id ("id", else "id2"'s "local" or "global")
  bool binds_enclosing = false;  // "bp": "e"
  char scope = 0;                // instants' "s": 't', 'p' or 'g'
  std::vector<ArgValue> args;
};

// "12.345" µs → 12345 ns exactly (the digits, not a double: absolute epoch µs with three
// decimals exceed a double's precision); more decimals are rounded, exponents go through
// a double. False when `text` is no number.
bool MicrosToNs(std::string_view text, int64_t* ns);

// One simdjson implementation's parser (event_parser.inc).
class EventParser {
 public:
  virtual ~EventParser() = default;
  virtual bool Read(std::string_view json, size_t padding, Event* event, std::string* error) = 0;
};

// Picks the fastest simdjson implementation the CPU runs (AVX2 where present).
class EventReader {
 public:
  EventReader();
  ~EventReader();
  EventReader(const EventReader&) = delete;
  EventReader& operator=(const EventReader&) = delete;

  // `json` must have `padding` readable bytes after it (TraceScanner::kPadding). False with
  // `error` set when the element is not a well-formed event object.
  bool Read(std::string_view json, size_t padding, Event* event, std::string* error);

 private:
  std::unique_ptr<EventParser> parser_;
};

}  // namespace aiprof::model::kineto
