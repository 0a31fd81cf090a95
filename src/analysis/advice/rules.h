// Every advice rule, one file each (rule_<name>.cc). AllRules() lists them in report order.
#pragma once

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

const std::vector<const RuleDefinition*>& AllRules();

}  // namespace aiprof::analysis::advice
