// Communication not overlapped: the steps' time spent communicating while nothing computes
// (msprof's Communication(Not Overlapped) from the step breakdown). TensorBoard's PyTorch
// profiler plugin recommends gradient compression / accumulation / bigger batches once
// communication exceeds 10% of the step (trace-analysis-and-ui.md §2.3, rule 4).
// Evidence per collective (collective_exposure.h): the operations most exposed, with their
// name, group, size and step; and for all-reduces (DDP's gradient buckets, bucket_cap_mb 25
// by default) whether many small buckets (latency per call) or one huge exposed bucket (it
// starts only when backward ends) are the shape to change.
#include <map>

#include "analysis/advice/collective_exposure.h"
#include "analysis/advice/evidence.h"
#include "analysis/advice/rule_support.h"
#include "analysis/advice/rules.h"
#include "analysis/advice/step_view.h"

namespace aiprof::analysis::advice {
namespace {

struct ScopeTotals {
  int32_t device = -1;
  int64_t communication = 0, not_overlapped = 0, window = 0;
};

constexpr size_t kMostExposedRows = 10;
constexpr double kMiB = 1024.0 * 1024.0;

std::string Size(int64_t bytes) {
  return bytes > 0 ? Bytes(bytes) : "unknown";
}

std::string Describe(const ExposedCollective& row) {
  const CommOpTiming& op = *row.op;
  return op.name + " (group " + op.group + ", " + Size(op.bytes) +
         (op.step >= 0 ? ", step " + std::to_string(op.step) : "") + ") " + Ms(row.exposed_ns) +
         " exposed";
}

enum class BucketShape { kFine, kSmall, kLarge };

struct BucketLimits {
  double small_bytes, small_count, large_bytes, large_exposed_share;
};

BucketShape Judge(const AllReduceBuckets& buckets, const BucketLimits& limits) {
  if (buckets.count == 0) return BucketShape::kFine;
  if (buckets.largest != nullptr &&
      static_cast<double>(buckets.largest->op->bytes) > limits.large_bytes &&
      buckets.largest->exposed_share() > limits.large_exposed_share) {
    return BucketShape::kLarge;
  }
  if (buckets.per_step >= limits.small_count &&
      static_cast<double>(buckets.median_bytes) < limits.small_bytes) {
    return BucketShape::kSmall;
  }
  return BucketShape::kFine;
}

void AddCollectiveEvidence(const AdviceInput& input, size_t p,
                           const std::vector<ExposedCollective>& exposed,
                           const AllReduceBuckets& buckets, BucketShape shape, Finding* finding) {
  for (size_t i = 0; i < exposed.size() && i < kMostExposedRows; ++i) {
    const ExposedCollective& row = exposed[i];
    if (row.exposed_ns <= 0) break;
    const CommOpTiming& op = *row.op;
    EvidenceTable& most =
        AddTable(finding, "Most exposed collectives",
                 {"operation", "group", "size", "step", "duration", "exposed", "exposed share"});
    AddRow(input, p, &most,
           {op.name, op.group, Size(op.bytes), op.step >= 0 ? std::to_string(op.step) : "",
            Ms(row.duration_ns), Ms(row.exposed_ns), Percent(row.exposed_share())});
  }
  if (buckets.count == 0) return;
  EvidenceTable& table = AddTable(finding, "All-reduce buckets",
                                  {"all-reduces", "per step (median)", "median size", "largest",
                                   "largest exposed share", "exposed", "bucket shape"});
  AddRow(input, p, &table,
         {std::to_string(buckets.count), Fixed(buckets.per_step, 0), Bytes(buckets.median_bytes),
          Bytes(buckets.largest->op->bytes), Percent(buckets.largest->exposed_share()),
          Ms(buckets.exposed_ns),
          shape == BucketShape::kSmall   ? "many small: raise bucket_cap_mb"
          : shape == BucketShape::kLarge ? "one large, exposed: lower bucket_cap_mb"
                                         : "ok"});
}

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const double limit = thresholds.Get("communication_overlap.step_share");
  const BucketLimits bucket_limits{thresholds.Get("communication_overlap.small_bucket_mb") * kMiB,
                                   thresholds.Get("communication_overlap.small_bucket_count"),
                                   thresholds.Get("communication_overlap.large_bucket_mb") * kMiB,
                                   thresholds.Get("communication_overlap.large_exposed_share")};
  bool small_buckets = false, large_bucket = false;
  PerProfile outcome(input, finding);
  for (size_t p = 0; p < input.profiles.size(); ++p) {
    const ProfileInput& profile = input.profiles[p];
    const AnalysisSet& set = *profile.analyses;
    if (set.communication.ops.empty()) {
      outcome.NotEvaluated(p, "no communication operations");
      continue;
    }
    std::map<uint32_t, ScopeTotals> scopes;
    for (const StepBreakdownRow& row : set.step_breakdown.rows) {
      if (row.communication_ns == 0) continue;
      ScopeTotals& totals = scopes[row.scope];
      totals.device = row.device_id;
      totals.communication += row.communication_ns;
      totals.not_overlapped += row.communication_not_overlapped_ns;
      totals.window += StepDurationNs(row);
    }
    if (scopes.empty()) {
      outcome.NotEvaluated(p, "no communication inside the steps");
      continue;
    }
    double worst = 0;
    for (const auto& [scope, totals] : scopes) {
      if (totals.window > 0) {
        worst = std::max(
            worst, static_cast<double>(totals.not_overlapped) / static_cast<double>(totals.window));
      }
    }
    const bool triggered = worst > limit;
    std::string detail = "communication not hidden under compute takes " + Percent(worst) +
                         " of the step (threshold " + Percent(limit) + ")";
    if (!triggered) {
      outcome.Evaluated(p, worst, false, detail);
      continue;
    }
    const std::vector<ExposedCollective> exposed = ExposedCollectives(set);
    if (!exposed.empty() && exposed[0].exposed_ns > 0) {
      detail += "; most exposed: " + Describe(exposed[0]);
    }
    outcome.Evaluated(p, worst, true, detail);
    EvidenceTable& table = AddTable(
        finding, "Communication per scope",
        {"scope", "communication", "not overlapped", "steps time", "not overlapped share"});
    for (const auto& [scope, totals] : scopes) {
      AddRow(input, p, &table,
             {totals.device >= 0 ? "GPU " + std::to_string(totals.device) : "host process",
              Ms(totals.communication), Ms(totals.not_overlapped), Ms(totals.window),
              Percent(totals.window > 0 ? static_cast<double>(totals.not_overlapped) /
                                              static_cast<double>(totals.window)
                                        : 0)});
    }
    EvidenceTable& ops = AddTable(finding, "Collectives by total time",
                                  {"operation", "count", "total", "mean", "bytes"});
    for (const CollectiveTime& op : profile.facts.collectives) {
      AddRow(input, p, &ops,
             {op.name, std::to_string(op.count), Ms(op.total_ns),
              Ms(op.total_ns / static_cast<int64_t>(op.count)),
              op.bytes > 0 ? Bytes(op.bytes) : "unknown"});
    }
    const AllReduceBuckets buckets = SummariseAllReduces(exposed);
    const BucketShape shape = Judge(buckets, bucket_limits);
    small_buckets |= shape == BucketShape::kSmall;
    large_bucket |= shape == BucketShape::kLarge;
    AddCollectiveEvidence(input, p, exposed, buckets, shape, finding);
  }
  outcome.Finish(thresholds.Get("communication_overlap.high_share"));
  if (outcome.any_triggered()) {
    finding->suggestion =
        "Overlap communication with compute: let DDP/FSDP bucket gradients so all-reduces run "
        "during backward (tune bucket_cap_mb), avoid synchronising collectives in the step "
        "(barrier, blocking recv); reduce traffic with gradient accumulation, compression "
        "hooks or a larger batch per rank.";
    if (small_buckets) {
      finding->suggestion +=
          " Many small all-reduces per step: raise DDP's bucket_cap_mb (default 25) so "
          "gradients travel in fewer, larger buckets (each call pays a fixed latency).";
    }
    if (large_bucket) {
      finding->suggestion +=
          " One large all-reduce runs after backward, exposed: lower DDP's bucket_cap_mb so "
          "it splits into buckets that start while backward still computes.";
    }
  }
}

}  // namespace

