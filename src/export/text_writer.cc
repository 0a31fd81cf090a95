#include "export/text_writer.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "export/json_text.h"

namespace aiprof::exporter {

bool TextWriter::Open(const std::string& path, std::string* error) {
  path_ = path;
  error_.clear();
  // The buffer exists even when the file cannot be opened, so callers may keep writing
  // (into nothing) and report the error once at Close().
  if (buffer_ == nullptr) buffer_ = static_cast<char*>(std::malloc(kBufferSize));
  used_ = 0;
  file_ = std::fopen((path + ".tmp").c_str(), "wb");
  if (file_ == nullptr) {
    *error = "cannot create '" + path + ".tmp': " + std::strerror(errno);
    error_ = *error;
    return false;
  }
  return true;
}

bool TextWriter::Close() {
  if (file_ == nullptr) {
    std::free(buffer_);
    buffer_ = nullptr;
    return error_.empty();
  }
  Drain();
  if (std::fclose(file_) != 0 && error_.empty()) {
    error_ = "cannot write '" + path_ + "': " + std::strerror(errno);
  }
  file_ = nullptr;
  std::free(buffer_);
  buffer_ = nullptr;
  std::error_code ec;
  if (error_.empty()) {
    std::filesystem::rename(path_ + ".tmp", path_, ec);
    if (ec) error_ = "cannot rename '" + path_ + ".tmp': " + ec.message();
  } else {
    std::filesystem::remove(path_ + ".tmp", ec);
  }
  return error_.empty();
}

void TextWriter::Drain() {
  if (used_ == 0) return;
  if (file_ != nullptr && std::fwrite(buffer_, 1, used_, file_) != used_ && error_.empty()) {
    error_ = "cannot write '" + path_ + "': " + std::strerror(errno);
  }
  used_ = 0;
}

void TextWriter::WriteDirect(std::string_view text) {
  if (file_ != nullptr && std::fwrite(text.data(), 1, text.size(), file_) != text.size() &&
      error_.empty()) {
    error_ = "cannot write '" + path_ + "': " + std::strerror(errno);
  }
}

TextWriter& TextWriter::Int(int64_t value) {
  char* out = Reserve(24);
  used_ += std::to_chars(out, out + 24, value).ptr - out;
  return *this;
}

TextWriter& TextWriter::UInt(uint64_t value) {
  char* out = Reserve(24);
  used_ += std::to_chars(out, out + 24, value).ptr - out;
  return *this;
}

TextWriter& TextWriter::Double(double value) {
  if (!std::isfinite(value)) value = 0;
  char* out = Reserve(32);
  used_ += std::to_chars(out, out + 32, value).ptr - out;
  return *this;
}

TextWriter& TextWriter::Fixed(double value, int decimals) {
  // The largest double has 309 integer digits.
  constexpr size_t kMaxLength = 320 + 17;
  char* out = Reserve(kMaxLength + static_cast<size_t>(decimals));
  used_ +=
      std::to_chars(out, out + kMaxLength + decimals, value, std::chars_format::fixed, decimals)
          .ptr -
      out;
  return *this;
}

TextWriter& TextWriter::Micros(int64_t ns) {
  char* out = Reserve(32);
  char* p = out;
  uint64_t magnitude = ns < 0 ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  if (ns < 0) *p++ = '-';
  p = std::to_chars(p, out + 28, magnitude / 1000).ptr;
  uint32_t fraction = static_cast<uint32_t>(magnitude % 1000);
  p[0] = '.';
  p[1] = static_cast<char>('0' + fraction / 100);
  p[2] = static_cast<char>('0' + fraction / 10 % 10);
  p[3] = static_cast<char>('0' + fraction % 10);
  used_ += (p + 4) - out;
  return *this;
}

TextWriter& TextWriter::JsonString(std::string_view text) {
  WriteJsonString(text, [this](std::string_view piece) { Raw(piece); });
  return *this;
}

TextWriter& TextWriter::CsvField(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return Raw(text);
  Char('"');
  for (char c : text) {
    if (c == '"') Char('"');
    Char(c);
  }
  return Char('"');
}

}  // namespace aiprof::exporter
