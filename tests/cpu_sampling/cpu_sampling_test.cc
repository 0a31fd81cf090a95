// End to end: `aiprof --sys-cpu-profiling=on [--host-sys=osrt] app`, then the model and
// the symbolised profile of what it wrote. No timing upper bounds: only the known shares
// of CPU time (by thread CPU clock, so a busy machine does not change them) and waits
// that last at least the known sleeps.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/cpu_profile/cpu_profile.h"
#include "cli/cli_runner.h"
#include "cpu_sampling/pprof_reader.h"
#include "format/records_cpu.h"
#include "model/parser.h"

namespace aiprof {
namespace {

namespace fs = std::filesystem;
using testing::BuildDir;
using testing::RunShell;

struct Collected {
  std::string output;                // aiprof's stdout and stderr
  std::vector<model::Model> models;  // one per PROF_* directory (process)
};

// `inspect`, when given, runs on the output directory before it is removed.
Collected Collect(const std::string& env, const std::string& options, const std::string& app,
                  const std::string& mode,
                  const std::function<void(const std::string& dir)>& inspect = {}) {
  std::string label = mode;
  std::replace(label.begin(), label.end(), ' ', '_');
  std::string dir = (fs::temp_directory_path() /
                     ("aiprof_cpu_" + std::to_string(getpid()) + "_" + app + "_" + label))
                        .string();
  fs::remove_all(dir);
  Collected result;
  auto run = RunShell(env + " " + BuildDir() + "/bin/aiprof --output=" + dir + " " + options + " " +
                      BuildDir() + "/bin/" + app + " " + mode);
  result.output = run.output;
  EXPECT_EQ(run.exit_code, 0) << run.output;
  std::string error;
  for (const std::string& prof : model::FindProfDirs(dir, &error)) {
    result.models.push_back(model::ParseFiles(model::ListRawFiles(prof)));
  }
  if (inspect) inspect(dir);
  fs::remove_all(dir);
  return result;
}

const model::Model* LaunchedProcess(const Collected& c) {
  // The app's own process: the one with two busy threads (main and worker, about half of its
  // samples each; aiprof's writer thread has ~1% beside them). "The first model with samples
  // from two threads" also matched the forked child (its thread and the writer's) whenever its
  // PROF_* directory sorted first: a full ctest run failed on a model of 300 samples, 298 of
  // them in HotLoop, the child's 300 ms.
  for (const model::Model& m : c.models) {
    std::map<uint32_t, size_t> per_thread;
    for (uint32_t thread : m.cpu.samples.thread) ++per_thread[thread];
    size_t busy = 0;
    for (const auto& [thread, count] : per_thread) busy += count * 5 >= m.cpu.samples.size();
    if (busy >= 2) return &m;
  }
  return nullptr;
}

void ExpectHotLoopOnTop(const model::Model& m, const std::string& what) {
  analysis::CpuProfile profile = analysis::SymbolizeCpuProfile(m);
  std::vector<analysis::ThreadCpuCost> costs = analysis::CpuCostByThread(m, profile);
  ASSERT_FALSE(costs.empty());
  const analysis::ThreadCpuCost& all = costs.back();
  ASSERT_GT(all.samples, 100u) << what;
  ASSERT_FALSE(all.functions.empty());
  const analysis::FunctionCost& top = all.functions[0];
  EXPECT_EQ(profile.function_name[top.function].rfind("(anonymous namespace)::HotLoop", 0), 0u)
      << what << ": top is " << profile.function_name[top.function];
  double share = static_cast<double>(top.self) / static_cast<double>(all.samples);
  EXPECT_GT(share, 0.60) << what;
  EXPECT_LT(share, 0.80) << what;
}

TEST(CpuSampling, HotFunctionWithFramePointers) {
  Collected c =
      Collect("", "--sys-cpu-profiling=on --sys-cpu-freq=499", "cpu_sampling_app_fp", "hot");
  EXPECT_NE(c.output.find("CPU sampling: perf_event"), std::string::npos) << c.output;
  const model::Model* m = LaunchedProcess(c);
  ASSERT_NE(m, nullptr) << "no process with samples from two threads: " << c.output;
  ExpectHotLoopOnTop(*m, "frame pointers");
  // Frame-pointer chains: SpinFor is reached through ColdLoop, so ColdLoop's total holds
  // SpinFor's samples.
  analysis::CpuProfile profile = analysis::SymbolizeCpuProfile(*m);
  std::vector<analysis::ThreadCpuCost> costs = analysis::CpuCostByThread(*m, profile);
  const analysis::ThreadCpuCost& all = costs.back();
  uint64_t spin_self = 0, cold_total = 0;
  for (const analysis::FunctionCost& f : all.functions) {
    const std::string& name = profile.function_name[f.function];
    if (name.find("SpinFor") != std::string::npos) spin_self = f.self;
    if (name.find("ColdLoop") != std::string::npos) cold_total = f.total;
  }
  EXPECT_GT(spin_self, 0u);
  EXPECT_GE(cold_total, spin_self * 9 / 10);
  // The forked child is sampled in its own process.
  bool child_sampled = false;
  for (const model::Model& other : c.models) {
    if (&other != m && other.cpu.samples.size() > 20) child_sampled = true;
  }
  EXPECT_TRUE(child_sampled) << c.models.size() << " processes";
  // Folded stacks name the hot function.
  auto folded = analysis::FoldedStacks(*m, profile, false);
  bool hot_stack = false;
  for (const auto& [stack, count] : folded) {
    if (stack.find("HotLoop") != std::string::npos && stack.find("main") != std::string::npos) {
      hot_stack = true;
    }
  }
  EXPECT_TRUE(hot_stack);
}

TEST(CpuSampling, HotFunctionWithoutFramePointers) {
  Collected c =
      Collect("", "--sys-cpu-profiling=on --sys-cpu-freq=499", "cpu_sampling_app_nofp", "hot");
  const model::Model* m = LaunchedProcess(c);
  ASSERT_NE(m, nullptr) << c.output;
  ExpectHotLoopOnTop(*m, "no frame pointers");
}

// DWARF unwinding of copied user stacks: the same program without frame pointers gets its
// callers back (HotLoop under Work under main; SpinFor under ColdLoop).
TEST(CpuSampling, WithoutFramePointersDwarfUnwindingFindsCallers) {
  Collected c = Collect("", "--sys-cpu-profiling=on --sys-cpu-freq=499 --sys-cpu-call-graph=dwarf",
                        "cpu_sampling_app_nofp", "hot");
  EXPECT_NE(c.output.find("DWARF call stacks (8192 bytes"), std::string::npos) << c.output;
  const model::Model* m = LaunchedProcess(c);
  ASSERT_NE(m, nullptr) << c.output;
  EXPECT_GT(m->cpu.stack_copies.size(), 100u);
  ExpectHotLoopOnTop(*m, "dwarf, no frame pointers");
  analysis::CpuProfile profile = analysis::SymbolizeCpuProfile(*m);
  EXPECT_TRUE(profile.warnings.empty()) << profile.warnings[0];
  std::vector<analysis::ThreadCpuCost> costs = analysis::CpuCostByThread(*m, profile);
  const analysis::ThreadCpuCost& all = costs.back();
  uint64_t hot_self = 0, spin_self = 0, cold_total = 0, work_total = 0;
  for (const analysis::FunctionCost& f : all.functions) {
    const std::string& name = profile.function_name[f.function];
    if (name.find("HotLoop") != std::string::npos) hot_self = f.self;
    if (name.find("SpinFor") != std::string::npos) spin_self = f.self;
    if (name.find("ColdLoop") != std::string::npos) cold_total = f.total;
    if (name.find("::Work(") != std::string::npos) work_total = f.total;
  }
  EXPECT_GT(spin_self, 0u);
  EXPECT_GE(cold_total, spin_self * 9 / 10);
  EXPECT_GE(work_total, (hot_self + spin_self) * 9 / 10);
  // Whole stacks: the main thread's reach main, the worker's its std::thread entry.
  uint64_t hot_under_main = 0;
  for (const auto& [stack, count] : analysis::FoldedStacks(*m, profile, false)) {
    if (stack.find("main;") != std::string::npos && stack.find("HotLoop") != std::string::npos) {
      hot_under_main += count;
    }
  }
  EXPECT_GT(hot_under_main, hot_self / 4);
}

std::vector<std::string> FilesNamed(const std::string& dir, const std::string& prefix,
                                    const std::string& suffix) {
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      found.push_back(entry.path().string());
    }
  }
  return found;
}

