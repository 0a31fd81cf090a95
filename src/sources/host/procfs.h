// Parsers for the /proc files the host sampler reads. They take the file text so tests can
// feed fixed inputs; ReadProcFile does the one read(2) per file the sampler needs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aiprof::host {

// Jiffies of one /proc/stat "cpu" line. guest time is already inside user/nice.
struct CpuTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  uint64_t Total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
};

struct ProcStat {
  CpuTimes total;
  std::vector<CpuTimes> per_cpu;  // indexed by CPU number; gaps (offline CPUs) stay zero
  std::vector<bool> cpu_present;
  uint64_t context_switches = 0;  // cumulative since boot
  uint64_t procs_running = 0;
  uint64_t procs_blocked = 0;
};

// /proc/<pid>/stat fields the sampler uses (man 5 proc).
struct PidStat {
  int pid = 0;
  int ppid = 0;
  std::string comm;
  char state = '?';
  uint64_t minor_faults = 0, major_faults = 0;
  uint64_t utime = 0, stime = 0;  // clock ticks
  uint64_t threads = 0;
  uint64_t rss_pages = 0;
  uint64_t start_time = 0;  // clock ticks since boot; tells a reused pid apart
};

struct PidIo {
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
};

struct NetDevTotals {
  uint64_t rx_bytes = 0, rx_packets = 0, rx_errors = 0, rx_dropped = 0;
  uint64_t tx_bytes = 0, tx_packets = 0, tx_errors = 0, tx_dropped = 0;
};

// Whole file, or nullopt when it cannot be opened (process gone, no permission).
std::optional<std::string> ReadProcFile(const std::string& path);

std::optional<ProcStat> ParseProcStat(std::string_view text);
// Values in the file's units (kB for most fields, pages for HugePages_*).
std::map<std::string, uint64_t> ParseMeminfo(std::string_view text);
std::optional<PidStat> ParsePidStat(std::string_view text);
std::optional<PidIo> ParsePidIo(std::string_view text);
// Sum over every interface except loopback.
std::optional<NetDevTotals> ParseNetDev(std::string_view text);
// Whitespace-separated pids of a /proc/<pid>/task/<tid>/children file.
std::vector<int> ParsePidList(std::string_view text);

}  // namespace aiprof::host
