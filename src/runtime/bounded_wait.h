// The bounded wait of the descriptor registries (owned_fd.cc, plugin_fds.cc): a program's
// close waits for the runtime's or a plugin's use of a descriptor in progress, and an
// adoption waits for the program's closes in progress. Async-signal-safe (sched_yield and
// nanosleep only).
#pragma once

#include <sched.h>
#include <time.h>

namespace aiprof::runtime {

// A closer waits this long at most for a use in progress (a write to a slow disk); a use
// that never ends (a handler of the closing thread interrupted it) must not hang the program.
constexpr int kMaxDescriptorWaitMs = 5000;

// Spins, then sleeps 100 µs at a time, while `busy()`; gives up after kMaxDescriptorWaitMs.
template <typename Busy>
void WaitWhile(Busy busy) {
  for (int spins = 0; busy(); ++spins) {
    if (spins < 100) {
      sched_yield();
      continue;
    }
    if (spins > 100 + kMaxDescriptorWaitMs * 10) return;
    timespec pause{0, 100000};
    nanosleep(&pause, nullptr);
  }
}

}  // namespace aiprof::runtime
