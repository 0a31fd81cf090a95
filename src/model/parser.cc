#include "model/parser.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include "format/output_layout.h"
#include "model/communication.h"
#include "model/file_importer.h"
#include "model/file_parser.h"
#include "model/merge.h"
#include "model/steps.h"

namespace aiprof::model {
namespace fs = std::filesystem;

namespace {

bool IsProfDir(const fs::path& path) {
  std::error_code ec;
  return path.filename().string().rfind(format::kProfDirPrefix, 0) == 0 &&
         fs::is_directory(path, ec);
}

void AddDataFiles(const fs::path& dir, std::vector<std::string>& files) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ".data") {
      files.push_back(entry.path().string());
    }
  }
}

// aiprof raw data (*.data) or a file a file importer reads (a Kineto JSON trace).
Fragment ParseFile(const std::string& path) {
  if (!path.ends_with(".data")) {
    if (const FileImporter* importer = FileImporterFor(path)) return importer->parse(path);
  }
  return ParseRawFile(path);
}

}  // namespace

bool IsSkippedDir(const std::string& name) {
  static const std::set<std::string> kSkipped = {".profiler",
                                                 "HCCL_PROF",
                                                 "timeline",
                                                 "query",
                                                 "sqlite",
                                                 "log",
                                                 "analyze",
                                                 "mindstudio_profiler_log",
                                                 "mindstudio_profiler_output",
                                                 format::kExportDir,
                                                 format::kClusterOutputDir,
                                                 "node_modules",
                                                 ".git"};
  return kSkipped.count(name) > 0;
}

std::vector<std::string> FindProfDirs(const std::string& path, std::string* error) {
  std::vector<std::string> dirs;
  std::error_code ec;
  fs::path root(path);
  if (!fs::exists(root, ec)) {
    *error = "'" + path + "' does not exist; pass the PROF_* directory or its parent (--output)";
    return dirs;
  }
  if (!fs::is_directory(root, ec)) {
    *error = "'" + path + "' is not a directory; pass the PROF_* directory or its parent";
    return dirs;
  }
  fs::path normalized = fs::absolute(root, ec).lexically_normal();
  if (!normalized.has_filename()) normalized = normalized.parent_path();
  if (normalized.filename().string().rfind(format::kProfDirPrefix, 0) == 0) {
    dirs.push_back(root.string());
    return dirs;
  }
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    std::string name = entry.path().filename().string();
    if (IsSkippedDir(name)) continue;
    if (IsProfDir(entry.path())) dirs.push_back(entry.path().string());
  }
  std::sort(dirs.begin(), dirs.end());
  if (dirs.empty()) {
    *error = "no PROF_* directory in '" + path +
             "'; pass a directory written by 'aiprof' (it contains PROF_*/host/data/*.data)";
  }
  return dirs;
}

std::vector<std::string> ListRawFiles(const std::string& prof_dir) {
  std::vector<std::string> files;
  fs::path root(prof_dir);
  AddDataFiles(root / format::kHostDataDir, files);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (entry.is_directory(ec) && entry.path().filename().string().rfind("device_", 0) == 0) {
      AddDataFiles(entry.path() / "data", files);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

Model ParseFiles(const std::vector<std::string>& files, const ParseOptions& options) {
  std::vector<Fragment> fragments(files.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < files.size(); i = next++) fragments[i] = ParseFile(files[i]);
  };
  unsigned workers = std::max(1u, std::min<unsigned>(options.threads, files.size()));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < workers; ++i) pool.emplace_back(work);
  work();
  for (auto& thread : pool) thread.join();
  Model model = MergeFragments(std::move(fragments));
  AnnotateCommunication(model);
  ResolveSteps(model);
  return model;
}

Model ParseProfDir(const std::string& prof_dir, const ParseOptions& options) {
  return ParseFiles(ListRawFiles(prof_dir), options);
}

}  // namespace aiprof::model
