// OS runtime tracing (nsys's osrt): wrappers exported by this preloaded library interpose
// libc's blocking calls (lock and condition waits, poll/epoll/select, read/write and
// socket I/O, sleeps) and record each call that took at least the threshold (default
// 1 µs) as a kOsrtCall record through the runtime's allocation-free record path, on the
// calling thread. A call that does not block pays two clock reads and a compare.
//
// Options (AIPROF_OPTIONS): "osrt": {"on": true, "threshold_ns": 1000}.
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <nlohmann/json.hpp>

#include "aiprof/plugin.h"
#include "format/records_cpu.h"

namespace aiprof::osrt {
namespace {

enum Call : uint32_t {
  kPthreadMutexLock,
  kPthreadCondWait,
  kPthreadCondTimedwait,
  kPthreadJoin,
  kSemWait,
  kPoll,
  kEpollWait,
  kSelect,
  kRead,
  kWrite,
  kPread,
  kPwrite,
  kRecv,
  kSend,
  kRecvfrom,
  kSendto,
  kAccept,
  kConnect,
  kSleep,
  kUsleep,
  kNanosleep,
  kClockNanosleep,
  kCallCount,
};

constexpr const char* kNames[kCallCount] = {"pthread_mutex_lock",
                                            "pthread_cond_wait",
                                            "pthread_cond_timedwait",
                                            "pthread_join",
                                            "sem_wait",
                                            "poll",
                                            "epoll_wait",
                                            "select",
                                            "read",
                                            "write",
                                            "pread64",
                                            "pwrite64",
                                            "recv",
                                            "send",
                                            "recvfrom",
                                            "sendto",
                                            "accept",
                                            "connect",
                                            "sleep",
                                            "usleep",
                                            "nanosleep",
                                            "clock_nanosleep"};

void* g_real[kCallCount];
std::atomic<uint32_t> g_name_ids[kCallCount];
std::atomic<bool> g_on{false};
std::atomic<uint64_t> g_threshold_ticks{1000};
// Set while a wrapper records: the runtime's own calls (an eventfd poke) pass straight
// through instead of recursing.
__thread bool t_inside __attribute__((tls_model("initial-exec")));

template <typename Fn>
Fn Real(Call call) {
  void* fn = __atomic_load_n(&g_real[call], __ATOMIC_ACQUIRE);
  if (fn == nullptr) {
    fn = dlsym(RTLD_NEXT, kNames[call]);
    __atomic_store_n(&g_real[call], fn, __ATOMIC_RELEASE);
  }
  return reinterpret_cast<Fn>(fn);
}

// Brackets one call: Begin() before, End() after with its result.
class Scope {
 public:
  explicit Scope(Call call) : call_(call) {
    active_ = aiprof_collecting != 0 && g_on.load(std::memory_order_relaxed) && !t_inside;
    if (active_) begin_ = aiprof_now();
  }
  template <typename T>
  T End(T result) {
    if (!active_) return result;
    uint64_t end = aiprof_now();
    if (end - begin_ < g_threshold_ticks.load(std::memory_order_relaxed)) return result;
    int saved_errno = errno;
    t_inside = true;
    struct {
      format::RecordHeader header;
      format::OsrtCall call;
    } record;
    record.header = {begin_, static_cast<uint8_t>(format::CpuRecordKind::kOsrtCall), 1, 0,
                     g_name_ids[call_].load(std::memory_order_relaxed)};
    record.call = {end, static_cast<int64_t>(result)};
    aiprof_emit(&record, 2);
    t_inside = false;
    errno = saved_errno;
    return result;
  }

