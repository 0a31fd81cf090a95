// advice.html: one self-contained page (inline style and SVG, no script, no network) with
// the findings ranked as in the terminal report, their thresholds and sources, every
// evidence table, a bar chart of the triggered findings' impact and the step times of each
// profile.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "export/advice/advice_writers.h"
#include "export/markup_escape.h"

namespace aiprof::exporter {

namespace advice = analysis::advice;

namespace {

std::string Number(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

const char* SeverityColor(advice::Severity severity) {
  switch (severity) {
    case advice::Severity::kHigh:
      return "#c62828";
    case advice::Severity::kMedium:
      return "#ef8f00";
    case advice::Severity::kLow:
      break;
  }
  return "#2e7d32";
}

constexpr const char* kStyle = R"(
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:72em;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.8em}h3{font-size:1em;margin:1em 0 .3em}
.badge{display:inline-block;color:#fff;border-radius:3px;padding:0 .45em;font-size:.85em;margin-right:.4em}
.finding{border-left:4px solid #ccc;padding:.2em 1em .6em;margin:1em 0;background:#fafafa}
table{border-collapse:collapse;margin:.4em 0;font-size:.9em}
th,td{border:1px solid #ddd;padding:.2em .6em;text-align:left}th{background:#f0f0f0}
.muted{color:#666}.try{margin:.4em 0}svg text{font-size:11px;font-family:inherit}
)";

void BarChart(const advice::AdviceReport& report, std::ostream& out) {
  std::vector<const advice::Finding*> triggered;
  for (const advice::Finding& finding : report.findings) {
    if (finding.status == advice::RuleStatus::kTriggered) triggered.push_back(&finding);
  }
  if (triggered.empty()) return;
  const int row = 22, label = 260, bar = 400;
  const int height = row * static_cast<int>(triggered.size()) + 10;
  out << "<h2>Impact of each finding</h2>\n<svg width=\"" << label + bar + 70 << "\" height=\""
      << height << "\" role=\"img\" aria-label=\"impact per finding\">\n";
  for (size_t i = 0; i < triggered.size(); ++i) {
    const advice::Finding& finding = *triggered[i];
    const int y = static_cast<int>(i) * row + 4;
    const double width = std::clamp(finding.impact, 0.0, 1.0) * bar;
    out << "<text x=\"0\" y=\"" << y + 14 << "\">" << EscapeMarkup(finding.title) << "</text>"
        << "<rect x=\"" << label << "\" y=\"" << y << "\" width=\""
        << Number(std::max(width, 1.0), 1) << "\" height=\"16\" fill=\""
        << SeverityColor(finding.severity) << "\"/>"
        << "<text x=\"" << label + static_cast<int>(width) + 6 << "\" y=\"" << y + 13 << "\">"
        << Number(100 * finding.impact, 1) << "%</text>\n";
  }
  out << "</svg>\n<p class=\"muted\">Impact: the share of step (or operator) time the finding "
         "concerns.</p>\n";
}

void StepChart(const advice::AdviceReport& report, std::ostream& out) {
  static const char* kColors[] = {"#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f"};
  double max_ms = 0;
  size_t max_steps = 0;
  for (const advice::StepTimes& times : report.step_times) {
    max_steps = std::max(max_steps, times.steps.size());
    for (const auto& point : times.steps) max_ms = std::max(max_ms, point.second);
  }
  if (max_steps < 2 || max_ms <= 0) return;
  const int width = 660, height = 200, left = 60, bottom = 20;
  out << "<h2>Step times</h2>\n<svg width=\"" << width + left + 10 << "\" height=\""
      << height + bottom + 10 << "\" role=\"img\" aria-label=\"step time per step\">\n";
  out << "<line x1=\"" << left << "\" y1=\"5\" x2=\"" << left << "\" y2=\"" << height + 5
      << "\" stroke=\"#999\"/><line x1=\"" << left << "\" y1=\"" << height + 5 << "\" x2=\""
      << left + width << "\" y2=\"" << height + 5 << "\" stroke=\"#999\"/>\n";
  out << "<text x=\"0\" y=\"14\">" << Number(max_ms, 2) << " ms</text><text x=\"0\" y=\""
      << height + 5 << "\">0</text><text x=\"" << left << "\" y=\"" << height + bottom + 5
      << "\">step index (" << max_steps << " steps)</text>\n";
  for (size_t p = 0; p < report.step_times.size(); ++p) {
    const advice::StepTimes& times = report.step_times[p];
    if (times.steps.empty()) continue;
    const char* color = kColors[p % std::size(kColors)];
    out << "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" << color << "\" points=\"";
    for (size_t i = 0; i < times.steps.size(); ++i) {
      const double x = left + static_cast<double>(i) * width / static_cast<double>(max_steps - 1);
      const double y = 5 + height - times.steps[i].second / max_ms * height;
      out << Number(x, 1) << "," << Number(y, 1) << " ";
    }
    out << "\"/><text x=\"" << left + width - 150 << "\" y=\"" << 18 + 14 * p << "\" fill=\""
        << color << "\">" << EscapeMarkup(times.label) << "</text>\n";
  }
  out << "</svg>\n";
}

void Table(const std::vector<std::string>& columns,
           const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  out << "<table><tr>";
  for (const std::string& column : columns) out << "<th>" << EscapeMarkup(column) << "</th>";
  out << "</tr>\n";
  for (const auto& row : rows) {
    out << "<tr>";
    for (const std::string& cell : row) out << "<td>" << EscapeMarkup(cell) << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n";
}

void FindingSection(const advice::Finding& finding, size_t rank, std::ostream& out) {
  out << "<div class=\"finding\" style=\"border-color:" << SeverityColor(finding.severity)
      << "\">\n<h2>" << rank
      << ". <span class=\"badge\" style=\"background:" << SeverityColor(finding.severity) << "\">"
      << advice::SeverityName(finding.severity) << "</span>" << EscapeMarkup(finding.title)
      << " <span class=\"muted\">(" << EscapeMarkup(finding.rule) << ")</span></h2>\n<p>"
      << EscapeMarkup(finding.detail) << "</p>\n";
  if (finding.projected_saving >= 0) {
    out << "<p><b>Fixing it would save</b> about " << Number(100 * finding.projected_saving, 1)
        << "% of step time (critical path, re-solved: " << EscapeMarkup(finding.projection)
        << ")</p>\n";
  }
  out << "<p class=\"try\"><b>Try:</b> " << EscapeMarkup(finding.suggestion) << "</p>\n";
  for (const advice::EvidenceTable& table : finding.evidence) {
    out << "<h3>" << EscapeMarkup(table.title) << "</h3>\n";
    Table(table.columns, table.rows, out);
  }
  std::vector<std::vector<std::string>> thresholds;
  for (const advice::ThresholdSpec& spec : finding.thresholds) {
    thresholds.push_back({spec.key, Number(spec.value, 3), spec.unit, spec.source});
  }
  out << "<h3>Thresholds</h3>\n";
  Table({"threshold", "value", "unit", "source"}, thresholds, out);
  out << "<p class=\"muted\">Reads: ";
  for (size_t i = 0; i < finding.reads.size(); ++i) {
    out << (i ? ", " : "") << EscapeMarkup(finding.reads[i]);
  }
  out << "</p>\n</div>\n";
}

}  // namespace

bool WriteAdviceHtml(const advice::AdviceReport& report, const std::string& path,
                     std::string* error) {
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       << "<title>aiprof tuning advice</title><style>" << kStyle << "</style></head><body>\n"
       << "<h1>aiprof tuning advice</h1>\n<p>" << report.triggered() << " of "
       << report.findings.size() << " rules triggered over " << report.profiles.size()
       << " profile(s).</p>\n<ul>";
  for (size_t i = 0; i < report.profiles.size(); ++i) {
    html << "<li><b>" << EscapeMarkup(report.profiles[i])
         << "</b>: " << EscapeMarkup(i < report.inputs.size() ? report.inputs[i] : "") << "</li>";
  }
  html << "</ul>\n";
  if (report.dropped_records > 0) {
    html
        << "<p><b>" << report.dropped_records
        << " record(s) were dropped while collecting</b>: figures may miss that many events.</p>\n";
  }
  BarChart(report, html);
  StepChart(report, html);
  size_t rank = 0;
  for (const advice::Finding& finding : report.findings) {
    if (finding.status == advice::RuleStatus::kTriggered) FindingSection(finding, ++rank, html);
  }
  if (rank == 0) html << "<p>No rule triggered: nothing stands out in this profile.</p>\n";
  html << "<h2>Rules that passed or could not be evaluated</h2>\n";
  std::vector<std::vector<std::string>> rest;
  for (const advice::Finding& finding : report.findings) {
    if (finding.status == advice::RuleStatus::kTriggered) continue;
    rest.push_back(
        {finding.title, std::string(advice::RuleStatusName(finding.status)), finding.detail});
  }
  Table({"rule", "status", "detail"}, rest, html);
  html << "</body></html>\n";
  std::ofstream out(path, std::ios::trunc);
  out << html.str();
  if (!out) {
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace aiprof::exporter