const RuleDefinition& CommunicationOverlapRule() {
  static const RuleDefinition rule{
      "communication_overlap",
      "Communication not overlapped",
      {"step_breakdown", "overlap", "communication"},
      {{"communication_overlap.step_share", 0.10, "share of step time",
        "Communication(Not Overlapped) above which communication is exposed",
        "TensorBoard PyTorch profiler plugin: Communication / step > 0.10 "
        "(trace-analysis-and-ui.md §2.3, 4)"},
       {"communication_overlap.high_share", 0.30, "share of step time",
        "exposed communication from which the advice is high severity", "aiprof's choice"},
       {"communication_overlap.small_bucket_mb", 4, "MiB",
        "median all-reduce size below which buckets are small (with small_bucket_count per step)",
        "aiprof's choice (DDP's bucket_cap_mb default is 25, PyTorch DistributedDataParallel)"},
       {"communication_overlap.small_bucket_count", 4, "all-reduces per step",
        "median all-reduces per step from which small buckets are advised against",
        "aiprof's choice"},
       {"communication_overlap.large_bucket_mb", 100, "MiB",
        "all-reduce size above which one bucket is large (4 × DDP's default bucket_cap_mb)",
        "aiprof's choice"},
       {"communication_overlap.large_exposed_share", 0.5, "share of the operation",
        "exposed part of the largest all-reduce above which a smaller bucket is advised",
        "aiprof's choice"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
