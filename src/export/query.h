// `aiprof query`: one row per PROF_* directory (job, devices, directory, collection time,
// iteration count, longest iteration, rank), like `msprof --query=on`.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace aiprof::exporter {

struct QueryRow {
  std::string job_info;
  std::string device_id;
  std::string dir_name;
  std::string collection_time;
  uint64_t iterations = 0;
  std::string top_time_iteration;
  std::string rank_id;
};

// Exit code as in src/cli/command.h; the table goes to `out`, problems to `err`.
int RunQuery(const std::vector<std::string>& inputs, std::ostream& out, std::ostream& err,
             std::vector<QueryRow>* rows = nullptr);

}  // namespace aiprof::exporter
