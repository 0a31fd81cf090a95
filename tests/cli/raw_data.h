// Reads a whole raw data file into plain structures for assertions.
#pragma once

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "format/reader.h"

namespace aiprof::testing {

struct Record {
  uint8_t kind;
  uint64_t ts;
  uint16_t aux;
  uint32_t arg;
  uint32_t tid;
  std::vector<format::ExtWord> ext;
};

struct RawData {
  std::map<uint32_t, std::string> strings;
  std::vector<Record> records;
  nlohmann::json metadata = nlohmann::json::object();  // later chunks' keys win
  format::ReadReport report;

  std::vector<Record> OfKind(format::RecordKind kind) const {
    std::vector<Record> out;
    for (const Record& record : records) {
      if (record.kind == static_cast<uint8_t>(kind)) out.push_back(record);
    }
    return out;
  }
  std::string Name(uint32_t id) const {
    auto it = strings.find(id);
    return it == strings.end() ? "" : it->second;
  }
  std::vector<format::CounterValue> Counter(const std::string& name) const {
    std::vector<format::CounterValue> out;
    for (const Record& record : OfKind(format::RecordKind::kCounter)) {
      if (Name(record.arg) == name && !record.ext.empty()) {
        format::CounterValue value;
        std::memcpy(&value, record.ext.data(), sizeof(value));
        out.push_back(value);
      }
    }
    return out;
  }
};

inline bool ReadRawData(const std::string& path, RawData* data, std::string* error) {
  format::RawFileReader reader;
  if (!reader.Open(path, error)) return false;
  data->report = reader.ForEachChunk([&](const format::ChunkView& chunk) {
    if (chunk.type == format::ChunkType::kStrings) {
      format::ForEachString(chunk.payload, [&](uint32_t id, std::string_view text) {
        data->strings[id] = std::string(text);
      });
    } else if (chunk.type == format::ChunkType::kMetadata) {
      auto meta = nlohmann::json::parse(chunk.payload.begin(), chunk.payload.end(), nullptr, false);
      if (meta.is_object()) data->metadata.update(meta);
    } else if (chunk.type == format::ChunkType::kEvents) {
      format::RecordCursor cursor(chunk.payload);
      format::RecordView view;
      while (cursor.Next(&view)) {
        Record record{view.kind(), view.ts(), view.header->aux, view.header->arg, chunk.tid, {}};
        record.ext.assign(view.ext, view.ext + view.header->ext_words);
        data->records.push_back(std::move(record));
      }
    }
    return true;
  });
  return true;
}

}  // namespace aiprof::testing
