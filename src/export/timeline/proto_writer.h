// Minimal protobuf wire-format encoder (varints, fixed64, length-delimited fields) for the
// Perfetto trace writer; messages are built bottom-up into byte strings.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace aiprof::exporter {

class ProtoMessage {
 public:
  ProtoMessage& Varint(uint32_t field, uint64_t value) {
    Tag(field, 0);
    PutVarint(value);
    return *this;
  }
  ProtoMessage& Int(uint32_t field, int64_t value) {
    return Varint(field, static_cast<uint64_t>(value));
  }
  ProtoMessage& Fixed64(uint32_t field, uint64_t value) {
    Tag(field, 1);
    char bytes[8];
    std::memcpy(bytes, &value, 8);
    bytes_.append(bytes, 8);
    return *this;
  }
  ProtoMessage& Double(uint32_t field, double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, 8);
    return Fixed64(field, bits);
  }
  ProtoMessage& Bytes(uint32_t field, std::string_view value) {
    Tag(field, 2);
    PutVarint(value.size());
    bytes_.append(value);
    return *this;
  }
  ProtoMessage& Message(uint32_t field, const ProtoMessage& message) {
    return Bytes(field, message.bytes_);
  }
  const std::string& bytes() const { return bytes_; }
  void clear() { bytes_.clear(); }
  bool empty() const { return bytes_.empty(); }

 private:
  void Tag(uint32_t field, uint32_t wire_type) { PutVarint((uint64_t{field} << 3) | wire_type); }
  void PutVarint(uint64_t value) {
    char buffer[10];
    size_t n = 0;
    while (value >= 0x80) {
      buffer[n++] = static_cast<char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    buffer[n++] = static_cast<char>(value);
    bytes_.append(buffer, n);
  }
  std::string bytes_;
};

}  // namespace aiprof::exporter
