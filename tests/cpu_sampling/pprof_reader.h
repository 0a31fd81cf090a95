// A small reader of pprof's profile.proto (github.com/google/pprof/proto/profile.proto) for
// the tests: gunzips the file and decodes the protobuf wire format into the fields aiprof
// writes, independently of the writer's encoder (src/export/cpu/pprof_writer.cc).
#pragma once

#include <zlib.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace aiprof::testing {

struct PprofProfile {
  struct ValueType {
    int64_t type = 0, unit = 0;
  };
  struct Label {
    int64_t key = 0, str = 0, num = 0;
  };
  struct Sample {
    std::vector<uint64_t> location_ids;
    std::vector<int64_t> values;
    std::vector<Label> labels;
  };
  struct Location {
    uint64_t id = 0;
    std::vector<uint64_t> function_ids;  // Line.function_id, in order
  };
  struct Function {
    uint64_t id = 0;
    int64_t name = 0, system_name = 0, filename = 0;
  };
  std::vector<ValueType> sample_types;
  std::vector<Sample> samples;
  std::vector<Location> locations;
  std::vector<Function> functions;
  std::vector<std::string> strings;
  int64_t time_nanos = 0, duration_nanos = 0, period = 0;
  ValueType period_type;
};

// Protobuf wire-format reader over one message's bytes. Every read checks the bounds;
// `ok` turns false on a malformed message.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}
  bool ok = true;
  bool Next(uint32_t* field, uint32_t* wire_type) {
    if (at_ >= bytes_.size() || !ok) return false;
    uint64_t key = Varint();
    *field = static_cast<uint32_t>(key >> 3);
    *wire_type = static_cast<uint32_t>(key & 7);
    return ok;
  }
  uint64_t Varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= bytes_.size()) break;
      uint8_t byte = static_cast<uint8_t>(bytes_[at_++]);
      value |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return value;
    }
    ok = false;
    return 0;
  }
  std::string_view Bytes() {
    uint64_t size = Varint();
    if (!ok || size > bytes_.size() - at_) {
      ok = false;
      return {};
    }
    std::string_view out = bytes_.substr(at_, size);
    at_ += size;
    return out;
  }
  void Skip(uint32_t wire_type) {
    if (wire_type == 0) {
      Varint();
    } else if (wire_type == 2) {
      Bytes();
    } else if (wire_type == 1 && at_ + 8 <= bytes_.size()) {
      at_ += 8;
    } else if (wire_type == 5 && at_ + 4 <= bytes_.size()) {
      at_ += 4;
    } else {
      ok = false;
    }
  }
  // A repeated scalar: packed (wire type 2) or one value (wire type 0).
  void Repeated(uint32_t wire_type, std::vector<uint64_t>* out) {
    if (wire_type == 0) {
      out->push_back(Varint());
      return;
    }
    WireReader packed(Bytes());
    while (packed.at_ < packed.bytes_.size() && packed.ok) out->push_back(packed.Varint());
    ok = ok && packed.ok;
  }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

inline bool Gunzip(const std::string& path, std::string* out) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return false;
  char buffer[65536];
  int n;
  while ((n = gzread(file, buffer, sizeof(buffer))) > 0) out->append(buffer, n);
  return gzclose(file) == Z_OK && n == 0;
}

// False when the file is not gzip or not a well-formed profile.proto message.
inline bool ReadPprof(const std::string& path, PprofProfile* p) {
  std::string raw;
  if (!Gunzip(path, &raw)) return false;
  WireReader r(raw);
  uint32_t field, wire;
  auto value_type = [](std::string_view bytes, bool* ok) {
    WireReader v(bytes);
    PprofProfile::ValueType t;
    uint32_t f, w;
    while (v.Next(&f, &w)) {
      if (f == 1) {
        t.type = static_cast<int64_t>(v.Varint());
      } else if (f == 2) {
        t.unit = static_cast<int64_t>(v.Varint());
      } else {
        v.Skip(w);
      }
    }
    *ok = *ok && v.ok;
    return t;
  };
  while (r.Next(&field, &wire)) {
    switch (field) {
      case 1:
        p->sample_types.push_back(value_type(r.Bytes(), &r.ok));
        break;
      case 2: {
        WireReader s(r.Bytes());
        PprofProfile::Sample sample;
        uint32_t f, w;
        while (s.Next(&f, &w)) {
          if (f == 1) {
            s.Repeated(w, &sample.location_ids);
          } else if (f == 2) {
            std::vector<uint64_t> values;
            s.Repeated(w, &values);
            for (uint64_t v : values) sample.values.push_back(static_cast<int64_t>(v));
          } else if (f == 3) {
            WireReader l(s.Bytes());
            PprofProfile::Label label;
            uint32_t lf, lw;
            while (l.Next(&lf, &lw)) {
              if (lf == 1) {
                label.key = static_cast<int64_t>(l.Varint());
              } else if (lf == 2) {
                label.str = static_cast<int64_t>(l.Varint());
              } else if (lf == 3) {
                label.num = static_cast<int64_t>(l.Varint());
              } else {
                l.Skip(lw);
              }
            }
            s.ok = s.ok && l.ok;
            sample.labels.push_back(label);
          } else {
            s.Skip(w);
          }
        }
        r.ok = r.ok && s.ok;
        p->samples.push_back(std::move(sample));
        break;
      }
      case 4: {
        WireReader l(r.Bytes());
        PprofProfile::Location location;
        uint32_t f, w;
        while (l.Next(&f, &w)) {
          if (f == 1) {
            location.id = l.Varint();
          } else if (f == 4) {
            WireReader line(l.Bytes());
            uint32_t lf, lw;
            while (line.Next(&lf, &lw)) {
              if (lf == 1) {
                location.function_ids.push_back(line.Varint());
              } else {
                line.Skip(lw);
              }
            }
            l.ok = l.ok && line.ok;
          } else {
            l.Skip(w);
          }
        }
        r.ok = r.ok && l.ok;
        p->locations.push_back(location);
        break;
      }
      case 5: {
        WireReader fn(r.Bytes());
        PprofProfile::Function function;
        uint32_t f, w;
        while (fn.Next(&f, &w)) {
          if (f == 1) {
            function.id = fn.Varint();
          } else if (f == 2) {
            function.name = static_cast<int64_t>(fn.Varint());
          } else if (f == 3) {
            function.system_name = static_cast<int64_t>(fn.Varint());
          } else if (f == 4) {
            function.filename = static_cast<int64_t>(fn.Varint());
          } else {
            fn.Skip(w);
          }
        }
        r.ok = r.ok && fn.ok;
        p->functions.push_back(function);
        break;
      }
      case 6:
        p->strings.emplace_back(r.Bytes());
        break;
      case 9:
        p->time_nanos = static_cast<int64_t>(r.Varint());
        break;
      case 10:
        p->duration_nanos = static_cast<int64_t>(r.Varint());
        break;
      case 11:
        p->period_type = value_type(r.Bytes(), &r.ok);
        break;
      case 12:
        p->period = static_cast<int64_t>(r.Varint());
        break;
      default:
        r.Skip(wire);
    }
  }
  return r.ok;
}

}  // namespace aiprof::testing
