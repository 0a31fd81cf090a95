// Every advice rule, one file each (rule_<name>.cc). AllRules() lists them in report order.
#pragma once

#include <string_view>
#include <vector>

#include "analysis/advice/advice.h"

namespace aiprof::analysis::advice {

const RuleDefinition& DataLoadingRule();
const RuleDefinition& HostBoundRule();
const RuleDefinition& SlowStepsRule();
const RuleDefinition& LowUtilisationRule();
const RuleDefinition& CommunicationOverlapRule();
const RuleDefinition& SlowRankRule();
const RuleDefinition& SlowLinkRule();
const RuleDefinition& MemoryRule();
const RuleDefinition& DominantOperatorsRule();
const RuleDefinition& HostSyncRule();
const RuleDefinition& KernelEfficiencyRule();
const RuleDefinition& Fp32MatmulRule();

// True for a single-precision GEMM or convolution kernel computed without Tensor Cores, by
// the names cuBLAS, CUTLASS and cuDNN give them (the patterns: rule_fp32_matmul.cc).
bool IsFp32MatmulWithoutTensorCores(std::string_view name);

const std::vector<const RuleDefinition*>& AllRules();

}  // namespace aiprof::analysis::advice
