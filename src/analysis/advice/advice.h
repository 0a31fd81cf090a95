// Tuning advice: rules over the analysis results of one or several profiles (ranks), each
// with a threshold from a documented source, a severity, the evidence it saw and what to
// try. The result, AdviceReport, is what `aiprof advise`, `aiprof export` (advice.json)
// and the web UI read. Rules and their thresholds: docs/advice.md.
//
// Extension point — adding a rule:
//   1. src/analysis/advice/rule_<name>.cc defining `const RuleDefinition& <Name>Rule()`:
//      its name, title, the results it reads, its thresholds (key, default, source) and an
//      Evaluate function over AdviceInput;
//   2. its declaration in rules.h and one line in AllRules() (engine.cc);
//   3. its row in docs/advice.md and unit tests at, below and above its threshold.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/advice/profile_facts.h"
#include "analysis/analysis_set.h"

namespace aiprof::analysis::advice {

// msprof-analyze advisor's red / yellow / green.
enum class Severity : uint8_t { kHigh = 0, kMedium = 1, kLow = 2 };
std::string_view SeverityName(Severity severity);  // "high", "medium", "low"

enum class RuleStatus : uint8_t {
  kTriggered,     // the threshold was crossed: advice
  kPassed,        // evaluated, below the threshold
  kNotEvaluated,  // the data the rule needs is absent; `detail` says which
};
std::string_view RuleStatusName(RuleStatus status);  // "triggered", "passed", "not evaluated"

// What an evidence row is about, so that a reader can open it on a timeline: a step (its
// model::StepTable row in the profile), an operator or kernel (by name: its longest call),
// or a rank (its processes). kNone: a row about nothing on the timeline (a total).
struct EvidenceTarget {
  enum class Kind : uint8_t { kNone, kStep, kName, kRank };
  Kind kind = Kind::kNone;
  uint32_t step_id = 0;
  std::string name;
  int32_t rank = -1;

  static EvidenceTarget Step(uint32_t id) { return {Kind::kStep, id, {}, -1}; }
  static EvidenceTarget Name(std::string text) { return {Kind::kName, 0, std::move(text), -1}; }
  static EvidenceTarget Rank(int32_t rank) { return {Kind::kRank, 0, {}, rank}; }
};

struct EvidenceTable {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  // Parallel to `rows` (shorter when the rows at its end have no target).
  std::vector<EvidenceTarget> targets;
};

// A threshold as a rule declares it; its value may be overridden by --config.
struct ThresholdSpec {
  std::string key;  // "data_loading.step_share"
  double value = 0;
  std::string unit;         // "share of step time", "µs", "bytes", "count"
  std::string description;  // what it bounds
  std::string source;       // where the default comes from
};

struct Finding {
  std::string rule;   // "data_loading"
  std::string title;  // "Data loading bound"
  RuleStatus status = RuleStatus::kNotEvaluated;
  Severity severity = Severity::kLow;  // meaningful when triggered
  // What the advice is worth, for ranking among findings of one severity: the share of
  // step (or run) time the problem concerns, 0..1.
  double impact = 0;
  // What fixing it would save (when the critical path was computed: AnalysisOptions), re-solved on
  // the steps' critical path graphs (critical_path/what_if.h): the share of step time the matching
  // projection removes, and which projection that is; -1 and "" when no projection models the
  // finding.
  double projected_saving = -1;
  std::string projection;
  std::string detail;  // one line with the measured figures (or why not evaluated)
  std::string suggestion;
  std::vector<std::string> reads;  // analysis results the rule read
  std::vector<ThresholdSpec> thresholds;
  std::vector<EvidenceTable> evidence;
};

// Threshold values by key: the rules' defaults, then the --config overrides.
class Thresholds {
 public:
  // Every rule's defaults.
  static Thresholds Defaults();
  // Reads {"<rule>": {"<name>": number}} or {"<rule>.<name>": number} from a JSON file and
  // overrides those keys. False with `error` (file, key, what to do) on a bad file, an
  // unknown key or a non-numeric value.
  bool LoadOverrides(const std::string& path, std::string* error);
  bool Set(const std::string& key, double value, std::string* error);
  // The value of a key a rule declared; throws std::out_of_range for an undeclared one (a
  // programming error, caught by the rules' tests).
  double Get(const std::string& key) const;
  const std::map<std::string, ThresholdSpec>& specs() const { return specs_; }

 private:
  std::map<std::string, ThresholdSpec> specs_;
};

// One profile (a PROF_* directory, or one rank of it) the rules look at.
struct ProfileInput {
  std::string label;  // "rank 1", or the PROF_* directory name
  int32_t rank = -1;  // -1: unknown
  const AnalysisSet* analyses = nullptr;
  ProfileFacts facts;  // what the rules read from the model beyond the analyses
};

struct AdviceInput {
  std::vector<ProfileInput> profiles;  // one per PROF_* directory given
  // Several profiles of one job (its ranks, a process and its DataLoader workers): the
  // what-if projections of the job's critical path, the profiles parsed together
  // (export/critical_path_job.h). Null with one profile, whose own projections are the job's.
  const std::vector<WhatIfSummary>* job_what_ifs = nullptr;
};

struct RuleDefinition {
  std::string name;
  std::string title;
  std::vector<std::string> reads;
  std::vector<ThresholdSpec> thresholds;
  // Fills status, severity, impact, detail, suggestion and evidence of `finding` (name,
  // title, reads and thresholds are filled by the engine).
  std::function<void(const AdviceInput&, const Thresholds&, Finding*)> evaluate;
};

// Steps per profile, for the report's chart: (step, duration ms) of the first scope.
struct StepTimes {
  std::string label;
  std::vector<std::pair<uint64_t, double>> steps;
};

struct AdviceReport {
  std::vector<std::string> profiles;  // labels, in input order
  std::vector<std::string> inputs;    // AnalysisInputs::Describe() per profile
  uint64_t dropped_records = 0;       // over all profiles: findings may miss this many
  std::vector<Finding> findings;      // triggered (by severity, then impact), passed, not evaluated
  std::vector<StepTimes> step_times;

  size_t triggered() const;
};

}  // namespace aiprof::analysis::advice
