#include "sources/host/host_sampler.h"

#include <dirent.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "format/chunk_writer.h"
#include "format/records.h"
#include "format/records_host.h"
#include "sources/host/procfs.h"
#include "sources/host/prof_dirs.h"

namespace aiprof::host {
namespace raw = aiprof::format;
namespace names = aiprof::format::host_counters;

uint64_t MonotonicRawNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t RealtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

namespace {

constexpr uint64_t kFlushIntervalNs = 1000000000ull;
// Data kept while the app's PROF_* directory does not exist yet (e.g. --delay); past this
// samples are counted as dropped rather than growing the launcher without bound.
constexpr uint32_t kMaxPendingBytes = 16u << 20;

struct ProcessSample {
  uint64_t start_time = 0;
  uint64_t at_ns = 0;
  uint64_t cpu_user = 0, cpu_sys = 0;
  uint64_t minor_faults = 0, major_faults = 0;
  bool have_io = false;
  PidIo io;
};

std::vector<int> ChildrenOf(int pid) {
  std::vector<int> children;
  std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(task_dir.c_str());
  if (!dir) return children;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    auto text = ReadProcFile(task_dir + "/" + entry->d_name + "/children");
    if (!text) continue;
    for (int child : ParsePidList(*text)) children.push_back(child);
  }
  closedir(dir);
  return children;
}

std::string ReadCmdline(int pid) {
  auto text = ReadProcFile("/proc/" + std::to_string(pid) + "/cmdline");
  if (!text) return "";
  std::string cmdline = *text;
  while (!cmdline.empty() && cmdline.back() == '\0') cmdline.pop_back();
  for (char& c : cmdline) {
    if (c == '\0') c = ' ';
  }
  return cmdline;
}

}  // namespace

struct HostSampler::State {
  HostSamplerOptions options;
  const double clock_ticks_per_s = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page_kb = static_cast<double>(sysconf(_SC_PAGESIZE)) / 1024.0;

  // Sampling state (sampler thread, or the caller of SampleOnce when there is no thread).
  std::optional<ProcStat> previous_stat;
  uint64_t previous_stat_ns = 0;
  std::optional<NetDevTotals> previous_net;
  uint64_t previous_net_ns = 0;
  std::map<int, ProcessSample> previous_process;
  uint64_t samples = 0;
  uint64_t dropped_samples = 0;

  // Output.
  raw::RecordBuffer events;
  std::unordered_map<std::string, uint32_t> string_ids;
  std::vector<std::pair<uint32_t, std::string>> new_strings;
  nlohmann::json processes = nlohmann::json::object();
  bool processes_changed = false;
  std::unique_ptr<raw::ChunkWriter> writer;
  std::string prof_dir;
  std::string error;
  uint64_t last_flush_ns = 0;

  // Thread control.
  std::mutex mutex;
  std::condition_variable wake;
  bool stop_requested = false;
  std::thread thread;

  uint32_t Intern(const std::string& text) {
    auto [it, inserted] = string_ids.emplace(text, static_cast<uint32_t>(string_ids.size() + 1));
    if (inserted) new_strings.emplace_back(it->second, text);
    return it->second;
  }

  void Counter(uint64_t ts, const char* name, raw::CounterScope scope, uint32_t instance,
               double value, const char* unit) {
    if (events.size() >= kMaxPendingBytes) {
      ++dropped_samples;
      return;
    }
    raw::CounterValue counter{value, instance, Intern(unit)};
    events.AddWith(static_cast<uint8_t>(raw::RecordKind::kCounter), ts,
                   static_cast<uint16_t>(scope), Intern(name), counter);
  }

  void ClockSync() {
    uint64_t mono = MonotonicRawNs();
    raw::ClockSample sample{mono, RealtimeNs()};
    events.AddWith(static_cast<uint8_t>(raw::RecordKind::kClockSync), mono, 0, 0, sample);
  }

  bool InWindow(uint64_t now) const {
    return now >= options.window_begin_ns && now <= options.window_end_ns;
  }

