#include "export/run_inputs.h"

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "format/output_layout.h"

namespace aiprof::exporter {

bool FindRuns(const std::vector<std::string>& paths, std::string_view command, std::ostream& err,
              std::vector<model::RunInput>* runs) {
  model::InputDiscovery found = model::DiscoverRuns(paths);
  for (const std::string& note : found.notes) err << command << ": " << note << "\n";
  if (found.runs.empty()) {
    err << command << ": "
        << (found.error.empty() ? "nothing to read in the given paths" : found.error) << "\n";
    return false;
  }
  *runs = std::move(found.runs);
  return true;
}

std::string NoDataMessage(const model::RunInput& run) {
  return run.path +
         " holds no raw data (expected host/data/*.data); is the collection still running or "
         "was the directory copied incompletely?";
}

std::string ExportLockDir(const model::RunInput& run) {
  if (run.kind == model::RunKind::kRaw) return run.path;
  std::error_code ec;
  std::filesystem::create_directories(run.output_dir, ec);  // unwritable: no lock, no output
  return run.output_dir;
}

std::string JobAnalysisDir(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<fs::path> folders;
  for (const std::string& input : inputs) {
    std::error_code ec;
    const fs::path path = fs::absolute(input).lexically_normal();
    folders.push_back(fs::is_regular_file(path, ec) ? path.parent_path() : path);
  }
  if (folders.empty()) return {};
  fs::path common = folders.front();
  if (folders.size() > 1) common = common.parent_path();
  for (const fs::path& folder : folders) {
    while (!common.empty() &&
           std::mismatch(common.begin(), common.end(), folder.begin(), folder.end()).first !=
               common.end()) {
      common = common.parent_path();
    }
  }
  return (common / format::kExportDir / format::kAnalysisDir).string();
}

}  // namespace aiprof::exporter