int64_t QueryInt(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sql;
  int64_t value = -1;
  if (statement != nullptr && sqlite3_step(statement) == SQLITE_ROW) {
    value = sqlite3_column_int64(statement, 0);
  }
  sqlite3_finalize(statement);
  return value;
}

std::string QueryText(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sql;
  std::string value;
  if (statement != nullptr && sqlite3_step(statement) == SQLITE_ROW) {
    if (const unsigned char* text = sqlite3_column_text(statement, 0)) {
      value = reinterpret_cast<const char*>(text);
    }
  }
  sqlite3_finalize(statement);
  return value;
}

// The pprof profile of the automatic export decodes (tests/cpu_sampling/pprof_reader.h):
// its samples point at locations that exist, locations at functions that exist, functions
// at strings that exist; the sample counts add up to the on-CPU samples and the CPU time
// is count x period; the leaf with the most samples is HotLoop.
void ExpectValidPprof(const std::string& path, const model::Model& m) {
  testing::PprofProfile p;
  ASSERT_TRUE(testing::ReadPprof(path, &p)) << path;
  ASSERT_FALSE(p.strings.empty());
  EXPECT_EQ(p.strings[0], "");
  ASSERT_EQ(p.sample_types.size(), 2u);
  auto str = [&](int64_t id) -> std::string {
    return id >= 0 && static_cast<size_t>(id) < p.strings.size() ? p.strings[id] : "<bad>";
  };
  EXPECT_EQ(str(p.sample_types[0].type), "samples");
  EXPECT_EQ(str(p.sample_types[0].unit), "count");
  EXPECT_EQ(str(p.sample_types[1].type), "cpu");
  EXPECT_EQ(str(p.sample_types[1].unit), "nanoseconds");
  EXPECT_GT(p.period, 0);
  std::map<uint64_t, const testing::PprofProfile::Location*> locations;
  for (const auto& l : p.locations) locations[l.id] = &l;
  std::map<uint64_t, const testing::PprofProfile::Function*> functions;
  for (const auto& f : p.functions) {
    functions[f.id] = &f;
    EXPECT_NE(str(f.name), "<bad>");
    EXPECT_NE(str(f.filename), "<bad>");
  }
  ASSERT_FALSE(locations.count(0));
  ASSERT_FALSE(functions.count(0));
  uint64_t on_cpu = 0;
  for (uint16_t flags : m.cpu.samples.flags) on_cpu += (flags & format::kCpuSampleOffCpu) ? 0 : 1;
  int64_t counted = 0;
  std::map<std::string, int64_t> leaf_counts;
  for (const auto& sample : p.samples) {
    ASSERT_EQ(sample.values.size(), 2u);
    EXPECT_EQ(sample.values[1], sample.values[0] * p.period);
    counted += sample.values[0];
    ASSERT_FALSE(sample.location_ids.empty());
    for (uint64_t id : sample.location_ids) {
      auto location = locations.find(id);
      ASSERT_NE(location, locations.end()) << "sample names missing location " << id;
      ASSERT_EQ(location->second->function_ids.size(), 1u);
      ASSERT_TRUE(functions.count(location->second->function_ids[0]));
    }
    uint64_t leaf = locations[sample.location_ids[0]]->function_ids[0];
    leaf_counts[str(functions[leaf]->name)] += sample.values[0];
  }
  EXPECT_EQ(static_cast<uint64_t>(counted), on_cpu);
  auto top = std::max_element(leaf_counts.begin(), leaf_counts.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
  ASSERT_NE(top, leaf_counts.end());
  EXPECT_NE(top->first.find("HotLoop"), std::string::npos) << top->first;
}

// The CPU lanes of a .pftrace, decoded with the test's own wire reader: track descriptors
// named "<thread> (CPU)" (trace_packet 60: uuid 1, name 2), and the track events on them
// (trace_packet 11: type 9, track_uuid 11, name 23).
struct PerfettoCpuLanes {
  uint64_t tracks = 0, instants = 0, begins = 0, ends = 0;
  std::string most_named;  // the most frequent instant name
};
PerfettoCpuLanes ReadPerfettoCpuLanes(const std::string& bytes) {
  PerfettoCpuLanes lanes;
  std::set<uint64_t> cpu_tracks;
  std::map<std::string, uint64_t> names;
  testing::WireReader trace(bytes);
  uint32_t field, wire;
  while (trace.Next(&field, &wire)) {
    if (field != 1 || wire != 2) {
      trace.Skip(wire);
      continue;
    }
    testing::WireReader packet(trace.Bytes());
    uint32_t pf, pw;
    while (packet.Next(&pf, &pw)) {
      if (pw != 2 || (pf != 60 && pf != 11)) {
        packet.Skip(pw);
        continue;
      }
      testing::WireReader message(packet.Bytes());
      uint64_t uuid = 0, type = 0;
      std::string name;
      uint32_t mf, mw;
      while (message.Next(&mf, &mw)) {
        if (pf == 60 && mf == 1) {
          uuid = message.Varint();
        } else if (pf == 60 && mf == 2) {
          name = message.Bytes();
        } else if (pf == 11 && mf == 9) {
          type = message.Varint();
        } else if (pf == 11 && mf == 11) {
          uuid = message.Varint();
        } else if (pf == 11 && mf == 23) {
          name = message.Bytes();
        } else {
          message.Skip(mw);
        }
      }
      EXPECT_TRUE(message.ok);
      if (pf == 60 && name.size() > 6 && name.compare(name.size() - 6, 6, " (CPU)") == 0) {
        cpu_tracks.insert(uuid);
        ++lanes.tracks;
      }
      if (pf == 11 && cpu_tracks.count(uuid)) {
        if (type == 1) ++lanes.begins;
        if (type == 2) ++lanes.ends;
        if (type == 3) {
          ++lanes.instants;
          ++names[name];
        }
      }
    }
    EXPECT_TRUE(packet.ok);
  }
  EXPECT_TRUE(trace.ok);
  uint64_t best = 0;
  for (const auto& [name, count] : names) {
    if (count > best) {
      best = count;
      lanes.most_named = name;
    }
  }
  return lanes;
}

// Every output reads the one symbolised profile: the pprof file of the automatic export,
// the database's CPU tables, the Perfetto trace's CPU lanes and `aiprof analyze`'s report.
TEST(CpuSampling, ExportsDatabasePerfettoPprofAndReport) {
  Collected c = Collect(
      "", "--sys-cpu-profiling=on --sys-cpu-freq=499", "cpu_sampling_app_fp", "hot",
      [](const std::string& dir) {
        std::string error;
        for (const std::string& prof : model::FindProfDirs(dir, &error)) {
          model::Model m = model::ParseFiles(model::ListRawFiles(prof));
          uint64_t on_cpu = 0;
          for (uint16_t flags : m.cpu.samples.flags) {
            on_cpu += (flags & format::kCpuSampleOffCpu) ? 0 : 1;
          }
          if (on_cpu < 100) continue;  // the forked child's directory is checked the same
          std::vector<std::string> pprof = FilesNamed(prof, "cpu_profile_", ".pb.gz");
          ASSERT_EQ(pprof.size(), 1u) << prof;
          ExpectValidPprof(pprof[0], m);

          auto db_run = testing::RunAiprof("export --type=db --output=" + prof);
          ASSERT_EQ(db_run.exit_code, 0) << db_run.output;
          std::vector<std::string> dbs = FilesNamed(prof, "aiprof_", ".db");
          ASSERT_EQ(dbs.size(), 1u) << prof;
          sqlite3* db = nullptr;
          ASSERT_EQ(sqlite3_open_v2(dbs[0].c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
          EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM CPU_SAMPLES"),
                    static_cast<int64_t>(m.cpu.samples.size()));
          EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM CPU_SAMPLES WHERE offCpu = 0"),
                    static_cast<int64_t>(on_cpu));
          // The most frequent leaf (depth 0) of the on-CPU samples is HotLoop.
          EXPECT_NE(QueryText(db,
                              "SELECT f.name FROM CPU_SAMPLES s JOIN STACKS k ON "
                              "k.stackId = s.stackId AND k.depth = 0 JOIN CPU_FUNCTIONS f ON "
                              "f.id = k.functionId WHERE s.offCpu = 0 GROUP BY f.name "
                              "ORDER BY count(*) DESC LIMIT 1")
                        .find("HotLoop"),
                    std::string::npos);
          // Every sample's stack exists, and every frame's function.
          EXPECT_EQ(QueryInt(db,
                             "SELECT count(*) FROM CPU_SAMPLES WHERE stackId NOT IN "
                             "(SELECT stackId FROM STACKS)"),
                    0);
          EXPECT_EQ(QueryInt(db,
                             "SELECT count(*) FROM STACKS WHERE functionId NOT IN "
                             "(SELECT id FROM CPU_FUNCTIONS)"),
                    0);
          EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM THREAD_STATES"),
                    static_cast<int64_t>(m.cpu.thread_states.size()));
          EXPECT_EQ(QueryText(db, "SELECT mode FROM CPU_SAMPLING"), "perf_event");
          sqlite3_close(db);

          auto trace_run = testing::RunAiprof("export --timeline-format=perfetto --output=" + prof);
          ASSERT_EQ(trace_run.exit_code, 0) << trace_run.output;
          std::vector<std::string> traces = FilesNamed(prof, "trace_view", ".pftrace");
          ASSERT_EQ(traces.size(), 1u) << prof;
          std::ifstream in(traces[0], std::ios::binary);
          std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
          PerfettoCpuLanes lanes = ReadPerfettoCpuLanes(bytes);
          EXPECT_GE(lanes.tracks, 2u);
          EXPECT_EQ(lanes.instants, on_cpu);
          EXPECT_EQ(lanes.begins, m.cpu.thread_states.size());
          EXPECT_EQ(lanes.ends, m.cpu.thread_states.size());
          EXPECT_NE(lanes.most_named.find("HotLoop"), std::string::npos) << lanes.most_named;

          auto report = testing::RunAiprof("analyze --output=" + prof);
          ASSERT_EQ(report.exit_code, 0) << report.output;
          EXPECT_NE(report.output.find("CPU sampling: "), std::string::npos) << report.output;
          size_t top = report.output.find("top functions (self / total");
          ASSERT_NE(top, std::string::npos) << report.output;
          EXPECT_NE(report.output.find("HotLoop", top), std::string::npos) << report.output;
        }
      });
  ASSERT_NE(LaunchedProcess(c), nullptr) << c.output;
}

