#include "runtime/clock.h"

#include <cpuid.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {
__attribute__((visibility("default"))) volatile int aiprof_clock_is_tsc = 0;
}

namespace aiprof::runtime {

bool g_clock_uses_tsc = false;

namespace {

bool CpuidSaysInvariantTsc() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
  __cpuid(0x80000007u, eax, ebx, ecx, edx);
  return (edx & (1u << 8)) != 0;
}

bool CpuinfoSaysInvariantTsc() {
  FILE* cpuinfo = std::fopen("/proc/cpuinfo", "r");
  if (cpuinfo == nullptr) return false;
  char line[4096];
  bool constant = false, nonstop = false;
  while (std::fgets(line, sizeof line, cpuinfo) != nullptr) {
    if (std::strncmp(line, "flags", 5) != 0) continue;
    constant = std::strstr(line, " constant_tsc") != nullptr;
    nonstop = std::strstr(line, " nonstop_tsc") != nullptr;
    break;
  }
  std::fclose(cpuinfo);
  return constant && nonstop;
}

}  // namespace

ClockSource SelectClock() {
#ifdef AIPROF_HAVE_RDTSC
  const char* forced = std::getenv("AIPROF_CLOCK");
  bool allow_tsc = forced == nullptr || std::strcmp(forced, "monotonic_raw") != 0;
  g_clock_uses_tsc = allow_tsc && (CpuidSaysInvariantTsc() || CpuinfoSaysInvariantTsc());
  aiprof_clock_is_tsc = g_clock_uses_tsc ? 1 : 0;
#endif
  return CurrentClockSource();
}

ClockSource CurrentClockSource() {
  return g_clock_uses_tsc ? ClockSource::kTsc : ClockSource::kMonotonicRaw;
}

const char* ClockSourceName(ClockSource source) {
  return source == ClockSource::kTsc ? "tsc" : "monotonic_raw";
}

ClockSyncSample SampleClocks() {
  // The tick reading sits between the two OS readings so its error is half their gap.
  ClockSyncSample sample;
  uint64_t raw_before = ReadClockNs(CLOCK_MONOTONIC_RAW);
  sample.ticks = Now();
  uint64_t raw_after = ReadClockNs(CLOCK_MONOTONIC_RAW);
  sample.monotonic_raw_ns = raw_before + (raw_after - raw_before) / 2;
  sample.realtime_ns = ReadClockNs(CLOCK_REALTIME);
  return sample;
}

double EstimateTicksPerSecond(const ClockSyncSample& first, const ClockSyncSample& last) {
  if (!g_clock_uses_tsc) return 1e9;
  if (last.monotonic_raw_ns <= first.monotonic_raw_ns || last.ticks <= first.ticks) return 0;
  return static_cast<double>(last.ticks - first.ticks) * 1e9 /
         static_cast<double>(last.monotonic_raw_ns - first.monotonic_raw_ns);
}

}  // namespace aiprof::runtime
