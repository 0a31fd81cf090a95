// Test helper: loads every record of a PROF_* directory's runtime raw file through the
// shared reader, resolving foreign-thread prefixes, strings and the last drop counts.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "format/reader.h"
#include "format/records.h"

namespace aiprof::testing {

struct Record {
  uint32_t tid;
  uint64_t ts;
  uint8_t kind;
  uint16_t aux;
  uint32_t arg;
  std::vector<format::ExtWord> ext;
};

struct RawData {
  std::vector<Record> records;  // file order
  std::map<uint32_t, std::string> strings;
  std::vector<nlohmann::json> metadata;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> drops;  // (tid, kind) -> last count
  format::ReadReport report;
  uint32_t pid = 0;
  bool opened = false;
  std::string error;

  uint64_t Count(format::RecordKind kind) const;
  uint64_t TotalDrops() const;
  std::string Name(uint32_t id) const;
};

RawData LoadRawFile(const std::string& path);
// The runtime's aiprof.<pid>.data in `prof_dir` (the first one when pid is 0).
std::string RuntimeDataFile(const std::string& prof_dir, uint32_t pid = 0);
std::vector<std::string> ProfDirs(const std::string& output);
nlohmann::json ReadInfoJson(const std::string& prof_dir);
// A fresh empty directory under the system temp dir.
std::string MakeTempDir(const std::string& name);

}  // namespace aiprof::testing