TEST(CpuSampling, TimerFallbackWhenForced) {
  // POSIX CPU timers expire at the kernel's tick (CONFIG_HZ, e.g. 250), and a thread that
  // shares the CPU sees fewer: three times the default work keeps >100 samples on a
  // loaded machine.
  Collected c =
      Collect("AIPROF_CPU_SAMPLING_MODE=timer", "--sys-cpu-profiling=on --sys-cpu-freq=499",
              "cpu_sampling_app_fp", "hot 90");
  EXPECT_NE(c.output.find("CPU sampling: timer fallback"), std::string::npos) << c.output;
  // The worker thread arms its timer when it starts (the pthread_create hook), not at the
  // writer's next flush: it does the same work as the main thread and gets about as many
  // samples (found only at the 1 s flush, it would miss its first second of CPU or more).
  const model::Model* m = LaunchedProcess(c);
  ASSERT_NE(m, nullptr) << "no process with samples from two threads: " << c.output;
  std::map<uint32_t, uint64_t> per_thread;
  for (uint32_t thread : m->cpu.samples.thread) per_thread[m->threads.tid[thread]]++;
  uint32_t main_pid = m->processes.pid[0];
  uint64_t worker_samples = 0;
  for (const auto& [tid, count] : per_thread) {
    if (tid != main_pid) worker_samples = std::max(worker_samples, count);
  }
  EXPECT_GT(per_thread[main_pid], 20u);
  EXPECT_GE(worker_samples * 2, per_thread[main_pid]) << worker_samples << " worker samples";
  for (uint16_t flags : m->cpu.samples.flags) {
    ASSERT_TRUE(flags & format::kCpuSampleTimer);
  }
  ASSERT_EQ(m->cpu.runs.size(), 1u);
  EXPECT_EQ(m->cpu.runs.mode[0], static_cast<uint16_t>(format::CpuSamplingMode::kTimer));
  ExpectHotLoopOnTop(*m, "timer fallback");
}

