// Walks a Chrome / Kineto trace's JSON without building a DOM of the file: the top-level
// object's members one at a time (each value handed over whole: deviceProperties,
// distributedInfo, baseTimeNanoseconds, ...) and the traceEvents array (or a top-level
// array, the legacy profiler's form) one element at a time. Element boundaries are found
// with a 16-byte SIMD scan for quotes, backslashes and brackets; the elements themselves are
// parsed by the handler (simdjson On-Demand). Memory: one window of the decoded file (grown
// only for a single value larger than it), whatever the file's size.
//
// Malformed input: a byte where a ',' or ']' belongs starts a resynchronisation at the next
// '{' (the bytes in between are counted as skipped); a file that ends inside a value
// (truncated) has that value's bytes counted as skipped. Every byte is scanned a bounded
// number of times, so a hostile file costs time in proportion to its size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/file_input.h"

namespace aiprof::model::kineto {

class TraceScanner {
 public:
  // Readable bytes after every span handed to the handler (simdjson::SIMDJSON_PADDING).
  static constexpr size_t kPadding = 64;

  class Handler {
   public:
    virtual ~Handler() = default;
    // One element of the events array. `offset`: its position in the decoded file.
    virtual void OnEvent(std::string_view element, uint64_t offset) = 0;
    // A top-level member other than traceEvents; `value` is its whole JSON text.
    virtual void OnTopLevel(std::string_view key, std::string_view value, uint64_t offset) = 0;
  };

  struct Report {
    uint64_t bytes = 0;     // decoded bytes read
    uint64_t elements = 0;  // array elements handed to OnEvent
    uint64_t skipped_bytes = 0;
    uint64_t skipped_regions = 0;
    bool truncated = false;             // the data ended inside a value
    bool found_events = false;          // a traceEvents array (or a top-level array) was seen
    bool not_json = false;              // the first byte opens neither an object nor an array
    std::vector<std::string> problems;  // the first few, with offsets
    uint64_t problems_total = 0;
  };

  explicit TraceScanner(FileInput& input, size_t window_bytes = 4 << 20);
  Report Scan(Handler& handler);

 private:
  enum class End { kFound, kEndOfData };

  // Makes sure at least `bytes` bytes from `pos_` are in the window (fewer at the end of the
  // data); keeps everything from `keep_` on. False when no byte is left.
  bool Ensure(size_t bytes);
  // Skips whitespace; the next byte, or -1 at the end of the data.
  int PeekToken();
  // Finds the end of the value starting at `pos_` (kept in the window); sets *end to the
  // index just after it.
  End FindValueEnd(size_t* end);
  void ScanArray(Handler& handler);
  void ScanObject(Handler& handler);
  void Skip(size_t from, size_t to, const std::string& why);
  void Problem(std::string message);
  uint64_t Offset(size_t index) const { return window_offset_ + index; }

  FileInput& input_;
  std::unique_ptr<char[]> window_;
  size_t capacity_ = 0;         // bytes of window_ usable for data (kPadding more are allocated)
  size_t pos_ = 0;              // next byte to look at
  size_t end_ = 0;              // end of the data in the window
  size_t keep_ = 0;             // first byte that must stay in the window
  uint64_t window_offset_ = 0;  // decoded-file offset of window_[0]
  bool input_done_ = false;
  Report report_;
};

}  // namespace aiprof::model::kineto
