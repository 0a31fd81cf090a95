// A protobuf wire-format decoder of the tests' own (no generated code), so a test reads a
// .pftrace file as Perfetto would and does not reuse the writer's encoder.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace aiprof::exporter {

struct ProtoField {
  uint32_t number = 0;
  uint32_t wire_type = 0;
  uint64_t value = 0;      // varint / fixed64 / fixed32
  std::string_view bytes;  // length-delimited
};

// Every field of one message; false on any malformed byte.
inline bool DecodeMessage(std::string_view bytes, std::vector<ProtoField>* fields) {
  size_t i = 0;
  auto varint = [&](uint64_t* value) {
    *value = 0;
    for (int shift = 0; i < bytes.size() && shift < 64; shift += 7) {
      uint8_t byte = static_cast<uint8_t>(bytes[i++]);
      *value |= uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80)) return true;
    }
    return false;
  };
  while (i < bytes.size()) {
    uint64_t tag = 0;
    if (!varint(&tag)) return false;
    ProtoField field;
    field.number = static_cast<uint32_t>(tag >> 3);
    field.wire_type = static_cast<uint32_t>(tag & 7);
    switch (field.wire_type) {
      case 0:
        if (!varint(&field.value)) return false;
        break;
      case 1:
        if (i + 8 > bytes.size()) return false;
        std::memcpy(&field.value, bytes.data() + i, 8);
        i += 8;
        break;
      case 2: {
        uint64_t length = 0;
        if (!varint(&length) || length > bytes.size() - i) return false;
        field.bytes = bytes.substr(i, length);
        i += length;
        break;
      }
      case 5: {
        uint32_t value32 = 0;
        if (i + 4 > bytes.size()) return false;
        std::memcpy(&value32, bytes.data() + i, 4);
        field.value = value32;
        i += 4;
        break;
      }
      default:
        return false;
    }
    if (field.number == 0) return false;
    fields->push_back(field);
  }
  return true;
}

inline std::vector<ProtoField> Decode(std::string_view bytes) {
  std::vector<ProtoField> fields;
  EXPECT_TRUE(DecodeMessage(bytes, &fields)) << "malformed protobuf";
  return fields;
}

}  // namespace aiprof::exporter