// The "block" app's main thread waits 300 ms on a mutex and 200 ms on a pipe: the switch
// records show it blocked at least that long, with the stack it blocked in.
void ExpectLongWaitWithStack(const model::Model& m, uint32_t main_pid, const std::string& output) {
  int64_t longest_blocked = 0;
  bool blocked_with_stack = false;
  const model::ThreadStateTable& states = m.cpu.thread_states;
  for (size_t i = 0; i < states.size(); ++i) {
    if (m.threads.tid[states.thread[i]] != main_pid) continue;
    if (states.state[i] != model::ThreadState::kBlocked) continue;
    int64_t duration = states.end[i] - states.ts[i];
    if (duration > longest_blocked) {
      longest_blocked = duration;
      blocked_with_stack = states.stack[i] != UINT32_MAX;
    }
  }
  EXPECT_GE(longest_blocked, 190'000'000) << output;
  EXPECT_TRUE(blocked_with_stack) << output;
}

TEST(CpuSampling, WaitsOnMutexAndReadAreRecorded) {
  Collected c =
      Collect("", "--sys-cpu-profiling=on --host-sys=osrt", "cpu_sampling_app_fp", "block");
  ASSERT_EQ(c.models.size(), 1u) << c.output;
  const model::Model& m = c.models[0];
  uint32_t main_pid = m.processes.pid[0];
  int64_t mutex_wait = 0, read_wait = 0;
  for (size_t row = 0; row < m.slices.size(); ++row) {
    if (m.Str(m.slices.category[row]) != "osrt") continue;
    if (m.threads.tid[m.ThreadOfSlice(row)] != main_pid) continue;
    std::string_view name = m.Str(m.slices.name[row]);
    if (name == "pthread_mutex_lock") mutex_wait = std::max(mutex_wait, m.slices.dur(row));
    if (name == "read") read_wait = std::max(read_wait, m.slices.dur(row));
  }
  // The holder keeps the mutex 300 ms after the main thread starts waiting for it, then
  // writes the pipe 200 ms after unlocking (a little slack for the hand-over itself).
  EXPECT_GE(mutex_wait, 290'000'000) << c.output;
  EXPECT_GE(read_wait, 190'000'000) << c.output;
  ExpectLongWaitWithStack(m, main_pid, c.output);
}