 private:
  Call call_;
  bool active_;
  uint64_t begin_ = 0;
};

uint64_t MonotonicRawNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC_RAW, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

void OnStart(void*) {
  nlohmann::json json = nlohmann::json::parse(aiprof_options_json(), nullptr, false);
  uint64_t threshold_ns = 1000;
  bool on = true;
  if (json.is_object() && json.contains("osrt") && json["osrt"].is_object()) {
    threshold_ns = json["osrt"].value("threshold_ns", threshold_ns);
    on = json["osrt"].value("on", on);
  }
  for (uint32_t call = 0; call < kCallCount; ++call) {
    Real<void*>(static_cast<Call>(call));
    g_name_ids[call].store(aiprof_intern(kNames[call], std::strlen(kNames[call])));
  }
  // The threshold in the process clock's ticks (TSC or ns): the tick rate over a short
  // spin, enough for a threshold (the parser's ClockSync fit places the records).
  uint64_t ticks0 = aiprof_now(), ns0 = MonotonicRawNs(), ns1 = ns0;
  while (ns1 - ns0 < 200000) ns1 = MonotonicRawNs();
  uint64_t ticks1 = aiprof_now();
  double ticks_per_ns = static_cast<double>(ticks1 - ticks0) / static_cast<double>(ns1 - ns0);
  g_threshold_ticks.store(static_cast<uint64_t>(static_cast<double>(threshold_ns) * ticks_per_ns));
  g_on.store(on);
}

void OnStop(void*) {
  g_on.store(false);
}

const aiprof_source kSource = {
    AIPROF_PLUGIN_ABI_VERSION, "osrt", OnStart, OnStop, nullptr, nullptr, nullptr};

__attribute__((constructor)) void RegisterWhenLoaded() {
  aiprof_register_source(&kSource);
}

}  // namespace
}  // namespace aiprof::osrt

using aiprof::osrt::Call;
using aiprof::osrt::Real;
using aiprof::osrt::Scope;

#define AIPROF_OSRT extern "C" __attribute__((visibility("default")))

