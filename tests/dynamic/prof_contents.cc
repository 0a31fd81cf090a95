#include "prof_contents.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "format/reader.h"
#include "format/records.h"

namespace aiprof::testing {

ProfContents ReadProfDir(const std::string& prof_dir) {
  namespace fs = std::filesystem;
  ProfContents contents;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(prof_dir + "/host/data", ec)) {
    std::string name = entry.path().filename().string();
    if (!name.starts_with("aiprof.") || !name.ends_with(".data")) continue;
    format::RawFileReader reader;
    std::string error;
    if (!reader.Open(entry.path().string(), &error)) {
      contents.problems += error + "\n";
      continue;
    }
    std::map<uint32_t, std::string> strings;
    std::vector<uint32_t> mark_ids;
    format::ReadReport report = reader.ForEachChunk([&](const format::ChunkView& chunk) {
      if (chunk.type == format::ChunkType::kStrings) {
        format::ForEachString(chunk.payload,
                              [&](uint32_t id, std::string_view text) { strings[id] = text; });
      } else if (chunk.type == format::ChunkType::kEvents) {
        format::RecordCursor cursor(chunk.payload);
        format::RecordView record;
        while (cursor.Next(&record)) {
          auto kind = static_cast<format::RecordKind>(record.kind());
          if (kind == format::RecordKind::kMark) mark_ids.push_back(record.header->arg);
          if (kind == format::RecordKind::kStepBegin)
            contents.step_begins.push_back(record.header->arg);
          if (kind == format::RecordKind::kStepEnd)
            contents.step_ends.push_back(record.header->arg);
        }
      }
      return true;
    });
    if (!report.clean()) contents.problems += report.Summary() + "\n";
    for (uint32_t id : mark_ids)
      contents.marks.push_back(strings.count(id) ? strings[id] : "<missing string>");
  }
  return contents;
}

std::vector<std::string> ListProfDirs(const std::string& output) {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(output, ec)) {
    if (entry.is_directory() && entry.path().filename().string().starts_with("PROF_")) {
      dirs.push_back(entry.path().string());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

}  // namespace aiprof::testing