// The blocking stacks come from the sched_switch tracepoint (blocking switch-outs only)
// where tracefs gives its id, else from the context-switches event; forcing the latter
// still gives the long waits their stacks.
TEST(CpuSampling, BlockingStacksFromEitherSwitchEvent) {
  bool tracefs = access("/sys/kernel/tracing/events/sched/sched_switch/id", R_OK) == 0 ||
                 access("/sys/kernel/debug/tracing/events/sched/sched_switch/id", R_OK) == 0;
  Collected chosen = Collect("", "--sys-cpu-profiling=on", "cpu_sampling_app_fp", "block");
  ASSERT_EQ(chosen.models.size(), 1u) << chosen.output;
  EXPECT_NE(chosen.output.find(tracefs ? "(sched_switch tracepoint: blocking switch-outs only)"
                                       : "(context-switches event: every switch-out"),
            std::string::npos)
      << chosen.output;
  ExpectLongWaitWithStack(chosen.models[0], chosen.models[0].processes.pid[0], chosen.output);

  Collected forced = Collect("AIPROF_CPU_SAMPLING_OFF_CPU_EVENT=context-switches",
                             "--sys-cpu-profiling=on", "cpu_sampling_app_fp", "block");
  ASSERT_EQ(forced.models.size(), 1u) << forced.output;
  EXPECT_NE(forced.output.find("(context-switches event: every switch-out"), std::string::npos)
      << forced.output;
  ExpectLongWaitWithStack(forced.models[0], forced.models[0].processes.pid[0], forced.output);
}

