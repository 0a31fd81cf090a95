// Writes one msprof-style summary table as CSV (`{name}_{ts}.csv`, split into
// `{name}_slice_{i}_{ts}.csv` above 1,000,000 rows, as msprof does) or, with
// --summary-format=json, as `{name}_{ts}.json`: an array of objects keyed by the headers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "export/text_writer.h"

namespace aiprof::exporter {

enum class SummaryFormat { kCsv, kJson };

struct SummaryTarget {
  std::string dir;        // aiprof_output
  std::string timestamp;  // YYYYMMDDhhmmss of this export run; empty: `{name}.csv`
  SummaryFormat format = SummaryFormat::kCsv;
  std::vector<std::string>* written = nullptr;  // paths of finished files
  std::vector<std::string>* errors = nullptr;
};

inline constexpr uint64_t kCsvRowLimit = 1'000'000;

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
  SummaryWriter& NotApplicable() { return PlainText("N/A"); }
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
