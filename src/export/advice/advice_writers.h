// Writers of the tuning advice (analysis/advice/advice.h): advice.json (every finding, its
// thresholds and evidence; the format the web UI reads), a standalone advice.html (one file,
// no network: inline style, evidence tables, SVG charts) and the ranked terminal report.
#pragma once

#include <iosfwd>
#include <string>

#include "analysis/advice/advice.h"
#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::exporter {

// advice.json's text; the web UI's /api/advice answers with it.
std::string AdviceJsonText(const analysis::advice::AdviceReport& report);
bool WriteAdviceJson(const analysis::advice::AdviceReport& report, const std::string& path,
                     std::string* error);
bool WriteAdviceHtml(const analysis::advice::AdviceReport& report, const std::string& path,
                     std::string* error);

struct AdviceTextOptions {
  bool color = false;        // ANSI colours (a terminal, NO_COLOR unset)
  size_t evidence_rows = 5;  // rows shown per evidence table
};
void PrintAdviceReport(const analysis::advice::AdviceReport& report, std::ostream& out,
                       const AdviceTextOptions& options = {});

// The export job's advice: the rules with default thresholds over one profile's analyses,
// written to `path` (advice.json).
bool WriteProfileAdvice(const model::Model& model, const analysis::AnalysisSet& analyses,
                        const std::string& label, const std::string& path, std::string* error);

}  // namespace aiprof::exporter