// DWARF mode with the sched_switch tracepoint copies the user stack at blocking switch-outs
// too: in the app built without frame pointers, both long waits of the "block" app's main
// thread (300 ms in pthread_mutex_lock, 200 ms in read) have a blocking stack that starts
// in libc and reaches Block and the root, __libc_start_main (main tail-calls Block).
void ExpectBlockingStacksThroughLibc(const Collected& c) {
  ASSERT_EQ(c.models.size(), 1u) << c.output;
  const model::Model& m = c.models[0];
  EXPECT_NE(c.output.find("blocking stacks included"), std::string::npos) << c.output;
  analysis::CpuProfile profile = analysis::SymbolizeCpuProfile(m);
  EXPECT_TRUE(profile.warnings.empty()) << profile.warnings[0];
  uint32_t main_pid = m.processes.pid[0];
  const model::ThreadStateTable& states = m.cpu.thread_states;
  int long_waits = 0, through_libc = 0;
  std::string seen;
  for (size_t i = 0; i < states.size(); ++i) {
    if (m.threads.tid[states.thread[i]] != main_pid) continue;
    if (states.state[i] != model::ThreadState::kBlocked) continue;
    if (states.end[i] - states.ts[i] < 190'000'000) continue;
    ++long_waits;
    if (states.stack[i] == UINT32_MAX) continue;
    auto stack = profile.Stack(states.stack[i]);
    bool leaf_in_libc =
        !stack.empty() && profile.function_module[stack[0]].find("libc") != std::string::npos;
    bool block = false, root = false;
    for (uint32_t f : stack) {
      const std::string& name = profile.function_name[f];
      block |= name.rfind("(anonymous namespace)::Block", 0) == 0;
      root |= name == "__libc_start_main";
      seen += name + ";";
    }
    seen += " | ";
    if (leaf_in_libc && block && root) ++through_libc;
  }
  EXPECT_EQ(long_waits, 2) << c.output;
  EXPECT_EQ(through_libc, 2) << seen;
}

