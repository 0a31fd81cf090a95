// PerfSampler::ReopenClosedEvents: a job that closes every descriptor above 2 (daemons, some
// launchers) drops the sampler's perf events with them. The kernel frees an event with its
// last reference: the blocking-stack events and every event redirected into a CPU's ring go
// at once (a ring's own event lives on while it is mapped, and its threads stay sampled).
// The runtime counts such closes (aiprof_fd_job_closes); at the next flush the sampler finds
// which of its numbers are gone, reads what the rings hold, releases the rest and opens the
// events of every thread again, new rings included, and says what was lost meanwhile.

#include <cstdio>
#include <string>

#include "sources/cpu_sampling/perf_sampler.h"
#include "sources/cpu_sampling/sample_clock.h"
#include "sources/plugin_fd.h"

namespace aiprof::cpu_sampling {
namespace {

uint64_t Since(uint64_t from, uint64_t to) {
  return to > from ? to - from : 0;
}

std::string Seconds(uint64_t ns, const char* format) {
  char text[32];
  std::snprintf(text, sizeof(text), format, static_cast<double>(ns) / 1e9);
  return text;
}

}  // namespace

std::string PerfSampler::ReopenClosedEvents() {
  uint64_t close_ns = 0;
  const uint64_t closes = aiprof_fd_job_closes(&close_ns);
  if (closes == seen_job_closes_ || event_fds_.empty()) return {};
  seen_job_closes_ = closes;
  size_t closed = 0;
  for (int fd : event_fds_) closed += sources::UsePluginFd(fd, [](int) {}) ? 0 : 1;
  if (closed == 0) return {};  // other sources' numbers
  const size_t had = event_fds_.size();
  // What the rings took before and since the close, then a clean slate: the events that are
  // left belong to the same threads, and keeping them beside new ones would sample twice.
  Drain();
  ReleaseEvents();
  size_t opened = 0;
  size_t failed = 0;
  std::string why;
  const bool listed = OpenProcessThreads(&opened, &failed, &why);
  const uint64_t reopened_ns = SampleClockNs();
  // Executable mappings made while no event recorded them.
  mappings_.EmitCurrentMappings(reopened_ns);
  std::string text = "perf_event: the job closed " + std::to_string(closed) + " of the " +
                     std::to_string(had) + " sampling descriptors " +
                     Seconds(Since(started_ns_, close_ns), "%.3f s") + " after sampling started; ";
  if (!listed || opened == 0) {
    ReleaseEvents();
    return text + "reopening them failed (" + why + "): no samples from then on";
  }
  text += "reopened for " + std::to_string(opened) + " threads " +
          Seconds(Since(close_ns, reopened_ns) * 1000, "%.1f ms") +
          " later (what the closed events would have sampled in between is missing)";
  if (failed > 0) {
    text += "; " + std::to_string(failed) + " threads could not be reopened (" + why +
            "): no samples of them from then on";
  }
  return text;
}

}  // namespace aiprof::cpu_sampling
