#include "sources/cpu_sampling/perf_sampler.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#if defined(__x86_64__)
#include <asm/perf_regs.h>
#endif
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "sources/cpu_sampling/blocking_switch_event.h"
#include "sources/cpu_sampling/process_threads.h"
#include "sources/cpu_sampling/sample_clock.h"
#include "sources/cpu_sampling/sample_emitter.h"
#include "sources/plugin_fd.h"

namespace aiprof::cpu_sampling {

namespace {

using sources::MakePluginFd;
using sources::UsePluginFd;

// Every event descriptor is registered with the runtime (plugin.h, "Descriptors"), used
// through UsePluginFd and closed through aiprof_fd_close: a job that closes every descriptor
// above 2 while sampling runs and opens its own files under the numbers never gets those
// files ioctl()ed, mapped or closed by the sampler.
int PerfEventOpen(perf_event_attr* attr, pid_t tid, int cpu) {
  return MakePluginFd([&] {
    return static_cast<int>(syscall(SYS_perf_event_open, attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
  });
}

// ioctl on an event still the sampler's; -1 (errno EBADF) when the job closed the number.
template <typename Arg>
int EventIoctl(int fd, unsigned long request, Arg arg) {
  int result = -1;
  if (!UsePluginFd(fd, [&](int event) { result = ioctl(event, request, arg); })) errno = EBADF;
  return result;
}

// Redirects the samples of event `fd` into the ring of event `ring_fd`, both still the
// sampler's (one of the job's perf events would otherwise get the sampler's records).
int RedirectOutput(int fd, int ring_fd) {
  int result = -1;
  errno = EBADF;
  UsePluginFd(fd, [&](int event) {
    UsePluginFd(ring_fd, [&](int ring) { result = ioctl(event, PERF_EVENT_IOC_SET_OUTPUT, ring); });
  });
  return result;
}

void* MapRing(int fd, size_t bytes) {
  void* base = MAP_FAILED;
  errno = EBADF;
  UsePluginFd(fd, [&](int event) {
    base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, event, 0);
  });
  return base;
}

constexpr uint64_t kSampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;

// call_graph "dwarf": the user registers and a copy of the user stack instead of the chain.
constexpr uint64_t kStackCopySampleType = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
                                          PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                                          PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

#if defined(__x86_64__)
// perf's register numbers in the order the kernel writes them (ascending), and the DWARF
// number each one has in the record (records_cpu.h, kCpuUserRegs).
struct UserRegister {
  int perf;
  int dwarf;
};
constexpr UserRegister kUserRegisters[] = {
    {PERF_REG_X86_AX, 0},   {PERF_REG_X86_BX, 3},   {PERF_REG_X86_CX, 2},   {PERF_REG_X86_DX, 1},
    {PERF_REG_X86_SI, 4},   {PERF_REG_X86_DI, 5},   {PERF_REG_X86_BP, 6},   {PERF_REG_X86_SP, 7},
    {PERF_REG_X86_IP, 16},  {PERF_REG_X86_R8, 8},   {PERF_REG_X86_R9, 9},   {PERF_REG_X86_R10, 10},
    {PERF_REG_X86_R11, 11}, {PERF_REG_X86_R12, 12}, {PERF_REG_X86_R13, 13}, {PERF_REG_X86_R14, 14},
    {PERF_REG_X86_R15, 15}};
constexpr uint64_t UserRegisterMask() {
  uint64_t mask = 0;
  for (const UserRegister& r : kUserRegisters) mask |= 1ull << r.perf;
  return mask;
}
#endif

// The sample_id block appended to non-sample records (sample_id_all) for kSampleType.
struct SampleId {
  uint32_t pid, tid;
  uint64_t time;
  uint32_t cpu, reserved;
  uint64_t identifier;
};

void BaseAttr(perf_event_attr* attr, bool inherit_thread) {
  std::memset(attr, 0, sizeof(*attr));
  attr->size = sizeof(*attr);
  attr->sample_type = kSampleType;
  attr->disabled = 0;
  attr->inherit = 1;
  // Threads inherit the events; forked children open their own (their runtime follows
  // them with its own window) and exec'ed images start afresh.
  attr->inherit_thread = inherit_thread ? 1 : 0;
  attr->remove_on_exec = inherit_thread ? 1 : 0;
  attr->exclude_callchain_kernel = 1;
  attr->exclude_hv = 1;
  attr->sample_id_all = 1;
  attr->use_clockid = 1;
  attr->clockid = kSampleClock;
}

std::string Errno(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

bool IsKernelAddress(uint64_t ip) {
  return ip >= 0xffff800000000000ull;
}

}  // namespace

bool PerfSampler::Start(uint32_t hz, uint32_t stack_copy_bytes, OffCpuStacks off_cpu_stacks,
                        std::string* why) {
  hz_ = hz;
  pid_ = static_cast<uint32_t>(getpid());
  off_cpu_stacks_ = off_cpu_stacks;
  // The rate mode needs a count of every switch to hold its rate: context-switches.
  switch_event_ = off_cpu_stacks.kind == OffCpuStacks::Kind::kEverySwitch
                      ? ChooseBlockingSwitchEvent()
                      : ContextSwitchesEvent();
#if defined(__x86_64__)
  // The kernel wants a multiple of 8; a record (header, registers, copy) must stay < 64 KiB.
  stack_copy_bytes_ = std::min<uint32_t>(stack_copy_bytes, 32768) & ~7u;
#else
  if (stack_copy_bytes > 0) {
    *why = "call_graph dwarf is implemented for x86-64 only";
    return false;
  }
#endif
  // About two flush intervals of samples (up to ~1 KiB of chain, or the stack copy), a
  // power of two of pages, at most 4 MiB per CPU (a full ring counts lost samples).
  size_t sample_bytes = stack_copy_bytes_ > 0 ? stack_copy_bytes_ + 256 : 2048;
  size_t want = static_cast<size_t>(hz) * sample_bytes * 2 / 4096;
  ring_pages_ = 16;
  while (ring_pages_ < want && ring_pages_ < kMaxRingPages) ring_pages_ *= 2;
  // Blocking-stack copies come at a rate nothing bounds (one per blocking switch-out), ~8 KiB
  // each: a ring of their own at the largest size, so that when they outrun it only those
  // copies are lost, never samples, switch records or the blocking stacks' chains.
  copy_ring_pages_ = kMaxRingPages;
  frames_.resize(format::kCpuMaxFrames);
  long cpus = sysconf(_SC_NPROCESSORS_CONF);
  rings_.assign(static_cast<size_t>(cpus > 0 ? cpus : 1), Ring{});
  copy_rings_.assign(stack_copy_bytes_ > 0 ? rings_.size() : 0, Ring{});

  // Hardware cycles where the PMU is exposed (bare metal), else the cpu-clock timer, which
  // works in VMs and containers.
  perf_event_attr attr;
  BaseAttr(&attr, true);
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.freq = 1;
  attr.sample_freq = hz;
  int probe = PerfEventOpen(&attr, 0, 0);
  if (probe < 0 && errno == EINVAL) {
    // Kernels before 5.13 have no inherit_thread / remove_on_exec.
    inherit_thread_ = false;
    BaseAttr(&attr, false);
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
    attr.freq = 1;
    attr.sample_freq = hz;
    probe = PerfEventOpen(&attr, 0, 0);
  }
  if (probe >= 0 && std::getenv("AIPROF_CPU_SAMPLING_EVENT") == nullptr) {
    aiprof_fd_close(probe);
    event_type_ = PERF_TYPE_HARDWARE;
    event_config_ = PERF_COUNT_HW_CPU_CYCLES;
    event_name_ = "cycles";
  } else {
    if (probe >= 0) aiprof_fd_close(probe);
    event_type_ = PERF_TYPE_SOFTWARE;
    event_config_ = PERF_COUNT_SW_CPU_CLOCK;
    event_name_ = "cpu-clock";
  }

  seen_job_closes_ = aiprof_fd_job_closes(nullptr);
  size_t opened = 0;
  if (!OpenProcessThreads(&opened, nullptr, why)) {
    Stop();
    return false;
  }
  started_ns_ = SampleClockNs();
  mappings_.EmitCurrentMappings(started_ns_);
  return true;
}

bool PerfSampler::OpenProcessThreads(size_t* opened, size_t* failed, std::string* why) {
  std::vector<uint32_t> tids;
  if (!ListProcessThreads(&tids, why)) return false;
  for (uint32_t tid : tids) {
    std::string thread_why;
    if (OpenThread(tid, &thread_why)) {
      ++*opened;
      continue;
    }
    // A thread that exited meanwhile is not a refusal.
    if (errno == ESRCH) continue;
    *why = thread_why;
    if (failed == nullptr) return false;
    ++*failed;
  }
  return true;
}

bool PerfSampler::OpenThread(uint32_t tid, std::string* why) {
  perf_event_attr attr;
  BaseAttr(&attr, inherit_thread_);
  attr.type = event_type_;
  attr.config = event_config_;
  if (event_type_ == PERF_TYPE_SOFTWARE) {
    attr.sample_period = 1000000000ull / hz_;  // ns of CPU time
  } else {
    attr.freq = 1;
    attr.sample_freq = hz_;
  }
#if defined(__x86_64__)
  if (stack_copy_bytes_ > 0) {
    attr.sample_type = kStackCopySampleType;
    attr.sample_regs_user = UserRegisterMask();
    attr.sample_stack_user = stack_copy_bytes_;
  }
#endif
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.comm = 1;
  attr.context_switch = 1;
  // Switch-outs with the user stack the thread blocked in (off-CPU stacks). Optional:
  // without it the timeline still has the switch records. In frequency mode the kernel
  // starts each event (and each new thread's copy) at period 1 and lengthens the period
  // only while the thread switches faster than the rate.
  perf_event_attr switch_attr;
  BaseAttr(&switch_attr, inherit_thread_);
  if (off_cpu_stacks_.kind == OffCpuStacks::Kind::kRate) {
    switch_attr.freq = 1;
    switch_attr.sample_freq = off_cpu_stacks_.hz;
  } else {
    switch_attr.sample_period = 1;
  }
  // call_graph "dwarf" with the sched_switch tracepoint: a second event at the same
  // switch-outs copies the user stack, unwound at export like the on-CPU samples (libc
  // without frame pointers ends a kernel-walked chain there). The chain stays: when the
  // copies outrun their ring, the chain is what is left.
  perf_event_attr copy_attr = switch_attr;
#if defined(__x86_64__)
  copy_attr.sample_type = kStackCopySampleType;
  copy_attr.sample_regs_user = UserRegisterMask();
  copy_attr.sample_stack_user = stack_copy_bytes_;
#endif
  bool switch_stacks = off_cpu_stacks_.kind != OffCpuStacks::Kind::kOff;
  bool any = false;
  for (size_t cpu = 0; cpu < rings_.size(); ++cpu) {
    int fd = PerfEventOpen(&attr, static_cast<pid_t>(tid), static_cast<int>(cpu));
    if (fd < 0) {
      if (errno == ENODEV) continue;  // offline CPU
      *why = Errno(("perf_event_open(" + event_name_ + ")").c_str());
      return false;
    }
    event_fds_.push_back(fd);
    if (!AttachToRing(fd, rings_[cpu], &ring_pages_, why)) return false;
    any = true;
    if (!switch_stacks) continue;
    if (!OpenBlockingStackEvent(&switch_attr, tid, cpu, rings_[cpu], nullptr, &switch_ids_)) {
      continue;
    }
    off_cpu_ = true;
    if (stack_copy_bytes_ > 0 && switch_event_.type == PERF_TYPE_TRACEPOINT) {
      OpenBlockingStackEvent(&copy_attr, tid, cpu, copy_rings_[cpu], &copy_ring_pages_, &copy_ids_);
    }
  }
  if (!any) *why = "perf_event_open: no online CPU accepted the event";
  return any;
}

// One blocking-stack event (OpenSwitchEvent) writing into `ring` (mapped here on its first
// event when `pages` is given, else the CPU's main ring); its id goes to `ids`. False: the
// kernel refused it, and the thread goes without (its switch records stay). The stack-copy
// event (`pages` given) is the tracepoint or nothing: the kernel (6.18) shares one sample's
// data between the software events of a switch, so the second sampled context-switches
// event of a thread writes records with the first one's identifier and a size that counts
// both (measured, docs/cpu-sampling.md).
bool PerfSampler::OpenBlockingStackEvent(perf_event_attr* attr, uint32_t tid, size_t cpu,
                                         Ring& ring, size_t* pages,
                                         std::unordered_set<uint64_t>* ids) {
  int fd = OpenSwitchEvent(attr, tid, static_cast<int>(cpu), pages == nullptr);
  if (fd < 0) return false;
  uint64_t id = 0;
  std::string why;
  bool attached =
      pages == nullptr ? RedirectOutput(fd, ring.fd) == 0 : AttachToRing(fd, ring, pages, &why);
  if (!attached || EventIoctl(fd, PERF_EVENT_IOC_ID, &id) != 0) {
    aiprof_fd_close(fd);
    return false;
  }
  event_fds_.push_back(fd);
  ids->insert(id);
  return true;
}

// Maps `ring` on the first event of its CPU, else redirects `fd` into it. Unprivileged,
// the rings of a user may lock perf_event_mlock_kb (516 KiB by default) plus
// RLIMIT_MEMLOCK: a smaller ring that fits (*pages halved) beats no sampling.
bool PerfSampler::AttachToRing(int fd, Ring& ring, size_t* pages, std::string* why) {
  if (ring.fd >= 0) {
    if (RedirectOutput(fd, ring.fd) == 0) return true;
    *why = Errno("PERF_EVENT_IOC_SET_OUTPUT");
    return false;
  }
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* base = MapRing(fd, (*pages + 1) * page);
  while (base == MAP_FAILED && errno == EPERM && *pages > 16) {
    *pages /= 2;
    base = MapRing(fd, (*pages + 1) * page);
  }
  if (base == MAP_FAILED) {
    *why = Errno("mmap of the perf ring");
    return false;
  }
  ring = {fd, static_cast<uint8_t*>(base), (*pages + 1) * page};
  return true;
}

// The blocking-stack event of one thread on one CPU (switch_event_), with its filter. A
// tracepoint the kernel refuses (permissions, a filter it cannot parse) gives way to
// context-switches for this and every later event, if `fall_back`.
int PerfSampler::OpenSwitchEvent(perf_event_attr* attr, uint32_t tid, int cpu, bool fall_back) {
  attr->type = switch_event_.type;
  attr->config = switch_event_.config;
  int fd = PerfEventOpen(attr, static_cast<pid_t>(tid), cpu);
  if (fd >= 0 && switch_event_.filter != nullptr &&
      EventIoctl(fd, PERF_EVENT_IOC_SET_FILTER, switch_event_.filter) != 0) {
    aiprof_fd_close(fd);
    fd = -1;
  }
  if (fd >= 0 || !fall_back || switch_event_.type == PERF_TYPE_SOFTWARE) return fd;
  switch_event_ = ContextSwitchesEvent();
  return OpenSwitchEvent(attr, tid, cpu, true);
}

void PerfSampler::Drain() {
  for (Ring& ring : rings_) {
    if (ring.fd >= 0) DrainRing(ring);
  }
  for (Ring& ring : copy_rings_) {
    if (ring.fd >= 0) DrainRing(ring);
  }
}

void PerfSampler::DrainRing(Ring& ring) {
  auto* page = reinterpret_cast<perf_event_mmap_page*>(ring.base);
  const uint8_t* data = ring.base + page->data_offset;
  uint64_t size = page->data_size;
  uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = page->data_tail;
  while (tail + sizeof(perf_event_header) <= head) {
    perf_event_header header;
    for (size_t i = 0; i < sizeof(header); ++i) {
      reinterpret_cast<uint8_t*>(&header)[i] = data[(tail + i) % size];
    }
    if (header.size < sizeof(header) || tail + header.size > head) break;
    if (scratch_.size() < header.size) scratch_.resize(header.size);
    uint64_t at = tail % size;
    uint64_t first = std::min<uint64_t>(header.size, size - at);
    std::memcpy(scratch_.data(), data + at, first);
    std::memcpy(scratch_.data() + first, data, header.size - first);
    HandleRecord(scratch_.data() + sizeof(header), header.size - sizeof(header), header.type,
                 header.misc);
    tail += header.size;
  }
  __atomic_store_n(&page->data_tail, tail, __ATOMIC_RELEASE);
}

void PerfSampler::HandleRecord(const uint8_t* body, size_t length, uint16_t type, uint16_t misc) {
  switch (type) {
    case PERF_RECORD_SAMPLE: {
      uint64_t identifier;
      std::memcpy(&identifier, body, sizeof(identifier));
      bool copy = copy_ids_.count(identifier) > 0;
      if (copy || (stack_copy_bytes_ > 0 && switch_ids_.count(identifier) == 0)) {
        HandleStackCopySample(body, length, copy);
        break;
      }
      struct Fixed {
        uint64_t identifier;
        uint64_t ip;
        uint32_t pid, tid;
        uint64_t time;
        uint32_t cpu, reserved;
        uint64_t nr;
      };
      Fixed fixed;
      std::memcpy(&fixed, body, sizeof(fixed));
      const uint8_t* chain = body + sizeof(fixed);
      uint16_t flags = 0;
      if (switch_ids_.count(fixed.identifier) > 0) {
        flags |= format::kCpuSampleOffCpu;
      } else if (IsKernelAddress(fixed.ip)) {
        flags |= format::kCpuSampleKernelLeaf;
      }
      uint32_t frames = 0;
      for (uint64_t i = 0; i < fixed.nr && frames < frames_.size(); ++i) {
        uint64_t ip;
        std::memcpy(&ip, chain + i * 8, 8);
        if (ip >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) continue;  // context marker
        frames_[frames++] = ip;
      }
      if (frames == 0 && !IsKernelAddress(fixed.ip)) frames_[frames++] = fixed.ip;
      NameThread(fixed.pid, fixed.tid);
      EmitSample(fixed.time, flags, fixed.pid, fixed.tid, fixed.cpu, frames_.data(), frames);
      break;
    }
    case PERF_RECORD_SWITCH: {
      SampleId id;
      std::memcpy(&id, body, sizeof(id));
      uint16_t flags = 0;
      if (misc & PERF_RECORD_MISC_SWITCH_OUT) flags |= format::kCpuSwitchOut;
      if (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) flags |= format::kCpuSwitchPreempt;
      EmitSwitch(id.time, flags, id.pid, id.tid, id.cpu);
      break;
    }
    case PERF_RECORD_MMAP2: {
      struct Mmap2 {
        uint32_t pid, tid;
        uint64_t addr, len, pgoff;
        uint8_t device_or_build_id[24];
        uint32_t prot, flags;
      };
      Mmap2 map;
      std::memcpy(&map, body, sizeof(map));
      if ((map.prot & PROT_EXEC) == 0) break;
      const char* path = reinterpret_cast<const char*>(body + sizeof(map));
      SampleId id;
      std::memcpy(&id, body + sizeof(map) + ((std::strlen(path) + 8) & ~size_t{7}), sizeof(id));
      mappings_.Emit(id.time, map.pid, map.addr, map.addr + map.len, map.pgoff, path);
      break;
    }
    case PERF_RECORD_COMM: {
      uint32_t ids[2];
      std::memcpy(ids, body, sizeof(ids));
      named_tids_.erase(ids[1]);
      NameThread(ids[0], ids[1]);
      break;
    }
    case PERF_RECORD_LOST: {
      uint64_t lost[2];  // id, count
      std::memcpy(lost, body, sizeof(lost));
      lost_ += lost[1];
      EmitSampleDrops(pid_, lost_);
      break;
    }
    default:
      break;
  }
}

// A sample of kStackCopySampleType, on-CPU or `off_cpu` (a blocking switch-out): the user
// registers and stack copy go to the raw data as they are; the export unwinds them
// (src/analysis/cpu_profile/dwarf_unwinder.h).
void PerfSampler::HandleStackCopySample(const uint8_t* body, size_t length, bool off_cpu) {
#if defined(__x86_64__)
  struct Fixed {
    uint64_t identifier;
    uint64_t ip;
    uint32_t pid, tid;
    uint64_t time;
    uint32_t cpu, reserved;
    uint64_t regs_abi;
  };
  // A record that does not hold what its layout says is skipped, not read past (seen only
  // from a second sampled context-switches event, which is no longer opened).
  constexpr size_t kRegsBytes = sizeof(kUserRegisters) / sizeof(kUserRegisters[0]) * 8;
  Fixed fixed;
  if (length < sizeof(fixed)) return;
  std::memcpy(&fixed, body, sizeof(fixed));
  const uint8_t* at = body + sizeof(fixed);
  // A switch-out is always taken in the kernel; its user registers are where the thread
  // entered it, and no [kernel] leaf is shown above a blocking stack.
  uint16_t flags = off_cpu                     ? format::kCpuSampleOffCpu
                   : IsKernelAddress(fixed.ip) ? format::kCpuSampleKernelLeaf
                                               : 0;
  NameThread(fixed.pid, fixed.tid);
  // No user context at a switch-out: the chain event's sample of it stands.
  if (fixed.regs_abi == PERF_SAMPLE_REGS_ABI_NONE && off_cpu) return;
  if (fixed.regs_abi == PERF_SAMPLE_REGS_ABI_NONE) {
    // A kernel thread or a sample with no user context: nothing to unwind. The stack
    // block still follows (its size is 0).
    EmitSample(fixed.time, flags, fixed.pid, fixed.tid, fixed.cpu, frames_.data(), 0);
    return;
  }
  if (length < sizeof(fixed) + kRegsBytes + 8) return;
  uint64_t dwarf_regs[format::kCpuUserRegs] = {};
  for (const UserRegister& r : kUserRegisters) {
    std::memcpy(&dwarf_regs[r.dwarf], at, 8);
    at += 8;
  }
  uint64_t size = 0;
  std::memcpy(&size, at, 8);
  at += 8;
  size_t used = sizeof(fixed) + kRegsBytes + 8;
  if (size > length - used || (size > 0 && length - used - size < 8)) return;
  uint64_t dyn_size = 0;
  if (size > 0) std::memcpy(&dyn_size, at + size, 8);
  uint32_t copied = static_cast<uint32_t>(std::min(dyn_size, size));
  EmitSampleWithStackCopy(fixed.time, flags, fixed.pid, fixed.tid, fixed.cpu,
                          dwarf_regs[format::kCpuDwarfIp], dwarf_regs, at, copied);
#else
  (void)body;
  (void)length;
  (void)off_cpu;
#endif
}

// Threads that never record anything themselves still get a name on the timeline.
void PerfSampler::NameThread(uint32_t pid, uint32_t tid) {
  if (pid != pid_ || !named_tids_.insert(tid).second) return;
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
  std::optional<std::string> name = sources::ReadPluginFile(path, 32);
  if (!name) return;
  while (!name->empty() && name->back() == '\n') name->pop_back();
  if (name->empty()) return;
  format::RecordHeader record{aiprof_now(), static_cast<uint8_t>(format::RecordKind::kThreadName),
                              0, 1, aiprof_intern(name->data(), name->size())};
  aiprof_emit_for_thread(tid, &record, 1);
}

void PerfSampler::Stop() {
  for (int fd : event_fds_) EventIoctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  Drain();
  AbandonAfterFork();
}

void PerfSampler::AbandonAfterFork() {
  ReleaseEvents();
  named_tids_.clear();
}

void PerfSampler::ReleaseEvents() {
  // A ring's mapping holds its event even after the job closed the descriptor: unmapping
  // it frees that event.
  for (std::vector<Ring>* rings : {&rings_, &copy_rings_}) {
    for (Ring& ring : *rings) {
      if (ring.fd >= 0) munmap(ring.base, ring.mapped);
      ring = Ring{};
    }
  }
  // An event the job closed is left: the number may be its file now.
  for (int fd : event_fds_) aiprof_fd_close(fd);
  event_fds_.clear();
  switch_ids_.clear();
  copy_ids_.clear();
}

}  // namespace aiprof::cpu_sampling