  void CpuCounters(uint64_t ts, raw::CounterScope scope, uint32_t instance, const CpuTimes& now,
                   const CpuTimes& before) {
    double total = static_cast<double>(now.Total() - before.Total());
    if (total <= 0) return;
    auto share = [&](uint64_t a, uint64_t b) { return 100.0 * static_cast<double>(a - b) / total; };
    Counter(ts, names::kCpuUser, scope, instance,
            share(now.user + now.nice, before.user + before.nice), "%");
    Counter(ts, names::kCpuSys, scope, instance, share(now.system, before.system), "%");
    Counter(ts, names::kCpuIowait, scope, instance, share(now.iowait, before.iowait), "%");
    Counter(ts, names::kCpuIrq, scope, instance, share(now.irq, before.irq), "%");
    Counter(ts, names::kCpuSoftirq, scope, instance, share(now.softirq, before.softirq), "%");
    Counter(ts, names::kCpuIdle, scope, instance, share(now.idle, before.idle), "%");
  }

  void SampleMachineCpu(uint64_t now, bool emit) {
    auto text = ReadProcFile("/proc/stat");
    if (!text) return;
    auto stat = ParseProcStat(*text);
    if (!stat) return;
    if (emit && previous_stat) {
      double seconds = static_cast<double>(now - previous_stat_ns) / 1e9;
      CpuCounters(now, raw::CounterScope::kMachine, 0, stat->total, previous_stat->total);
      for (size_t cpu = 0; cpu < stat->per_cpu.size(); ++cpu) {
        if (!stat->cpu_present[cpu] || cpu >= previous_stat->per_cpu.size() ||
            !previous_stat->cpu_present[cpu]) {
          continue;
        }
        CpuCounters(now, raw::CounterScope::kCpu, static_cast<uint32_t>(cpu), stat->per_cpu[cpu],
                    previous_stat->per_cpu[cpu]);
      }
      if (seconds > 0) {
        Counter(
            now, names::kContextSwitches, raw::CounterScope::kMachine, 0,
            static_cast<double>(stat->context_switches - previous_stat->context_switches) / seconds,
            "1/s");
      }
      Counter(now, names::kProcsRunning, raw::CounterScope::kMachine, 0,
              static_cast<double>(stat->procs_running), "");
      Counter(now, names::kProcsBlocked, raw::CounterScope::kMachine, 0,
              static_cast<double>(stat->procs_blocked), "");
    }
    previous_stat = std::move(stat);
    previous_stat_ns = now;
  }

  void SampleMachineMemory(uint64_t now) {
    auto text = ReadProcFile("/proc/meminfo");
    if (!text) return;
    auto values = ParseMeminfo(*text);
    static constexpr std::pair<const char*, const char*> kFields[] = {
        {"MemTotal", names::kMemTotal},
        {"MemFree", names::kMemFree},
        {"MemAvailable", names::kMemAvailable},
        {"Buffers", names::kMemBuffers},
        {"Cached", names::kMemCached},
        {"Shmem", names::kMemShared},
        {"CommitLimit", names::kMemCommitLimit},
        {"Committed_AS", names::kMemCommitted},
        {"HugePages_Total", names::kHugePagesTotal},
        {"HugePages_Free", names::kHugePagesFree},
    };
    for (const auto& [field, name] : kFields) {
      auto it = values.find(field);
      if (it == values.end()) continue;
      bool pages = std::string_view(field).rfind("HugePages", 0) == 0;
      Counter(now, name, raw::CounterScope::kMachine, 0, static_cast<double>(it->second),
              pages ? "pages" : "KB");
    }
  }

