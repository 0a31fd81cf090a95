// The CPU sampling tables of the SQLite export (docs/db-schema.md): CPU_FUNCTIONS (the
// symbolised functions), STACKS (each distinct symbolised stack, one row per frame),
// CPU_SAMPLES (one row per sample), THREAD_STATES (from the kernel's switch records) and
// CPU_SAMPLING (which mode ran per process). All from the AnalysisSet's one CpuProfile.
#pragma once

#include <string>

#include "analysis/cpu_profile/cpu_profile.h"
#include "model/model.h"

namespace aiprof::exporter {

class Database;  // database.h

// Creates the tables (always, so a query finds them empty rather than missing) and fills
// them inside the caller's transaction.
bool WriteCpuSamplingTables(Database& database, const model::Model& model,
                            const analysis::CpuProfile& profile, std::string* error);

}  // namespace aiprof::exporter
