#include "runtime/raw_data.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace aiprof::testing {

namespace fs = std::filesystem;

uint64_t RawData::Count(format::RecordKind kind) const {
  return std::count_if(records.begin(), records.end(), [&](const Record& record) {
    return record.kind == static_cast<uint8_t>(kind);
  });
}

uint64_t RawData::TotalDrops() const {
  uint64_t total = 0;
  for (const auto& [key, count] : drops) total += count;
  return total;
}

std::string RawData::Name(uint32_t id) const {
  auto found = strings.find(id);
  return found == strings.end() ? "<missing " + std::to_string(id) + ">" : found->second;
}

RawData LoadRawFile(const std::string& path) {
  RawData data;
  format::RawFileReader reader;
  if (!reader.Open(path, &data.error)) return data;
  data.opened = true;
  data.pid = reader.header().pid;
  data.report = reader.ForEachChunk([&](const format::ChunkView& chunk) {
    if (chunk.type == format::ChunkType::kStrings) {
      format::ForEachString(chunk.payload, [&](uint32_t id, std::string_view text) {
        data.strings[id] = std::string(text);
      });
    } else if (chunk.type == format::ChunkType::kMetadata) {
      data.metadata.push_back(nlohmann::json::parse(
          std::string(reinterpret_cast<const char*>(chunk.payload.data()), chunk.payload.size()),
          nullptr, false));
    } else if (chunk.type == format::ChunkType::kEvents) {
      format::RecordCursor cursor(chunk.payload);
      format::RecordView view;
      uint32_t foreign = 0;
      while (cursor.Next(&view)) {
        if (view.kind() == static_cast<uint8_t>(format::RecordKind::kForeignThread)) {
          foreign = view.header->arg;
          continue;
        }
        Record record{foreign != 0 ? foreign : chunk.tid,
                      view.ts(),
                      view.kind(),
                      view.header->aux,
                      view.header->arg,
                      {}};
        foreign = 0;
        record.ext.assign(view.ext, view.ext + view.header->ext_words);
        if (record.kind == static_cast<uint8_t>(format::RecordKind::kDrops)) {
          if (const auto* drop = view.ExtAs<format::DropCount>(0)) {
            data.drops[{drop->tid, record.arg}] = drop->count;
          }
        }
        data.records.push_back(std::move(record));
      }
    }
    return true;
  });
  return data;
}

std::string RuntimeDataFile(const std::string& prof_dir, uint32_t pid) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(prof_dir + "/host/data", error)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("aiprof.", 0) != 0) continue;
    if (pid == 0 || name == "aiprof." + std::to_string(pid) + ".data") return entry.path().string();
  }
  return "";
}

std::vector<std::string> ProfDirs(const std::string& output) {
  std::vector<std::string> dirs;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(output, error)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("PROF_", 0) == 0) {
      dirs.push_back(entry.path().string());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

nlohmann::json ReadInfoJson(const std::string& prof_dir) {
  // An empty object while the file does not exist yet (the directory is created first).
  std::ifstream file(prof_dir + "/info.json");
  nlohmann::json info = nlohmann::json::parse(file, nullptr, false);
  return info.is_object() ? info : nlohmann::json::object();
}

std::string MakeTempDir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() /
      ("aiprof_test_" + name + "_" + std::to_string(getpid()) + "_" + std::to_string(std::rand()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

}  // namespace aiprof::testing
