#include "sources/cpu_sampling/timer_sampler.h"

#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "sources/cpu_sampling/process_threads.h"
#include "sources/cpu_sampling/python_stack.h"
#include "sources/cpu_sampling/sample_clock.h"
#include "sources/cpu_sampling/sample_emitter.h"
#include "sources/cpu_sampling/timer_sample_queue.h"

namespace aiprof::cpu_sampling {

namespace {

constexpr uint64_t kMaxStackSpan = 64ull << 20;  // a frame pointer this far above sp is garbage

std::atomic<uint64_t> g_dropped{0};
std::atomic<bool> g_enabled{false};
pid_t g_pid = 0;

bool ReadWord(uint64_t address, uint64_t* out) {
  iovec local{out, sizeof(*out)};
  iovec remote{reinterpret_cast<void*>(address), sizeof(*out)};
  return syscall(SYS_process_vm_readv, g_pid, &local, 1, &remote, 1, 0) ==
         static_cast<long>(sizeof(*out));
}

void OnSigprof(int, siginfo_t*, void* context) {
  if (!g_enabled.load(std::memory_order_relaxed)) return;
  int saved_errno = errno;
  TimerSamplePython* python = nullptr;
  TimerSample* claimed = ClaimTimerSample(&python);
  if (claimed == nullptr) {
    g_dropped.fetch_add(1, std::memory_order_relaxed);
    errno = saved_errno;
    return;
  }
  TimerSample& slot = *claimed;
  slot.ts = SampleClockNs();
  slot.tid = static_cast<uint32_t>(syscall(SYS_gettid));
  const mcontext_t& regs = static_cast<ucontext_t*>(context)->uc_mcontext;
#if defined(__x86_64__)
  uint64_t ip = static_cast<uint64_t>(regs.gregs[REG_RIP]);
  uint64_t fp = static_cast<uint64_t>(regs.gregs[REG_RBP]);
  uint64_t sp = static_cast<uint64_t>(regs.gregs[REG_RSP]);
#elif defined(__aarch64__)
  uint64_t ip = regs.pc;
  uint64_t fp = regs.regs[29];
  uint64_t sp = regs.sp;
#endif
  uint32_t frames = 0;
  slot.ips[frames++] = ip;
  uint64_t low = sp;
  while (frames < kTimerSampleFrames && fp >= low && fp - sp < kMaxStackSpan && fp % 8 == 0) {
    uint64_t next_fp = 0, return_address = 0;
    if (!ReadWord(fp, &next_fp) || !ReadWord(fp + 8, &return_address) || return_address == 0) {
      break;
    }
    slot.ips[frames++] = return_address;
    low = fp + 16;
    fp = next_fp;
  }
  slot.frames = frames;
  slot.python_frames = 0;
  slot.python_truncated = false;
  if (python != nullptr) {
    slot.python_frames = ReadPythonStack(python->code, python->info, kTimerSamplePythonFrames,
                                         &slot.python_truncated);
  }
  PublishTimerSample(&slot);
  errno = saved_errno;
}

// The CPU-time clock of another thread of this process (the kernel's MAKE_THREAD_CPUCLOCK:
// CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD_MASK).
clockid_t ThreadCpuClock(uint32_t tid) {
  return static_cast<clockid_t>((~static_cast<uint32_t>(tid) << 3) | 6);
}

// The armed threads, shared by the writer thread (threads listed in /proc at start and at
// each flush) and new threads arming themselves at start (ArmCurrentThread, from the
// pthread_create hook): open addressing on the tid, claimed with a compare-and-swap so a
// thread is armed exactly once whichever side sees it first. Preallocated; a full table
// leaves a thread unsampled (counted as a drop). A thread that ended leaves a tombstone
// (never reused while sampling runs, so a probe chain never holds a tid twice): a window
// arms at most kTimerSlots threads.
constexpr uint32_t kTimerSlots = 8192;
constexpr uint32_t kTombstone = UINT32_MAX;
struct TimerSlot {
  std::atomic<uint32_t> tid;  // 0: free; kTombstone: its thread ended
  std::atomic<bool> armed;
  timer_t timer = nullptr;
};
constinit TimerSlot g_timers[kTimerSlots];
std::atomic<long> g_period_ns{0};

// The slot `tid` claimed, or nullptr when another caller claimed it first (or no room).
TimerSlot* ClaimThread(uint32_t tid) {
  for (uint32_t probe = 0; probe < kTimerSlots; ++probe) {
    TimerSlot& slot = g_timers[(tid * 2654435761u + probe) % kTimerSlots];
    uint32_t current = slot.tid.load(std::memory_order_acquire);
    if (current == tid) return nullptr;
    if (current == 0) {
      if (slot.tid.compare_exchange_strong(current, tid, std::memory_order_acq_rel)) return &slot;
      if (current == tid) return nullptr;
    }
  }
  g_dropped.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

// Creates and starts the timer of thread `tid` in a claimed slot. False with errno set when
// the kernel refuses (ESRCH/EINVAL: the thread exited meanwhile).
bool ArmThread(TimerSlot& slot, uint32_t tid) {
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = SIGPROF;
  event._sigev_un._tid = static_cast<pid_t>(tid);
  if (timer_create(ThreadCpuClock(tid), &event, &slot.timer) != 0) return false;
  long period_ns = g_period_ns.load(std::memory_order_relaxed);
  itimerspec spec{};
  spec.it_interval.tv_sec = period_ns / 1000000000l;
  spec.it_interval.tv_nsec = period_ns % 1000000000l;
  spec.it_value = spec.it_interval;
  timer_settime(slot.timer, 0, &spec, nullptr);
  slot.armed.store(true, std::memory_order_release);
  return true;
}

}  // namespace

bool TimerSampler::Start(uint32_t hz, bool python_frames, std::string* why) {
  hz_ = hz;
  if (!MapTimerSampleQueue(python_frames, why)) return false;
  g_pid = getpid();
  g_period_ns.store(1000000000l / static_cast<long>(hz), std::memory_order_relaxed);
  struct sigaction current {};
  sigaction(SIGPROF, nullptr, &current);
  bool has_handler = (current.sa_flags & SA_SIGINFO)
                         ? current.sa_sigaction != OnSigprof
                         : current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN;
  if (has_handler) {
    *why = "the program has its own SIGPROF handler";
    return false;
  }
  struct sigaction action {};
  action.sa_sigaction = OnSigprof;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGPROF, &action, nullptr) != 0) {
    *why = std::string("sigaction(SIGPROF): ") + std::strerror(errno);
    return false;
  }
  g_enabled.store(true, std::memory_order_release);
  running_ = true;
  if (!ArmNewThreads(why)) {
    Stop();
    return false;
  }
  mappings_.EmitCurrentMappings(SampleClockNs());
  return true;
}

