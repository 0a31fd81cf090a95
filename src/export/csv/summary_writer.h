// Writes one msprof-style summary table as CSV (`{name}_{ts}.csv`, split into
// `{name}_slice_{i}_{ts}.csv` above 1,000,000 rows, as msprof does) or, with
// --summary-format=json, as `{name}_{ts}.json`: an array of objects keyed by the headers.
// With FileNaming::kFixed (a torch_npu-style `*_pt` result folder) the files get fixed
// names instead, `{name}.csv` with no timestamp, as torch_npu names its deliverables.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "analysis/result_columns.h"
#include "export/text_writer.h"

namespace aiprof::analysis {
struct AnalysisSet;
}  // namespace aiprof::analysis

namespace aiprof::exporter {

enum class SummaryFormat { kCsv, kJson };
// kTimestamped: msprof's `{name}_{timestamp}.{ext}`; kFixed: `{name}.{ext}`, torch_npu's
// ASCEND_PROFILER_OUTPUT names (`trace_view.json`, `op_statistic.csv`, `kernel_details.csv`,
// ...), which scripts written against torch_npu results look for. Tables whose torch_npu
// file has other columns keep their msprof name (`step_trace.csv`, not step_trace_time.csv).
enum class FileNaming { kTimestamped, kFixed };

struct SummaryTarget {
  std::string dir;        // aiprof_output
  std::string timestamp;  // YYYYMMDDhhmmss of this export run; empty: `{name}.csv`
  SummaryFormat format = SummaryFormat::kCsv;
  std::vector<std::string>* written = nullptr;  // paths of finished files
  std::vector<std::string>* errors = nullptr;
  FileNaming naming = FileNaming::kTimestamped;
  // The export's analyses: the step trace and communication summaries read them instead of
  // computing them again; null (callers without an AnalysisSet): computed from the model.
  const analysis::AnalysisSet* analyses = nullptr;
};

inline constexpr uint64_t kCsvRowLimit = 1'000'000;

// The file name (no directory) of the output `stem` ("step_trace", "trace_view", ...) with
// `extension` (".csv"): `{stem}_{timestamp}{extension}`, or `{stem}{extension}` (kFixed).
std::string OutputFileName(const SummaryTarget& target, const std::string& stem,
                           const std::string& extension);

// Appends the headers of the columns the files show.
template <typename Row>
void AppendHeaders(std::vector<std::string>& headers, analysis::Columns<Row> columns) {
  for (const analysis::Column<Row>& column : columns) {
    if (column.WrittenBy(analysis::kFiles)) headers.emplace_back(column.header);
  }
}

class SummaryWriter {
 public:
  SummaryWriter(const SummaryTarget& target, std::string name, std::vector<std::string> headers,
                uint64_t expected_rows, uint64_t row_limit = kCsvRowLimit);
  ~SummaryWriter() { Finish(); }

  SummaryWriter& Text(std::string_view text);
  // Text known to need no CSV quoting (no comma, quote or newline): skips the scan.
  SummaryWriter& PlainText(std::string_view text);
  SummaryWriter& Number(int64_t value);
  SummaryWriter& Unsigned(uint64_t value);
  SummaryWriter& Real(double value);
  SummaryWriter& Micros(int64_t ns);
  // `decimals` fixed decimals ("87.500"), a number in JSON too; N/A when not finite.
  SummaryWriter& Fixed(double value, int decimals);
  SummaryWriter& NotApplicable() { return PlainText("N/A"); }
  // A step as the user names it (model/steps.h): its number, or the text "loop:number"
  // when the run has several training loops.
  SummaryWriter& Step(uint64_t step, uint32_t loop, bool several_loops);
  // A described cell (analysis/result_columns.h) as the files spell its unit: N/A when not
  // known, text, yes/no for a flag, µs with 3 decimals for a duration, time or mean, rounded
  // shares, percentages with 2 decimals, a Diff Ratio with 4 decimals or "inf", integers and
  // reals as they are.
  SummaryWriter& Cell(analysis::ColumnUnit unit, const analysis::CellValue& cell);
  // The cells of `row`'s columns that the files show, in order.
  template <typename Row>
  SummaryWriter& Cells(analysis::Columns<Row> columns, const std::type_identity_t<Row>& row) {
    for (const analysis::Column<Row>& column : columns) {
      if (column.WrittenBy(analysis::kFiles)) Cell(column.unit, column.Read(row));
    }
    return *this;
  }
  void EndRow();
  bool Finish();

 private:
  void OpenNext();
  void BeginCell(bool numeric);

  SummaryTarget target_;
  std::string name_;
  std::vector<std::string> headers_;
  bool sliced_;
  uint64_t row_limit_;
  uint64_t rows_in_file_ = 0;
  uint32_t slice_ = 0;
  size_t column_ = 0;
  bool first_row_ = true;
  std::unique_ptr<TextWriter> out_;
  std::string path_;
  bool failed_ = false;
};

}  // namespace aiprof::exporter
