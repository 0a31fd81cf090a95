#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/advice/engine.h"
#include "export/advice/advice_writers.h"

namespace aiprof::exporter {

namespace advice = analysis::advice;

namespace {

// Per row, what it is about (advice.h's EvidenceTarget): {"step": id}, {"name": text},
// {"rank": r}, or null.
nlohmann::ordered_json TargetsJson(const advice::EvidenceTable& table) {
  nlohmann::ordered_json targets = nlohmann::ordered_json::array();
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const advice::EvidenceTarget target =
        i < table.targets.size() ? table.targets[i] : advice::EvidenceTarget{};
    switch (target.kind) {
      case advice::EvidenceTarget::Kind::kStep:
        targets.push_back({{"step", target.step_id}});
        break;
      case advice::EvidenceTarget::Kind::kName:
        targets.push_back({{"name", target.name}});
        break;
      case advice::EvidenceTarget::Kind::kRank:
        targets.push_back({{"rank", target.rank}});
        break;
      case advice::EvidenceTarget::Kind::kNone:
        targets.push_back(nullptr);
        break;
    }
  }
  return targets;
}

nlohmann::ordered_json FindingJson(const advice::Finding& finding) {
  nlohmann::ordered_json json;
  json["rule"] = finding.rule;
  json["title"] = finding.title;
  json["status"] = advice::RuleStatusName(finding.status);
  json["severity"] = finding.status == advice::RuleStatus::kTriggered
                         ? nlohmann::ordered_json(advice::SeverityName(finding.severity))
                         : nlohmann::ordered_json(nullptr);
  json["impact"] = finding.impact;
  json["projected_saving"] = finding.projected_saving >= 0
                                 ? nlohmann::ordered_json(finding.projected_saving)
                                 : nlohmann::ordered_json(nullptr);
  json["projection"] = finding.projection;
  json["detail"] = finding.detail;
  json["suggestion"] = finding.suggestion;
  json["reads"] = finding.reads;
  nlohmann::ordered_json thresholds = nlohmann::ordered_json::array();
  for (const advice::ThresholdSpec& spec : finding.thresholds) {
    thresholds.push_back({{"key", spec.key},
                          {"value", spec.value},
                          {"unit", spec.unit},
                          {"description", spec.description},
                          {"source", spec.source}});
  }
  json["thresholds"] = thresholds;
  nlohmann::ordered_json evidence = nlohmann::ordered_json::array();
  for (const advice::EvidenceTable& table : finding.evidence) {
    nlohmann::ordered_json entry = {
        {"title", table.title}, {"columns", table.columns}, {"rows", table.rows}};
    if (!table.targets.empty()) entry["targets"] = TargetsJson(table);
    evidence.push_back(std::move(entry));
  }
  json["evidence"] = evidence;
  return json;
}

}  // namespace

std::string AdviceJsonText(const advice::AdviceReport& report) {
  nlohmann::ordered_json json;
  json["profiles"] = report.profiles;
  json["inputs"] = report.inputs;
  json["dropped_records"] = report.dropped_records;
  json["triggered"] = report.triggered();
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const advice::Finding& finding : report.findings) findings.push_back(FindingJson(finding));
  json["findings"] = findings;
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const advice::StepTimes& times : report.step_times) {
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const auto& [step, ms] : times.steps) points.push_back({step, ms});
    steps.push_back({{"profile", times.label}, {"steps_ms", points}});
  }
  json["step_times"] = steps;
  return json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

bool WriteAdviceJson(const advice::AdviceReport& report, const std::string& path,
                     std::string* error) {
  std::ofstream out(path, std::ios::trunc);
  out << AdviceJsonText(report);
  if (!out) {
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

bool WriteProfileAdvice(const model::Model& model, const analysis::AnalysisSet& analyses,
                        const std::string& label, const std::string& path, std::string* error) {
  advice::AdviceInput input;
  input.profiles.push_back(advice::MakeProfileInput(model, analyses, label));
  return WriteAdviceJson(advice::RunAdvice(input, advice::Thresholds::Defaults()), path, error);
}

}  // namespace aiprof::exporter
