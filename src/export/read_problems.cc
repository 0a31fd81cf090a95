#include "export/read_problems.h"

#include <ostream>

namespace aiprof::exporter {

void ReportReadProblems(const model::Model& m, std::string_view command, std::ostream& err) {
  for (const auto& file : m.files) {
    if (!file.error.empty()) {
      err << command << ": skipped " << file.path << ": " << file.error << "\n";
    } else if (!file.report.clean()) {
      err << command << ": " << file.path << ": " << file.report.Summary()
          << " (everything intact was read)\n";
    }
    for (const std::string& note : file.report.notes) {
      err << command << ": " << file.path << ": " << note << "\n";
    }
  }
  if (m.unknown_records > 0) {
    err << command << ": " << m.unknown_records
        << " records of kinds this version does not know were skipped\n";
  }
  if (m.unmatched_ends > 0) {
    err << command << ": " << m.unmatched_ends << " range ends without a matching begin\n";
  }
}

}  // namespace aiprof::exporter
