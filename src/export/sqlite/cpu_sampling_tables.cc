#include "export/sqlite/cpu_sampling_tables.h"

#include <string_view>
#include <unordered_map>
#include <vector>

#include "export/sqlite/database.h"
#include "export/sqlite/process_key.h"
#include "format/records_cpu.h"

namespace aiprof::exporter {
namespace {

const char* const kCpuSchema = R"sql(
CREATE TABLE CPU_FUNCTIONS(id INTEGER PRIMARY KEY, name TEXT, module TEXT);
CREATE TABLE STACKS(stackId INTEGER, depth INTEGER, functionId INTEGER,
                    PRIMARY KEY(stackId, depth)) WITHOUT ROWID;
CREATE TABLE CPU_SAMPLES(timestampNs INTEGER, globalTid INTEGER, stackId INTEGER,
                         cpu INTEGER, offCpu INTEGER, kernel INTEGER);
CREATE TABLE ENUM_THREAD_STATE(id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO ENUM_THREAD_STATE VALUES(0,'Running'),(1,'Blocked'),(2,'Preempted');
CREATE TABLE THREAD_STATES(startNs INTEGER, endNs INTEGER, globalTid INTEGER, state INTEGER,
                           stackId INTEGER);
CREATE TABLE CPU_SAMPLING(globalPid INTEGER, mode TEXT, reason TEXT, frequencyHz INTEGER);
)sql";

const char* ModeName(uint16_t mode) {
  switch (static_cast<format::CpuSamplingMode>(mode)) {
    case format::CpuSamplingMode::kPerfEvent:
      return "perf_event";
    case format::CpuSamplingMode::kTimer:
      return "timer";
    default:
      return "off";
  }
}

}  // namespace

bool WriteCpuSamplingTables(Database& database, const model::Model& m,
                            const analysis::CpuProfile& profile, std::string* error) {
  sqlite3* db = database.handle();
  RowSource& rows = database.rows();
  if (sqlite3_exec(db, kCpuSchema, nullptr, nullptr, nullptr) != SQLITE_OK) {
    *error = std::string("CPU sampling tables: ") + sqlite3_errmsg(db);
    return false;
  }
  if (m.cpu.empty()) return true;
  // Model stack rows with the same symbolised frames share one stack id (stack copies give
  // every sample its own row).
  std::vector<uint32_t> stack_id(profile.stack_begin.size() - 1, 0);
  std::vector<uint32_t> distinct;  // model row of each stack id
  std::unordered_map<std::string_view, uint32_t> seen;
  for (uint32_t row = 0; row < stack_id.size(); ++row) {
    auto frames = profile.Stack(row);
    std::string_view key(reinterpret_cast<const char*>(frames.data()),
                         frames.size() * sizeof(uint32_t));
    auto [it, inserted] = seen.emplace(key, static_cast<uint32_t>(distinct.size()));
    if (inserted) distinct.push_back(row);
    stack_id[row] = it->second;
  }
  auto stack_or_null = [&](Row& r, uint32_t row) {
    if (row == UINT32_MAX) {
      r.Null();
    } else {
      r.Int(stack_id[row]);
    }
  };
  // Each table through the row source (row_source.h); the first failure stops the rest.
  auto insert = [&](const char* table, int columns, const RowGenerator& generator) {
    return rows.InsertAll(db, table, columns, generator, error);
  };
  size_t next = 0;
  bool ok = insert("CPU_FUNCTIONS", 3, [&](Row& r) {
    if (next == profile.function_name.size()) return false;
    r.Int(static_cast<int64_t>(next)).Text(profile.function_name[next]);
    r.Text(profile.function_module[next]);
    ++next;
    return true;
  });
  size_t stack = 0, depth = 0;
  ok = ok && insert("STACKS", 3, [&](Row& r) {
         while (stack < distinct.size() && depth == profile.Stack(distinct[stack]).size()) {
           ++stack;
           depth = 0;
         }
         if (stack == distinct.size()) return false;
         r.Int(static_cast<int64_t>(stack)).Int(static_cast<int64_t>(depth));
         r.Int(profile.Stack(distinct[stack])[depth]);
         ++depth;
         return true;
       });
  const model::CpuSampleTable& s = m.cpu.samples;
  next = 0;
  ok = ok && insert("CPU_SAMPLES", 6, [&](Row& r) {
         if (next == s.size()) return false;
         size_t i = next++;
         r.Int(s.ts[i]).Int(GlobalTid(m, s.thread[i]));
         stack_or_null(r, s.stack[i]);
         if (s.cpu[i] == UINT32_MAX) {
           r.Null();
         } else {
           r.Int(s.cpu[i]);
         }
         r.Int((s.flags[i] & format::kCpuSampleOffCpu) ? 1 : 0);
         r.Int((s.flags[i] & format::kCpuSampleKernelLeaf) ? 1 : 0);
         return true;
       });
  const model::ThreadStateTable& st = m.cpu.thread_states;
  next = 0;
  ok = ok && insert("THREAD_STATES", 5, [&](Row& r) {
         if (next == st.size()) return false;
         size_t i = next++;
         r.Int(st.ts[i]).Int(st.end[i]).Int(GlobalTid(m, st.thread[i]));
         r.Int(static_cast<int64_t>(st.state[i]));
         stack_or_null(r, st.stack[i]);
         return true;
       });
  const model::CpuSamplingRunTable& runs = m.cpu.runs;
  next = 0;
  ok = ok && insert("CPU_SAMPLING", 4, [&](Row& r) {
         if (next == runs.size()) return false;
         size_t i = next++;
         r.Int(GlobalPid(m, runs.process[i])).Text(ModeName(runs.mode[i]));
         r.Text(m.Str(runs.reason[i])).Int(runs.freq_hz[i]);
         return true;
       });
  if (!ok) *error = "CPU sampling tables: " + *error;
  return ok;
}

}  // namespace aiprof::exporter
