// /api/query and /api/query/schema: the Query tab's read-only SQL over the run's tables,
// the database `aiprof export --type=db` writes (docs/db-schema.md), built once on first use
// into a private temporary directory and removed with the API (query_api.cc).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "model/model.h"
#include "server/analysis_api.h"

namespace aiprof::server {

class QueryApi {
 public:
  QueryApi(const model::Model& model, const AnalysisApi& analyses, int64_t origin_ns)
      : model_(model), analyses_(analyses), origin_ns_(origin_ns) {}
  ~QueryApi();
  QueryApi(const QueryApi&) = delete;
  QueryApi& operator=(const QueryApi&) = delete;

  // At most `row_limit` rows; a statement that writes, attaches or runs longer than
  // `time_limit_ms` is refused (400).
  std::string Answer(const std::string& sql, size_t row_limit, int64_t time_limit_ms) const;
  // The database's tables and their columns, for the tab's list.
  std::string Schema() const;

 private:
  // The database's path, written on first use.
  const std::string& Database() const;

  const model::Model& model_;
  const AnalysisApi& analyses_;
  int64_t origin_ns_;
  mutable std::once_flag once_;
  mutable std::string dir_, path_, error_;
};

}  // namespace aiprof::server