AIPROF_OSRT int pthread_mutex_lock(pthread_mutex_t* mutex) {
  Scope scope(Call::kPthreadMutexLock);
  return scope.End(Real<int (*)(pthread_mutex_t*)>(Call::kPthreadMutexLock)(mutex));
}
AIPROF_OSRT int pthread_cond_wait(pthread_cond_t* cond, pthread_mutex_t* mutex) {
  Scope scope(Call::kPthreadCondWait);
  return scope.End(
      Real<int (*)(pthread_cond_t*, pthread_mutex_t*)>(Call::kPthreadCondWait)(cond, mutex));
}
AIPROF_OSRT int pthread_cond_timedwait(pthread_cond_t* cond, pthread_mutex_t* mutex,
                                       const struct timespec* abstime) {
  Scope scope(Call::kPthreadCondTimedwait);
  return scope.End(Real<int (*)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*)>(
      Call::kPthreadCondTimedwait)(cond, mutex, abstime));
}
AIPROF_OSRT int pthread_join(pthread_t thread, void** result) {
  Scope scope(Call::kPthreadJoin);
  return scope.End(Real<int (*)(pthread_t, void**)>(Call::kPthreadJoin)(thread, result));
}
AIPROF_OSRT int sem_wait(sem_t* sem) {
  Scope scope(Call::kSemWait);
  return scope.End(Real<int (*)(sem_t*)>(Call::kSemWait)(sem));
}
AIPROF_OSRT int poll(struct pollfd* fds, nfds_t count, int timeout) {
  Scope scope(Call::kPoll);
  return scope.End(Real<int (*)(struct pollfd*, nfds_t, int)>(Call::kPoll)(fds, count, timeout));
}
AIPROF_OSRT int epoll_wait(int epfd, struct epoll_event* events, int max, int timeout) {
  Scope scope(Call::kEpollWait);
  return scope.End(Real<int (*)(int, struct epoll_event*, int, int)>(Call::kEpollWait)(
      epfd, events, max, timeout));
}
AIPROF_OSRT int select(int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* timeout) {
  Scope scope(Call::kSelect);
  return scope.End(Real<int (*)(int, fd_set*, fd_set*, fd_set*, struct timeval*)>(Call::kSelect)(
      n, r, w, e, timeout));
}
AIPROF_OSRT ssize_t read(int fd, void* buffer, size_t size) {
  Scope scope(Call::kRead);
  return scope.End(Real<ssize_t (*)(int, void*, size_t)>(Call::kRead)(fd, buffer, size));
}
AIPROF_OSRT ssize_t write(int fd, const void* buffer, size_t size) {
  Scope scope(Call::kWrite);
  return scope.End(Real<ssize_t (*)(int, const void*, size_t)>(Call::kWrite)(fd, buffer, size));
}
AIPROF_OSRT ssize_t pread64(int fd, void* buffer, size_t size, off_t offset) {
  Scope scope(Call::kPread);
  return scope.End(
      Real<ssize_t (*)(int, void*, size_t, off_t)>(Call::kPread)(fd, buffer, size, offset));
}
AIPROF_OSRT ssize_t pwrite64(int fd, const void* buffer, size_t size, off_t offset) {
  Scope scope(Call::kPwrite);
  return scope.End(
      Real<ssize_t (*)(int, const void*, size_t, off_t)>(Call::kPwrite)(fd, buffer, size, offset));
}
AIPROF_OSRT ssize_t recv(int fd, void* buffer, size_t size, int flags) {
  Scope scope(Call::kRecv);
  return scope.End(
      Real<ssize_t (*)(int, void*, size_t, int)>(Call::kRecv)(fd, buffer, size, flags));
}
AIPROF_OSRT ssize_t send(int fd, const void* buffer, size_t size, int flags) {
  Scope scope(Call::kSend);
  return scope.End(
      Real<ssize_t (*)(int, const void*, size_t, int)>(Call::kSend)(fd, buffer, size, flags));
}
AIPROF_OSRT ssize_t recvfrom(int fd, void* buffer, size_t size, int flags, struct sockaddr* from,
                             socklen_t* from_size) {
  Scope scope(Call::kRecvfrom);
  return scope.End(Real<ssize_t (*)(int, void*, size_t, int, struct sockaddr*, socklen_t*)>(
      Call::kRecvfrom)(fd, buffer, size, flags, from, from_size));
}
AIPROF_OSRT ssize_t sendto(int fd, const void* buffer, size_t size, int flags,
                           const struct sockaddr* to, socklen_t to_size) {
  Scope scope(Call::kSendto);
  return scope.End(
      Real<ssize_t (*)(int, const void*, size_t, int, const struct sockaddr*, socklen_t)>(
          Call::kSendto)(fd, buffer, size, flags, to, to_size));
}
AIPROF_OSRT int accept(int fd, struct sockaddr* address, socklen_t* size) {
  Scope scope(Call::kAccept);
  return scope.End(
      Real<int (*)(int, struct sockaddr*, socklen_t*)>(Call::kAccept)(fd, address, size));
}
AIPROF_OSRT int connect(int fd, const struct sockaddr* address, socklen_t size) {
  Scope scope(Call::kConnect);
  return scope.End(
      Real<int (*)(int, const struct sockaddr*, socklen_t)>(Call::kConnect)(fd, address, size));
}
AIPROF_OSRT unsigned int sleep(unsigned int seconds) {
  Scope scope(Call::kSleep);
  return scope.End(Real<unsigned int (*)(unsigned int)>(Call::kSleep)(seconds));
}
AIPROF_OSRT int usleep(useconds_t micros) {
  Scope scope(Call::kUsleep);
  return scope.End(Real<int (*)(useconds_t)>(Call::kUsleep)(micros));
}
AIPROF_OSRT int nanosleep(const struct timespec* duration, struct timespec* remaining) {
  Scope scope(Call::kNanosleep);
  return scope.End(Real<int (*)(const struct timespec*, struct timespec*)>(Call::kNanosleep)(
      duration, remaining));
}
AIPROF_OSRT int clock_nanosleep(clockid_t clock, int flags, const struct timespec* duration,
                                struct timespec* remaining) {
  Scope scope(Call::kClockNanosleep);
  return scope.End(Real<int (*)(clockid_t, int, const struct timespec*, struct timespec*)>(
      Call::kClockNanosleep)(clock, flags, duration, remaining));
}
