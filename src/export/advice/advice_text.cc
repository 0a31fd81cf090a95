// The ranked terminal report of `aiprof advise`: triggered findings first (by projected
// saving, then severity and impact), each with its figures, what to try and the head of its
// evidence; then one line per rule that passed or could not be evaluated, so nothing passes
// silently.
#include <algorithm>
#include <cstdio>
#include <ostream>

#include "export/advice/advice_writers.h"
#include "export/terminal_style.h"

namespace aiprof::exporter {

namespace advice = analysis::advice;

namespace {

std::string SeverityLabel(const TerminalStyle& style, advice::Severity severity,
                          const std::string& text) {
  switch (severity) {
    case advice::Severity::kHigh:
      return style.Bold(style.Red(text));
    case advice::Severity::kMedium:
      return style.Bold(style.Yellow(text));
    case advice::Severity::kLow:
      break;
  }
  return style.Bold(style.Green(text));
}

// Display width: UTF-8 continuation bytes take no column.
size_t Width(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

void PrintTable(const advice::EvidenceTable& table, size_t max_rows, const TerminalStyle& style,
                std::ostream& out) {
  const size_t rows = std::min(max_rows, table.rows.size());
  std::vector<size_t> widths(table.columns.size(), 0);
  for (size_t c = 0; c < table.columns.size(); ++c) widths[c] = Width(table.columns[c]);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < table.rows[r].size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], std::min<size_t>(Width(table.rows[r][c]), 60));
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text = "       ";
    for (size_t c = 0; c < cells.size() && c < widths.size(); ++c) {
      std::string cell = cells[c];
      if (Width(cell) > 60) cell = cell.substr(0, 57) + "...";
      text += cell + std::string(widths[c] + 2 - std::min(widths[c] + 2, Width(cell)), ' ');
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
  };
  out << "     " << style.Dim(table.title) << "\n";
  out << style.Dim(line(table.columns)) << "\n";
  for (size_t r = 0; r < rows; ++r) out << line(table.rows[r]) << "\n";
  if (table.rows.size() > rows) {
    out << "       ... " << table.rows.size() - rows << " more (advice.json, advice.html)\n";
  }
}

}  // namespace

void PrintAdviceReport(const advice::AdviceReport& report, std::ostream& out,
                       const AdviceTextOptions& options) {
  const TerminalStyle style(options.color);
  std::string profiles;
  for (const std::string& label : report.profiles)
    profiles += (profiles.empty() ? "" : ", ") + label;
  out << style.Bold("Tuning advice") << ": " << report.triggered() << " of "
      << report.findings.size() << " rules triggered over " << report.profiles.size()
      << " profile(s) (" << profiles << ")\n";
  for (const std::string& line : report.inputs) out << "  " << style.Dim(line) << "\n";
  if (report.dropped_records > 0) {
    out << "  " << report.dropped_records
        << " record(s) were dropped while collecting: figures may miss that many events\n";
  }
  size_t rank = 0;
  for (const advice::Finding& finding : report.findings) {
    if (finding.status != advice::RuleStatus::kTriggered) continue;
    std::string severity(advice::SeverityName(finding.severity));
    std::transform(severity.begin(), severity.end(), severity.begin(), ::toupper);
    ++rank;
    out << "\n"
        << (rank < 10 ? " " : "") << rank << ". "
        << SeverityLabel(style, finding.severity, "[" + severity + "]") << " "
        << style.Bold(finding.title) << " (" << finding.rule << ")\n";
    out << "     " << finding.detail << "\n";
    if (finding.projected_saving >= 0) {
      char saving[64];
      std::snprintf(saving, sizeof(saving), "%.1f%%", 100 * finding.projected_saving);
      out << "     " << style.Bold("Fixing it would save") << " about " << saving
          << " of step time (critical path, re-solved: " << finding.projection << ")\n";
    }
    out << "     " << style.Bold("Try:") << " " << finding.suggestion << "\n";
    for (const advice::EvidenceTable& table : finding.evidence) {
      PrintTable(table, options.evidence_rows, style, out);
    }
  }
  if (rank == 0) out << "\nNo rule triggered: nothing stands out in this profile.\n";
  out << "\n";
  for (const advice::Finding& finding : report.findings) {
    if (finding.status == advice::RuleStatus::kTriggered) continue;
    const bool passed = finding.status == advice::RuleStatus::kPassed;
    out << "  " << (passed ? "ok   " : "n/a  ") << finding.rule << ": " << style.Dim(finding.detail)
        << "\n";
  }
}

}  // namespace aiprof::exporter
