#include "export/csv/summary_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/steps.h"

namespace aiprof::exporter {

std::string OutputFileName(const SummaryTarget& target, const std::string& stem,
                           const std::string& extension) {
  if (target.naming == FileNaming::kFixed || target.timestamp.empty()) return stem + extension;
  return stem + "_" + target.timestamp + extension;
}

SummaryWriter::SummaryWriter(const SummaryTarget& target, std::string name,
                             std::vector<std::string> headers, uint64_t expected_rows,
                             uint64_t row_limit)
    : target_(target),
      name_(std::move(name)),
      headers_(std::move(headers)),
      sliced_(target.format == SummaryFormat::kCsv && expected_rows > row_limit),
      row_limit_(row_limit) {
  OpenNext();
}

void SummaryWriter::OpenNext() {
  if (out_) Finish();
  failed_ = false;
  bool csv = target_.format == SummaryFormat::kCsv;
  std::string stem = sliced_ ? name_ + "_slice_" + std::to_string(slice_++) : name_;
  path_ = target_.dir + "/" + OutputFileName(target_, stem, csv ? ".csv" : ".json");
  out_ = std::make_unique<TextWriter>();
  std::string error;
  if (!out_->Open(path_, &error)) {
    if (target_.errors) target_.errors->push_back(error);
    failed_ = true;
  }
  rows_in_file_ = 0;
  first_row_ = true;
  if (csv) {
    for (size_t i = 0; i < headers_.size(); ++i) {
      if (i > 0) out_->Char(',');
      out_->CsvField(headers_[i]);
    }
    out_->Char('\n');
  } else {
    out_->Char('[');
  }
}

void SummaryWriter::BeginCell(bool numeric) {
  (void)numeric;
  if (column_ == 0 && sliced_ && rows_in_file_ >= row_limit_) OpenNext();
  if (target_.format == SummaryFormat::kCsv) {
    if (column_ > 0) out_->Char(',');
  } else {
    if (column_ == 0) out_->Raw(first_row_ ? "\n{" : ",\n{");
    if (column_ > 0) out_->Char(',');
    out_->JsonString(column_ < headers_.size() ? headers_[column_] : "").Char(':');
  }
  ++column_;
}

SummaryWriter& SummaryWriter::Text(std::string_view text) {
  BeginCell(false);
  if (target_.format == SummaryFormat::kCsv) {
    out_->CsvField(text);
  } else {
    out_->JsonString(text);
  }
  return *this;
}

SummaryWriter& SummaryWriter::PlainText(std::string_view text) {
  BeginCell(false);
  if (target_.format == SummaryFormat::kCsv) {
    out_->Raw(text);
  } else {
    out_->JsonString(text);
  }
  return *this;
}

SummaryWriter& SummaryWriter::Number(int64_t value) {
  BeginCell(true);
  out_->Int(value);
  return *this;
}

SummaryWriter& SummaryWriter::Unsigned(uint64_t value) {
  BeginCell(true);
  out_->UInt(value);
  return *this;
}

SummaryWriter& SummaryWriter::Step(uint64_t step, uint32_t loop, bool several_loops) {
  return several_loops ? PlainText(model::FormatStepLabel(true, loop, step)) : Unsigned(step);
}

SummaryWriter& SummaryWriter::Real(double value) {
  BeginCell(true);
  out_->Double(value);
  return *this;
}

SummaryWriter& SummaryWriter::Micros(int64_t ns) {
  BeginCell(true);
  // msprof writes µs as 3-decimal strings; JSON keeps them as numbers.
  out_->Micros(ns);
  return *this;
}

SummaryWriter& SummaryWriter::Fixed(double value, int decimals) {
  if (!std::isfinite(value)) return NotApplicable();
  BeginCell(true);
  char text[64];
  int length = std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  out_->Raw(std::string_view(text, static_cast<size_t>(std::max(0, length))));
  return *this;
}

SummaryWriter& SummaryWriter::Cell(analysis::ColumnUnit unit, const analysis::CellValue& cell) {
  using analysis::ColumnUnit;
  const bool time = analysis::WrittenAsMicros(unit);
  switch (cell.kind) {
    case analysis::CellValue::kNull:
      return NotApplicable();
    case analysis::CellValue::kText:
      return Text(cell.text);
    case analysis::CellValue::kInteger:
      if (unit == ColumnUnit::kFlag) return PlainText(cell.integer != 0 ? "yes" : "no");
      if (time) return Micros(cell.integer);
      if (!analysis::HeldAsReal(unit)) return Number(cell.integer);
      break;
    case analysis::CellValue::kReal:
      if (time) return Micros(std::llround(cell.real));
      break;
  }
  const double value = analysis::ScaledValue(unit, cell);
  switch (unit) {
    case ColumnUnit::kPercentage:
      return Fixed(value, 2);
    case ColumnUnit::kMeanNanoseconds:
      return Fixed(value, 3);
    case ColumnUnit::kDiffRatio:
      if (std::isinf(value)) return PlainText(value > 0 ? "inf" : "-inf");
      return Fixed(value, 4);
    default:
      return Real(analysis::RealValue(unit, cell));
  }
}

void SummaryWriter::EndRow() {
  if (target_.format == SummaryFormat::kCsv) {
    out_->Char('\n');
  } else {
    out_->Char('}');
  }
  column_ = 0;
  first_row_ = false;
  ++rows_in_file_;
}

bool SummaryWriter::Finish() {
  if (!out_) return !failed_;
  if (target_.format == SummaryFormat::kJson) out_->Raw("\n]\n");
  bool ok = out_->Close() && !failed_;
  if (!ok && target_.errors && !out_->error().empty()) target_.errors->push_back(out_->error());
  if (ok && target_.written) target_.written->push_back(path_);
  out_.reset();
  return ok;
}

}  // namespace aiprof::exporter