bool TimerSampler::ArmNewThreads(std::string* why) {
  std::vector<uint32_t> tids;
  if (!ListProcessThreads(&tids, why)) return false;
  for (uint32_t tid : tids) {
    TimerSlot* slot = ClaimThread(tid);
    if (slot == nullptr || ArmThread(*slot, tid)) continue;
    if (errno == ESRCH || errno == EINVAL) continue;  // the thread exited meanwhile
    *why = std::string("timer_create: ") + std::strerror(errno);
    return false;
  }
  return true;
}

bool TimerSampler::Running() {
  return g_enabled.load(std::memory_order_relaxed);
}

void TimerSampler::ArmCurrentThread() {
  if (!g_enabled.load(std::memory_order_acquire)) return;
  uint32_t tid = static_cast<uint32_t>(syscall(SYS_gettid));
  if (TimerSlot* slot = ClaimThread(tid)) ArmThread(*slot, tid);
}

void TimerSampler::ReleaseCurrentThread() {
  uint32_t tid = static_cast<uint32_t>(syscall(SYS_gettid));
  for (uint32_t probe = 0; probe < kTimerSlots; ++probe) {
    TimerSlot& slot = g_timers[(tid * 2654435761u + probe) % kTimerSlots];
    uint32_t current = slot.tid.load(std::memory_order_acquire);
    if (current == 0) return;
    if (current != tid) continue;
    // The thread itself and Stop() may both get here: the exchange lets one delete.
    if (slot.armed.exchange(false, std::memory_order_acq_rel)) timer_delete(slot.timer);
    slot.tid.store(kTombstone, std::memory_order_release);
    return;
  }
}

void TimerSampler::Drain() {
  if (!running_) return;
  uint32_t pid = static_cast<uint32_t>(g_pid);
  python_names_.NextFlush();
  DrainTimerSamples([&](const TimerSample& slot, const TimerSamplePython* python) {
    if (python != nullptr && slot.python_frames > 0) {
      for (uint32_t i = 0; i < slot.python_frames; ++i) {
        if (python_names_.Update(python->code[i], &python_name_)) {
          EmitPythonCode(pid, python->code[i], python_name_.name, python_name_.file);
        }
      }
      EmitPythonFrames(slot.ts, slot.tid, python->code, python->info, slot.python_frames,
                       slot.python_truncated);
    }
    EmitSample(slot.ts, format::kCpuSampleTimer, pid, slot.tid, UINT32_MAX, slot.ips, slot.frames);
  });
  uint64_t dropped = g_dropped.load(std::memory_order_relaxed);
  if (dropped != reported_drops_) {
    reported_drops_ = dropped;
    EmitSampleDrops(pid, dropped);
  }
  std::string ignored;
  if (g_enabled.load(std::memory_order_relaxed)) ArmNewThreads(&ignored);
}

void TimerSampler::Stop() {
  g_enabled.store(false, std::memory_order_release);
  for (TimerSlot& slot : g_timers) {
    if (slot.armed.exchange(false, std::memory_order_acq_rel)) timer_delete(slot.timer);
    slot.tid.store(0, std::memory_order_release);
  }
  Drain();
  running_ = false;
}

void TimerSampler::AbandonAfterFork() {
  // POSIX timers are not inherited by fork; queued samples belong to the parent.
  for (TimerSlot& slot : g_timers) {
    slot.armed.store(false, std::memory_order_relaxed);
    slot.tid.store(0, std::memory_order_relaxed);
  }
  DiscardTimerSamples();
  g_enabled.store(false, std::memory_order_relaxed);
  // Code addresses were named for the parent; the child names what it samples anew.
  python_names_.Clear();
  running_ = false;
}

}  // namespace aiprof::cpu_sampling
