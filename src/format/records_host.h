// Host resource data written by the launcher's sampler (src/sources/host) into
// PROF_*/host/data/host_sys.<launcher pid>.data. Every series is a core kCounter record
// (records.h): arg = one of the names below (interned), aux = CounterScope, ext word 0 =
// CounterValue {value, instance, unit}. No host-specific record kinds are needed yet; the
// range 32-47 stays reserved for them.
//
// Rates are averages over the interval since the previous sample of the same series, so
// the first sample of a series is a baseline and is not written.
//
// The Metadata chunk of the file has "source": "host_sys", the sampled "host_sys" set,
// "sample_hz", "root_pid" (the app), "app" (its command line), "exit_status" (at the end)
// and "processes": {"<pid>": {"name", "ppid", "cmdline"}} for every profiled process seen.
#pragma once

namespace aiprof::format::host_counters {

// Whole machine (CounterScope::kMachine) and per CPU (kCpu, instance = CPU number), "%"
// of the interval; msprof cpu_usage: User, Sys, IoWait, Irq, Soft, Idle.
inline constexpr const char* kCpuUser = "host.cpu.user";
inline constexpr const char* kCpuSys = "host.cpu.sys";
inline constexpr const char* kCpuIowait = "host.cpu.iowait";
inline constexpr const char* kCpuIrq = "host.cpu.irq";
inline constexpr const char* kCpuSoftirq = "host.cpu.softirq";
inline constexpr const char* kCpuIdle = "host.cpu.idle";
// kMachine: "1/s" and process counts from /proc/stat.
inline constexpr const char* kContextSwitches = "host.context_switches";
inline constexpr const char* kProcsRunning = "host.procs_running";
inline constexpr const char* kProcsBlocked = "host.procs_blocked";
// kMachine, "KB" (hugepages: "pages"); msprof sys_mem columns.
inline constexpr const char* kMemTotal = "host.mem.total";  // Memory Total
inline constexpr const char* kMemFree = "host.mem.free";    // Memory Free
inline constexpr const char* kMemAvailable = "host.mem.available";
inline constexpr const char* kMemBuffers = "host.mem.buffers";           // Buffers
inline constexpr const char* kMemCached = "host.mem.cached";             // Cached
inline constexpr const char* kMemShared = "host.mem.shared";             // Share Memory
inline constexpr const char* kMemCommitLimit = "host.mem.commit_limit";  // Commit Limit
inline constexpr const char* kMemCommitted = "host.mem.committed_as";    // Committed AS
inline constexpr const char* kHugePagesTotal = "host.mem.hugepages_total";
inline constexpr const char* kHugePagesFree = "host.mem.hugepages_free";
// kMachine, all interfaces but loopback: "bytes/s" and "1/s".
inline constexpr const char* kNetRxBytes = "host.net.rx_bytes";
inline constexpr const char* kNetTxBytes = "host.net.tx_bytes";
inline constexpr const char* kNetRxPackets = "host.net.rx_packets";
inline constexpr const char* kNetTxPackets = "host.net.tx_packets";
inline constexpr const char* kNetRxErrors = "host.net.rx_errors";
inline constexpr const char* kNetTxErrors = "host.net.tx_errors";
inline constexpr const char* kNetRxDropped = "host.net.rx_dropped";
inline constexpr const char* kNetTxDropped = "host.net.tx_dropped";
// kProcess, instance = pid: CPU "%" of one core (like top), memory "KB", faults "1/s",
// disk "bytes/s" (storage I/O from /proc/<pid>/io), threads.
inline constexpr const char* kProcCpu = "proc.cpu";
inline constexpr const char* kProcCpuUser = "proc.cpu_user";
inline constexpr const char* kProcCpuSys = "proc.cpu_sys";
inline constexpr const char* kProcRss = "proc.rss";
inline constexpr const char* kProcThreads = "proc.threads";
inline constexpr const char* kProcMinorFaults = "proc.minor_faults";
inline constexpr const char* kProcMajorFaults = "proc.major_faults";
inline constexpr const char* kProcDiskRead = "proc.disk_read";
inline constexpr const char* kProcDiskWrite = "proc.disk_write";
// kProcess, "pages", from /proc/<pid>/statm: msprof process_mem Size, Resident, Shared.
inline constexpr const char* kProcMemSize = "proc.mem.size";
inline constexpr const char* kProcMemResident = "proc.mem.resident";
inline constexpr const char* kProcMemShared = "proc.mem.shared";

}  // namespace aiprof::format::host_counters
