// The communication analysis files and tables (analysis/communication_analysis.h) in
// msprof's / torch_npu's layout (docs/analysis.md, docs/db-schema.md):
//   communication.json         {"step{N}"|"step": {"p2p"|"collective": {"<op>@<group>":
//                              {"Communication Time Info": {...}, "Communication Bandwidth
//                              Info": {<transport>: {...}}}, ..., "Total Op Info": {...}}}}
//   communication_matrix.json  {"step{N}"|"step": {"p2p"|"collective": {"<type>-top1@<group>",
//                              "-middle@", "-bottom1@", "-bottom2@", "-bottom3@", "-total@":
//                              {"<src>-<dst>": {"Transport Type", "Transit Size(MB)",
//                              "Transit Time(ms)", "Bandwidth(GB/s)", "Op Name"}}}}}
//   CommAnalyzerTime, CommAnalyzerBandwidth, CommAnalyzerMatrix (msprof's analysis tables,
//                              export/sqlite/communication_analysis_tables.h)
// "Communication Time Info" adds "Wait Time Source" ("peers" / "not measured: ...") after
// msprof's keys, so a reader knows when the wait could not be measured.
//
// The wait of an operation needs the other ranks' operations (DerivePeerWait), and `aiprof
// export` parses one PROF_* (one rank) at a time: CommunicationOutputs keeps each exported
// rank's operations (small: a few numbers per operation, never a trace), derives the wait
// across the ranks of the same job once every directory of the run is parsed, then writes
// each rank's files beside its other analysis files (or its tables into its database).
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/communication_analysis.h"
#include "export/csv/summary_writer.h"
#include "model/steps.h"

namespace aiprof::exporter {

std::string CommunicationJson(const analysis::CommunicationAnalysis& analysis);
std::string CommunicationMatrixJson(const analysis::CommunicationAnalysis& analysis);

// msprof's step key: "step<N>", "step" outside every step; "step<L:N>" when the run has
// several training loops (model/steps.h).
template <typename Row>
std::string CommunicationStepKey(const Row& row, bool several_loops) {
  return row.step >= 0 ? "step" + model::FormatStepLabel(several_loops, row.loop,
                                                         static_cast<uint64_t>(row.step))
                       : "step";
}
// Where an operation's wait comes from: "peers", or why it was not measured.
std::string WaitSourceText(const analysis::CommOpTiming& op,
                           const analysis::CommunicationAnalysis& analysis);

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
  // Finish, listing what it wrote on `out` and its errors on `err` after "`command`: ";
  // false when any failed.
  bool FinishAndReport(std::string_view command, std::vector<std::string>* written,
                       std::ostream& out, std::ostream& err);

 private:
  struct Pending {
    analysis::CommunicationAnalysis analysis;
    std::string dir;
    std::string database;
  };
  std::vector<Pending> pending_;
};

}  // namespace aiprof::exporter
