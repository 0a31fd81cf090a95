// /api/compare: `aiprof ui NEW --compare BASE` shows analysis::CompareRuns' result (the
// numbers behind `aiprof compare`'s report and CSVs): the top regressions of operators and
// kernels and the step figures of both runs.
#include "server/compare_api.h"

#include <algorithm>
#include <cmath>

#include "analysis/compare/run_comparison.h"
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

// [name, type, input shape, change, base calls, base total, comparison calls, comparison
// total, diff total, total ratio (null: only the comparison has time)]; times in ns.
void AppendDeltas(std::string& out, const std::vector<analysis::NameDelta>& deltas) {
  out += '[';
  for (size_t i = 0; i < deltas.size() && i < kDeltaRows; ++i) {
    const analysis::NameDelta& d = deltas[i];
    if (i > 0) out += ',';
    out += '[';
    AppendJsonString(out, d.name);
    out += ',';
    AppendJsonString(out, d.type);
    out += ',';
    AppendJsonString(out, d.input_shape);
    out += ',';
    AppendJsonString(out, analysis::ChangeName(d.change()));
    out += ',' + std::to_string(d.base.calls) + ',' + std::to_string(d.base.total_ns) + ',' +
           std::to_string(d.comparison.calls) + ',' + std::to_string(d.comparison.total_ns) + ',' +
           std::to_string(d.diff_total_ns()) + ',';
    const double ratio = d.total_ratio();
    if (std::isfinite(ratio)) {
      AppendJsonNumber(out, ratio);
    } else {
      out += "null";
    }
    out += ']';
  }
  out += ']';
}

void AppendFigures(std::string& out, const analysis::StepFigures& figures) {
  out += '[';
  for (size_t i = 0; i < figures.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonNumber(out, figures[i]);
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
  out += ",\"step_figures\":[";
  for (size_t f = 0; f < analysis::kStepFigureCount; ++f) {
    if (f > 0) out += ',';
    AppendJsonString(out, analysis::StepFigureName(static_cast<analysis::StepFigure>(f)));
  }
  out += "],\"steps\":[";
  for (size_t i = 0; i < c.steps.size() && i < kStepRows; ++i) {
    const analysis::StepDelta& s = c.steps[i];
    if (i > 0) out += ',';
    out += "{\"device\":" + std::to_string(s.device_id) + ",\"rank\":" + std::to_string(s.rank) +
           ",\"mean\":" + (s.mean ? "true" : "false") +
           ",\"base_step\":" + std::to_string(s.base_step) +
           ",\"comparison_step\":" + std::to_string(s.comparison_step) + ",\"base\":";
    AppendFigures(out, s.base);
    out += ",\"comparison\":";
    AppendFigures(out, s.comparison);
    out += '}';
  }
  out += "]}";
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
