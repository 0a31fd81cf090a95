#include "export/run_inputs.h"

#include <filesystem>
#include <ostream>

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

}  // namespace aiprof::exporter
