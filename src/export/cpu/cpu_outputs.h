// CPU sampling outputs of `aiprof export` (docs/cpu-sampling.md), written when the model
// holds CPU samples: cpu_sampling_summary (top functions self/total per thread),
// cpu_stacks / offcpu_stacks (folded `frame;frame;... count`), cpu_flamegraph (standalone
// SVG) and cpu_profile (pprof profile.proto, gzip). All read one symbolised CpuProfile.
#pragma once

#include <map>
#include <string>

#include "analysis/cpu_profile/cpu_profile.h"
#include "export/csv/summary_writer.h"
#include "model/model.h"

namespace aiprof::exporter {

void WriteCpuSamplingOutputs(const model::Model& model, const SummaryTarget& target);

// Standalone flame graph (SVG, no script or network) of folded stacks.
bool WriteFlameGraphSvg(const std::map<std::string, uint64_t>& folded, const std::string& title,
                        const std::string& unit, const std::string& path, std::string* error);

// pprof profile.proto, gzip-compressed: one sample per distinct (thread, stack) with the
// sample count and CPU time (count × sampling period), a location per distinct function.
bool WritePprofProfile(const model::Model& model, const analysis::CpuProfile& profile,
                       const std::string& path, std::string* error);

}  // namespace aiprof::exporter