  void SampleNetwork(uint64_t now, bool emit) {
    auto text = ReadProcFile("/proc/net/dev");
    if (!text) return;
    auto net = ParseNetDev(*text);
    if (!net) return;
    double seconds = static_cast<double>(now - previous_net_ns) / 1e9;
    if (emit && previous_net && seconds > 0) {
      auto rate = [&](uint64_t a, uint64_t b) { return static_cast<double>(a - b) / seconds; };
      const NetDevTotals& p = *previous_net;
      auto machine = raw::CounterScope::kMachine;
      Counter(now, names::kNetRxBytes, machine, 0, rate(net->rx_bytes, p.rx_bytes), "bytes/s");
      Counter(now, names::kNetTxBytes, machine, 0, rate(net->tx_bytes, p.tx_bytes), "bytes/s");
      Counter(now, names::kNetRxPackets, machine, 0, rate(net->rx_packets, p.rx_packets), "1/s");
      Counter(now, names::kNetTxPackets, machine, 0, rate(net->tx_packets, p.tx_packets), "1/s");
      Counter(now, names::kNetRxErrors, machine, 0, rate(net->rx_errors, p.rx_errors), "1/s");
      Counter(now, names::kNetTxErrors, machine, 0, rate(net->tx_errors, p.tx_errors), "1/s");
      Counter(now, names::kNetRxDropped, machine, 0, rate(net->rx_dropped, p.rx_dropped), "1/s");
      Counter(now, names::kNetTxDropped, machine, 0, rate(net->tx_dropped, p.tx_dropped), "1/s");
    }
    previous_net = net;
    previous_net_ns = now;
  }

  // Every descendant of the launcher: the launcher is the app's child subreaper, so
  // orphaned workers stay in the tree.
  std::vector<int> ProcessTree() const {
    std::vector<int> tree;
    std::vector<int> pending = ChildrenOf(static_cast<int>(getpid()));
    if (pending.empty() && options.root_pid > 0) pending.push_back(options.root_pid);
    std::set<int> seen;
    while (!pending.empty()) {
      int pid = pending.back();
      pending.pop_back();
      if (!seen.insert(pid).second) continue;
      tree.push_back(pid);
      for (int child : ChildrenOf(pid)) pending.push_back(child);
    }
    return tree;
  }

  void SampleProcesses(uint64_t now, bool emit) {
    std::map<int, ProcessSample> current;
    for (int pid : ProcessTree()) {
      std::string base = "/proc/" + std::to_string(pid);
      auto text = ReadProcFile(base + "/stat");
      if (!text) continue;
      auto stat = ParsePidStat(*text);
      if (!stat || stat->state == 'Z') continue;
      ProcessSample sample;
      sample.start_time = stat->start_time;
      sample.at_ns = now;
      sample.cpu_user = stat->utime;
      sample.cpu_sys = stat->stime;
      sample.minor_faults = stat->minor_faults;
      sample.major_faults = stat->major_faults;
      if (options.process_disk) {
        if (auto io_text = ReadProcFile(base + "/io")) {
          if (auto io = ParsePidIo(*io_text)) {
            sample.have_io = true;
            sample.io = *io;
          }
        }
      }
      auto previous = previous_process.find(pid);
      bool known =
          previous != previous_process.end() && previous->second.start_time == sample.start_time;
      std::string key = std::to_string(pid);
      if (!processes.contains(key)) {
        processes[key] = {
            {"name", stat->comm}, {"ppid", stat->ppid}, {"cmdline", ReadCmdline(pid)}};
        processes_changed = true;
      }
      uint32_t instance = static_cast<uint32_t>(pid);
      auto scope = raw::CounterScope::kProcess;
      if (emit && options.process_mem) {
        Counter(now, names::kProcRss, scope, instance,
                static_cast<double>(stat->rss_pages) * page_kb, "KB");
      }
      if (emit && options.process_mem) {
        if (auto statm = ReadProcFile(base + "/statm")) {
          unsigned long long size = 0, resident = 0, shared = 0;
          if (std::sscanf(statm->c_str(), "%llu %llu %llu", &size, &resident, &shared) == 3) {
            Counter(now, names::kProcMemSize, scope, instance, static_cast<double>(size), "pages");
            Counter(now, names::kProcMemResident, scope, instance, static_cast<double>(resident),
                    "pages");
            Counter(now, names::kProcMemShared, scope, instance, static_cast<double>(shared),
                    "pages");
          }
        }
      }
      if (emit && options.process_cpu) {
        Counter(now, names::kProcThreads, scope, instance, static_cast<double>(stat->threads), "");
      }
      if (emit && known) {
        const ProcessSample& before = previous->second;
        double seconds = static_cast<double>(now - before.at_ns) / 1e9;
        if (seconds > 0) {
          auto per_second = [&](uint64_t a, uint64_t b) {
            return static_cast<double>(a - b) / seconds;
          };
          if (options.process_cpu) {
            double user = per_second(sample.cpu_user, before.cpu_user) / clock_ticks_per_s * 100;
            double sys = per_second(sample.cpu_sys, before.cpu_sys) / clock_ticks_per_s * 100;
            Counter(now, names::kProcCpu, scope, instance, user + sys, "%");
            Counter(now, names::kProcCpuUser, scope, instance, user, "%");
            Counter(now, names::kProcCpuSys, scope, instance, sys, "%");
          }
          if (options.process_mem) {
            Counter(now, names::kProcMinorFaults, scope, instance,
                    per_second(sample.minor_faults, before.minor_faults), "1/s");
            Counter(now, names::kProcMajorFaults, scope, instance,
                    per_second(sample.major_faults, before.major_faults), "1/s");
          }
          if (options.process_disk && sample.have_io && before.have_io) {
            Counter(now, names::kProcDiskRead, scope, instance,
                    per_second(sample.io.read_bytes, before.io.read_bytes), "bytes/s");
            Counter(now, names::kProcDiskWrite, scope, instance,
                    per_second(sample.io.write_bytes, before.io.write_bytes), "bytes/s");
          }
        }
      }
      current.emplace(pid, sample);
    }
    previous_process = std::move(current);
  }

