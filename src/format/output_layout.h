// The names of the folders aiprof writes, in one place (docs/internals.md, "Output
// directory"): every writer and every reader (the parser skipping exported folders, the
// compare and cluster jobs finding a run) spells them through these constants.
//
//   <output>/PROF_{seq}_{time}_{id}/          kProfDirPrefix: one per process and window
//   ├── host/data/aiprof.<pid>.data           kHostDataDir: the runtime's raw file
//   ├── host/data/host_sys.<pid>.data         the launcher's host samples
//   └── aiprof_output/                        kExportDir: exported files
//       ├── analysis/                         kAnalysisDir: analysis files, advice
//       └── compare/                          kCompareDir: `aiprof compare` files
//   <-d folder>/cluster_analysis_output/      kClusterOutputDir: `aiprof cluster`
#pragma once

#include <string>

namespace aiprof::format {

inline constexpr const char* kProfDirPrefix = "PROF_";
inline constexpr const char* kHostDataDir = "host/data";  // relative to the PROF_* directory
inline constexpr const char* kExportDir = "aiprof_output";
inline constexpr const char* kAnalysisDir = "analysis";  // inside kExportDir
inline constexpr const char* kCompareDir = "compare";    // inside kExportDir
inline constexpr const char* kClusterOutputDir = "cluster_analysis_output";

// `host/data/aiprof.<pid>.data`: the raw file of process `pid`, relative to its PROF_*.
inline std::string RuntimeDataFile(long pid) {
  return std::string(kHostDataDir) + "/aiprof." + std::to_string(pid) + ".data";
}
// `host/data/host_sys.<pid>.data`: the launcher's (process `pid`) host samples.
inline std::string HostSamplesDataFile(long pid) {
  return std::string(kHostDataDir) + "/host_sys." + std::to_string(pid) + ".data";
}

}  // namespace aiprof::format