// With the context-switches event (no readable tracefs, or forced) the blocking stacks stay
// frame-pointer chains (perf_sampler.cc, OpenBlockingStackEvent), and the start message
// says so.
TEST(CpuSampling, DwarfBlockingStacksReachTheAppThroughLibc) {
  bool tracefs = access("/sys/kernel/tracing/events/sched/sched_switch/id", R_OK) == 0 ||
                 access("/sys/kernel/debug/tracing/events/sched/sched_switch/id", R_OK) == 0;
  Collected chosen = Collect("", "--sys-cpu-profiling=on --sys-cpu-call-graph=dwarf",
                             "cpu_sampling_app_nofp", "block");
  if (tracefs) {
    ExpectBlockingStacksThroughLibc(chosen);
  } else {
    ASSERT_EQ(chosen.models.size(), 1u) << chosen.output;
    EXPECT_NE(chosen.output.find("; blocking stacks as frame-pointer chains)"), std::string::npos)
        << chosen.output;
    ExpectLongWaitWithStack(chosen.models[0], chosen.models[0].processes.pid[0], chosen.output);
  }
  Collected forced = Collect("AIPROF_CPU_SAMPLING_OFF_CPU_EVENT=context-switches",
                             "--sys-cpu-profiling=on --sys-cpu-call-graph=dwarf",
                             "cpu_sampling_app_nofp", "block");
  ASSERT_EQ(forced.models.size(), 1u) << forced.output;
  EXPECT_NE(forced.output.find("; blocking stacks as frame-pointer chains)"), std::string::npos)
      << forced.output;
  ExpectLongWaitWithStack(forced.models[0], forced.models[0].processes.pid[0], forced.output);
}

}  // namespace
}  // namespace aiprof