  void Sample() {
    uint64_t now = MonotonicRawNs();
    bool emit = InWindow(now);
    if (options.machine_cpu) SampleMachineCpu(now, emit);
    if (options.machine_mem && emit) SampleMachineMemory(now);
    if (options.network) SampleNetwork(now, emit);
    if (options.process_cpu || options.process_mem || options.process_disk) {
      SampleProcesses(now, emit);
    }
    if (emit) ++samples;
  }

  nlohmann::json Metadata() const {
    nlohmann::json meta =
        options.metadata.is_object() ? options.metadata : nlohmann::json::object();
    meta["source"] = "host_sys";
    meta["pid"] = getpid();
    meta["ppid"] = getppid();
    char hostname[256] = {};
    gethostname(hostname, sizeof(hostname) - 1);
    meta["hostname"] = hostname;
    meta["clock"] = {{"source", "monotonic_raw"}};
    meta["root_pid"] = options.root_pid;
    meta["sample_hz"] = options.sample_hz;
    nlohmann::json sampled = nlohmann::json::array();
    if (options.machine_cpu) sampled.push_back("machine_cpu");
    if (options.machine_mem) sampled.push_back("machine_mem");
    if (options.network) sampled.push_back("network");
    if (options.process_cpu) sampled.push_back("process_cpu");
    if (options.process_mem) sampled.push_back("process_mem");
    if (options.process_disk) sampled.push_back("process_disk");
    meta["host_sys"] = sampled;
    meta["processes"] = processes;
    return meta;
  }

  bool WriteMetadata(const nlohmann::json& meta) {
    std::string text = meta.dump();
    return writer->WriteChunk(raw::ChunkType::kMetadata, 0, text.data(),
                              static_cast<uint32_t>(text.size()));
  }

