// Hand-built analysis results for the advice rules' unit tests: profiles whose AnalysisSet
// and ProfileFacts are filled field by field, and a helper that runs the engine and returns
// one rule's finding.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <string>

#include "analysis/advice/advice.h"
#include "analysis/advice/engine.h"

namespace aiprof::analysis::advice::testing {

class HandBuiltProfiles {
 public:
  // A new profile; its AnalysisSet lives as long as this object.
  ProfileInput& Add(const std::string& label) {
    sets_.emplace_back();
    input_.profiles.emplace_back();
    ProfileInput& profile = input_.profiles.back();
    profile.label = label;
    profile.analyses = &sets_.back();
    return profile;
  }
  AnalysisSet& Set(size_t profile) { return sets_[profile]; }
  ProfileFacts& Facts(size_t profile) { return input_.profiles[profile].facts; }
  const AdviceInput& input() const { return input_; }

  // Step rows of scope 0 (device `device`, -1: host process): one per duration, computing
  // = `computing_share` of it, the rest free; steps numbered from 0, back to back.
  void AddSteps(size_t profile, const std::vector<int64_t>& durations, double computing_share,
                int32_t device = -1) {
    AnalysisSet& set = sets_[profile];
    if (set.overlap.scopes.empty()) set.overlap.scopes.emplace_back();
    set.overlap.scopes[0].device_id = device;
    set.overlap.scopes[0].process = 0;
    int64_t at = 0;
    for (size_t i = 0; i < durations.size(); ++i) {
      StepBreakdownRow row;
      row.step_id = static_cast<uint32_t>(i);
      row.step = i;
      row.device_id = device;
      row.begin_ns = at;
      row.host_end_ns = at + durations[i];
      row.end_ns = at + durations[i];
      row.computing_ns = static_cast<int64_t>(static_cast<double>(durations[i]) * computing_share);
      row.free_ns = durations[i] - row.computing_ns;
      row.has_tasks = true;
      set.step_breakdown.rows.push_back(row);
      set.steps.steps.push_back({static_cast<uint32_t>(i), i, 0, 0, 0, at, at + durations[i]});
      at += durations[i];
    }
    set.steps.source = StepSource::kStepRecords;
    set.inputs.steps = durations.size();
    set.inputs.device_run = device >= 0;
    set.overlap.device_run = device >= 0;
  }

 private:
  std::deque<AnalysisSet> sets_;
  AdviceInput input_;
};

// One kernel name's facts; -1 (or "") where the launch shape is not recorded.
inline KernelShape Shape(std::string name, uint64_t count, int64_t total_ns,
                         double blocks_per_sm = -1, double occupancy_pct = -1,
                         double theoretical_occupancy_pct = -1, std::string limit = "") {
  return {std::move(name),           count,           total_ns, blocks_per_sm, occupancy_pct,
          theoretical_occupancy_pct, std::move(limit)};
}

inline Finding Evaluate(const AdviceInput& input, const std::string& rule,
                        const Thresholds& thresholds = Thresholds::Defaults()) {
  AdviceReport report = RunAdvice(input, thresholds);
  for (const Finding& finding : report.findings) {
    if (finding.rule == rule) return finding;
  }
  ADD_FAILURE() << "no rule " << rule;
  return {};
}

}  // namespace aiprof::analysis::advice::testing
