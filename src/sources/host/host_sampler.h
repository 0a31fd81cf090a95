// Samples host resources from outside the profiled app: whole-machine CPU, memory and
// network, and CPU, memory, faults and disk I/O of every process of the app's tree. Runs
// on its own thread in the launcher and writes kCounter records (format/records_host.h)
// to PROF_*/host/data/host_sys.<launcher pid>.data, in the app's root process directory.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace aiprof::host {

struct HostSamplerOptions {
  bool machine_cpu = false;   // /proc/stat: CPU %, context switches, running/blocked
  bool machine_mem = false;   // /proc/meminfo
  bool network = false;       // /proc/net/dev
  bool process_cpu = false;   // per process CPU %, threads
  bool process_mem = false;   // per process RSS, page faults
  bool process_disk = false;  // per process disk read/write bytes
  double sample_hz = 50;
  std::string output_dir;             // parent of the PROF_* directories
  std::set<std::string> dirs_before;  // PROF_* names that existed before the launch
  int root_pid = 0;                   // the app; its tree is every descendant of ours
  // Samples are kept only inside [window_begin_ns, window_end_ns] (CLOCK_MONOTONIC_RAW).
  uint64_t window_begin_ns = 0;
  uint64_t window_end_ns = std::numeric_limits<uint64_t>::max();
  nlohmann::json metadata;  // merged into the file's Metadata chunk (options, app, ...)

  bool AnyEnabled() const {
    return machine_cpu || machine_mem || network || process_cpu || process_mem || process_disk;
  }
};

class HostSampler {
 public:
  explicit HostSampler(HostSamplerOptions options);
  ~HostSampler();
  HostSampler(const HostSampler&) = delete;
  HostSampler& operator=(const HostSampler&) = delete;

  void Start();
  // Takes a last sample, writes everything with `exit_status` in the metadata and closes
  // the file. Returns the PROF_* directory written to ("" if nothing was written) and, in
  // `message`, a line for the user when something went wrong.
  std::string Stop(const nlohmann::json& exit_status, std::string* message);

  // One sampling pass; public for tests that drive the sampler without its thread.
  void SampleOnce();
  uint64_t samples_taken() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

uint64_t MonotonicRawNs();
uint64_t RealtimeNs();

}  // namespace aiprof::host
