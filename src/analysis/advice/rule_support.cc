#include "analysis/advice/rule_support.h"

#include <algorithm>

namespace aiprof::analysis::advice {
namespace {

std::string Join(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += (text.empty() ? "" : "; ") + line;
  return text;
}

}  // namespace

std::string PerProfile::Prefix(size_t profile) const {
  return input_.profiles.size() > 1 ? input_.profiles[profile].label + ": " : "";
}

void PerProfile::NotEvaluated(size_t profile, const std::string& why) {
  not_evaluated_.push_back(Prefix(profile) + why);
}

void PerProfile::Evaluated(size_t profile, double value, bool triggered,
                           const std::string& detail) {
  if (triggered) {
    ++triggered_;
    worst_ = std::max(worst_, value);
    triggered_lines_.push_back(Prefix(profile) + detail);
  } else {
    passed_.push_back(Prefix(profile) + detail);
  }
}

void PerProfile::Finish(double high) {
  if (triggered_ > 0) {
    finding_->status = RuleStatus::kTriggered;
    finding_->severity = worst_ >= high ? Severity::kHigh : Severity::kMedium;
    finding_->impact = std::min(worst_, 1.0);
    finding_->detail = Join(triggered_lines_);
  } else if (!passed_.empty()) {
    finding_->status = RuleStatus::kPassed;
    finding_->detail = Join(passed_);
  } else {
    finding_->status = RuleStatus::kNotEvaluated;
    finding_->detail = "not evaluated: " + Join(not_evaluated_);
  }
}

EvidenceTable& AddTable(Finding* finding, const std::string& title,
                        std::vector<std::string> columns) {
  for (EvidenceTable& table : finding->evidence) {
    if (table.title == title) return table;  // the next profile's rows
  }
  finding->evidence.push_back({title, std::move(columns), {}, {}});
  return finding->evidence.back();
}

void AddRow(const AdviceInput& input, size_t profile, EvidenceTable* table,
            std::vector<std::string> row, EvidenceTarget target) {
  if (input.profiles.size() > 1) {
    if (table->columns.empty() || table->columns.front() != "profile") {
      table->columns.insert(table->columns.begin(), "profile");
    }
    row.insert(row.begin(), input.profiles[profile].label);
  }
  table->rows.push_back(std::move(row));
  if (target.kind != EvidenceTarget::Kind::kNone) {
    table->targets.resize(table->rows.size() - 1);
    table->targets.push_back(std::move(target));
  }
}

}  // namespace aiprof::analysis::advice