  bool OpenFile(bool create_dir_if_missing) {
    if (writer) return true;
    if (!error.empty()) return false;
    std::string dir = FindProcessDir(options.output_dir, options.dirs_before, options.root_pid);
    if (dir.empty()) {
      if (!create_dir_if_missing) return false;
      dir = CreateProfDir(options.output_dir, &error);
      if (dir.empty()) return false;
    }
    std::string path = dir + "/host/data/host_sys." + std::to_string(getpid()) + ".data";
    raw::ChunkWriterOptions writer_options;
    writer_options.compress = true;
    writer =
        raw::ChunkWriter::Create(path, static_cast<uint32_t>(getpid()), writer_options, &error);
    if (!writer) return false;
    prof_dir = dir;
    nlohmann::json meta = Metadata();
    meta["start_realtime_ns"] = RealtimeNs();
    processes_changed = false;
    if (!WriteMetadata(meta)) {
      error = writer->last_error();
      writer.reset();
      return false;
    }
    return true;
  }

  // Writes pending strings, processes and records. Keeps them in memory until the app's
  // directory exists unless `final`.
  void Flush(bool final) {
    last_flush_ns = MonotonicRawNs();
    if (!OpenFile(final && samples > 0)) return;
    ClockSync();
    if (processes_changed) {
      if (!WriteMetadata({{"processes", processes}})) error = writer->last_error();
      processes_changed = false;
    }
    if (!new_strings.empty()) {
      raw::StringTableBuffer strings;
      for (const auto& [id, text] : new_strings) strings.Add(id, text);
      if (!writer->WriteChunk(raw::ChunkType::kStrings, 0, strings.data(), strings.size())) {
        error = writer->last_error();
      }
      new_strings.clear();
    }
    if (!writer->WriteChunk(raw::ChunkType::kEvents, 0, events.data(), events.size())) {
      error = writer->last_error();
    }
    events.clear();
  }

  void Run() {
    ClockSync();
    const auto period = std::chrono::nanoseconds(static_cast<int64_t>(1e9 / options.sample_hz));
    auto next = std::chrono::steady_clock::now();
    std::unique_lock lock(mutex);
    while (!stop_requested) {
      lock.unlock();
      Sample();
      if (MonotonicRawNs() - last_flush_ns >= kFlushIntervalNs) Flush(false);
      lock.lock();
      next += period;
      auto now = std::chrono::steady_clock::now();
      if (next < now) next = now;  // a slow pass skips ticks instead of bursting
      wake.wait_until(lock, next, [&] { return stop_requested; });
    }
  }
};

HostSampler::HostSampler(HostSamplerOptions options) : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  if (state_->options.sample_hz <= 0) state_->options.sample_hz = 1;
  state_->last_flush_ns = MonotonicRawNs();
}

HostSampler::~HostSampler() {
  if (state_->thread.joinable()) {
    {
      std::lock_guard lock(state_->mutex);
      state_->stop_requested = true;
    }
    state_->wake.notify_all();
    state_->thread.join();
  }
}

void HostSampler::Start() {
  state_->thread = std::thread([this] { state_->Run(); });
}

void HostSampler::SampleOnce() {
  state_->Sample();
}

uint64_t HostSampler::samples_taken() const {
  return state_->samples;
}

std::string HostSampler::Stop(const nlohmann::json& exit_status, std::string* message) {
  if (state_->thread.joinable()) {
    {
      std::lock_guard lock(state_->mutex);
      state_->stop_requested = true;
    }
    state_->wake.notify_all();
    state_->thread.join();
  }
  State& s = *state_;
  s.Flush(true);
  if (s.writer) {
    nlohmann::json end = {{"exit_status", exit_status},
                          {"end_realtime_ns", RealtimeNs()},
                          {"samples", s.samples},
                          {"dropped_samples", s.dropped_samples}};
    if (!s.WriteMetadata(end)) s.error = s.writer->last_error();
    s.writer.reset();
  }
  if (!s.error.empty())
    *message = "host resource data incomplete: " + s.error;
  else if (s.dropped_samples > 0) {
    *message = "host resource data: " + std::to_string(s.dropped_samples) +
               " counter values dropped while waiting for the app's PROF_* directory";
  }
  return s.prof_dir;
}

}  // namespace aiprof::host
