// /api/compare: `aiprof ui NEW --compare BASE` shows analysis::CompareRuns' result (the
// numbers behind `aiprof compare`'s report and CSVs): the top regressions of operators and
// kernels and the step figures of both runs, each row an object of its described columns
// (analysis/compare/compare_columns.h; times in ns, a ratio null when infinite).
#include "server/compare_api.h"

#include <utility>

#include "analysis/compare/compare_columns.h"
#include "server/described_json.h"
#include "server/json_text.h"

namespace aiprof::server {
namespace {

constexpr size_t kDeltaRows = 200;  // per table, largest regression first
constexpr size_t kStepRows = 1000;

void AppendRun(std::string& out, const analysis::ComparedRun& run) {
  out += "{\"label\":";
  AppendJsonString(out, run.label);
  out += ",\"steps\":" + std::to_string(run.steps) + ",\"step_source\":";
  AppendJsonString(out, analysis::StepSourceName(run.step_source));
  out += ",\"device_run\":";
  out += run.device_run ? "true" : "false";
  out += ",\"dropped_records\":" + std::to_string(run.dropped_records) + "}";
}

// Each delta as an object of the UI's columns of analysis::kNameDeltaColumns.
void AppendDeltas(std::string& out, const std::vector<analysis::NameDelta>& deltas) {
  out += '[';
  for (size_t i = 0; i < deltas.size() && i < kDeltaRows; ++i) {
    if (i > 0) out += ',';
    AppendObject<analysis::NameDelta>(out, "", analysis::kNameDeltaColumns, deltas[i], 0);
  }
  out += ']';
}

// Each figure's name and the keys of its base, comparison and diff columns in a step row.
void AppendStepFigures(std::string& out) {
  using analysis::StepColumnSide;
  out += '[';
  for (size_t f = 0; f < analysis::kStepFigureCount; ++f) {
    const auto figure = static_cast<analysis::StepFigure>(f);
    if (f > 0) out += ',';
    out += "{\"name\":";
    AppendJsonString(out, analysis::StepFigureName(figure));
    for (const auto& [name, side] : {std::pair{"base", StepColumnSide::kBase},
                                     std::pair{"comparison", StepColumnSide::kComparison},
                                     std::pair{"diff", StepColumnSide::kDiff}}) {
      out += ",\"";
      out += name;
      out += "\":";
      AppendJsonString(out, analysis::StepFigureColumn(side, figure).key);
    }
    out += '}';
  }
  out += ']';
}

// A step row: its scope and steps (numbers, or each side's count for a mean row), then the
// UI's columns of analysis::kStepDeltaColumns.
void AppendSteps(std::string& out, const std::vector<analysis::StepDelta>& steps) {
  out += '[';
  for (size_t i = 0; i < steps.size() && i < kStepRows; ++i) {
    const analysis::StepDelta& s = steps[i];
    if (i > 0) out += ',';
    const std::string own = "\"device\":" + std::to_string(s.device_id) +
                            ",\"rank\":" + std::to_string(s.rank) +
                            ",\"mean\":" + (s.mean ? "true" : "false") +
                            ",\"base_step\":" + std::to_string(s.base_step) +
                            ",\"comparison_step\":" + std::to_string(s.comparison_step) +
                            ",\"base_steps\":" + std::to_string(s.base_steps) +
                            ",\"comparison_steps\":" + std::to_string(s.comparison_steps);
    AppendObject<analysis::StepDelta>(out, own, analysis::kStepDeltaColumns, s, 0);
  }
  out += ']';
}

std::string ComparisonJson(const analysis::RunComparison& c) {
  std::string out = "{\"missing\":null,\"base\":";
  AppendRun(out, c.base);
  out += ",\"comparison\":";
  AppendRun(out, c.comparison);
  out += ",\"notes\":[";
  for (size_t i = 0; i < c.notes.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, c.notes[i]);
  }
  out += "],\"operator_names\":" + std::to_string(c.operators.size()) +
         ",\"kernel_names\":" + std::to_string(c.kernels.size()) + ",\"operators\":";
  AppendDeltas(out, c.operators);
  out += ",\"kernels\":";
  AppendDeltas(out, c.kernels);
  out += ",\"step_figures\":";
  AppendStepFigures(out);
  out += ",\"steps\":";
  AppendSteps(out, c.steps);
  out += '}';
  return out;
}

}  // namespace

void CompareApi::SetBase(model::Model base, std::vector<std::string> base_dirs) {
  base_model_ = std::make_unique<model::Model>(std::move(base));
  base_dirs_ = std::move(base_dirs);
}

const std::string& CompareApi::Answer() const {
  return json_.Get([this]() -> std::string {
    if (!base_model_) {
      return "{\"missing\":\"No comparison: start the UI with a base run to compare this one "
             "with: aiprof ui <this run> --compare <base run> (the same comparison as aiprof "
             "compare).\"}";
    }
    // The base's analyses are needed only here; they and its model go once compared.
    const analysis::AnalysisSet base_analyses = analysis::RunAnalyses(*base_model_);
    analysis::RunComparison comparison =
        analysis::CompareRuns(*base_model_, base_analyses, model_, analyses_.Analyses());
    comparison.base.label = base_dirs_.size() == 1 ? base_dirs_.front()
                                                   : std::to_string(base_dirs_.size()) +
                                                         " PROF_* dirs from " + base_dirs_.front();
    comparison.comparison.label =
        prof_dirs_.size() == 1 ? prof_dirs_.front()
                               : std::to_string(prof_dirs_.size()) + " PROF_* dirs from " +
                                     (prof_dirs_.empty() ? std::string() : prof_dirs_.front());
    base_model_.reset();
    return ComparisonJson(comparison);
  });
}

}  // namespace aiprof::server
