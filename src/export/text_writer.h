// Buffered output for the text exporters: formats numbers and escapes strings straight into
// a large buffer and writes it with fwrite, never building whole documents in memory.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace aiprof::exporter {

class TextWriter {
 public:
  TextWriter() = default;
  ~TextWriter() { Close(); }
  TextWriter(const TextWriter&) = delete;
  TextWriter& operator=(const TextWriter&) = delete;

  // Writes to `path`.tmp and renames it to `path` on Close(), so a reader never sees a
  // half-written file under the final name.
  bool Open(const std::string& path, std::string* error);
  bool Close();  // false (and error()) if anything failed
  const std::string& error() const { return error_; }

  TextWriter& Raw(std::string_view text) {
    if (text.empty()) return *this;  // an empty view may have no data (memcpy's null)
    if (text.size() > kBufferSize - used_) Drain();
    if (text.size() >= kBufferSize) {
      WriteDirect(text);
    } else {
      std::memcpy(buffer_ + used_, text.data(), text.size());
      used_ += text.size();
    }
    return *this;
  }
  TextWriter& Char(char c) {
    if (used_ == kBufferSize) Drain();
    buffer_[used_++] = c;
    return *this;
  }
  TextWriter& Int(int64_t value);
  TextWriter& UInt(uint64_t value);
  TextWriter& Double(double value);  // shortest round-trip form; NaN/inf as 0
  // `decimals` fixed decimals, the same characters as printf's "%.*f" (std::to_chars is
  // specified as printf in the C locale) at a fraction of its cost.
  TextWriter& Fixed(double value, int decimals);
  // ns as µs with exactly three decimals ("12.345"); negative values keep their sign.
  TextWriter& Micros(int64_t ns);
  // A JSON string literal with quotes, by the one rule of export/json_text.h (control
  // characters escaped, invalid UTF-8 as U+FFFD).
  TextWriter& JsonString(std::string_view text);
  // A CSV field: quoted when it holds a comma, quote or newline.
  TextWriter& CsvField(std::string_view text);

 private:
  static constexpr size_t kBufferSize = 1 << 20;
  void Drain();
  void WriteDirect(std::string_view text);
  char* Reserve(size_t bytes) {
    if (bytes > kBufferSize - used_) Drain();
    return buffer_ + used_;
  }

  FILE* file_ = nullptr;
  std::string path_;
  std::string error_;
  char* buffer_ = nullptr;
  size_t used_ = 0;
};

}  // namespace aiprof::exporter
