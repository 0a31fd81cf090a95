// The communication analysis files and tables (analysis/communication_analysis.h) in
// msprof's / torch_npu's layout (docs/analysis.md, docs/db-schema.md):
//   communication.json         {"step{N}"|"step": {"p2p"|"collective": {"<op>@<group>":
//                              {"Communication Time Info": {...}, "Communication Bandwidth
//                              Info": {<transport>: {...}}}, ..., "Total Op Info": {...}}}}
//   communication_matrix.json  {"step{N}"|"step": {"p2p"|"collective": {"<type>-top1@<group>",
//                              "-middle@", "-bottom1@", "-bottom2@", "-bottom3@", "-total@":
//                              {"<src>-<dst>": {"Transport Type", "Transit Size(MB)",
//                              "Transit Time(ms)", "Bandwidth(GB/s)", "Op Name"}}}}}
//   CommAnalyzerTime, CommAnalyzerBandwidth, CommAnalyzerMatrix (msprof's analysis tables)
// "Communication Time Info" adds "Wait Time Source" ("peers" / "not measured: ...") after
// msprof's keys, so a reader knows when the wait could not be measured.
//
// The wait of an operation needs the other ranks' operations (DerivePeerWait), and `aiprof
// export` parses one PROF_* (one rank) at a time: CommunicationOutputs keeps each exported
// rank's operations (small: a few numbers per operation, never a trace), derives the wait
// across the ranks of the same job once every directory of the run is parsed, then writes
// each rank's files beside its other analysis files (or its tables into its database).
#pragma once

#include <sqlite3.h>

#include <string>
#include <vector>

#include "analysis/communication_analysis.h"
#include "export/csv/summary_writer.h"

namespace aiprof::exporter {

std::string CommunicationJson(const analysis::CommunicationAnalysis& analysis);
std::string CommunicationMatrixJson(const analysis::CommunicationAnalysis& analysis);

// Replaces the three CommAnalyzer* tables of `db` with the analysis' rows.
bool WriteCommunicationTables(sqlite3* db, const analysis::CommunicationAnalysis& analysis,
                              std::string* error);

// Writes communication.json and communication_matrix.json into `dir` (the names are
// fixed: msprof-analyze and torch_npu use no timestamp for them).
void WriteCommunicationFiles(const analysis::CommunicationAnalysis& analysis,
                             const std::string& dir, std::vector<std::string>* written,
                             std::vector<std::string>* errors);

class CommunicationOutputs {
 public:
  // One exported rank: its files go into `dir` (text), or its tables into `database`.
  void Add(const analysis::CommunicationAnalysis& analysis, std::string dir, std::string database);
  // Derives the wait across the ranks of each job, then writes every rank's outputs.
  void Finish(std::vector<std::string>* written, std::vector<std::string>* errors);

 private:
  struct Pending {
    analysis::CommunicationAnalysis analysis;
    std::string dir;
    std::string database;
  };
  std::vector<Pending> pending_;
};

}  // namespace aiprof::exporter
