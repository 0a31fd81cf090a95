// The writer thread: grows the block pool when it runs low; drains every thread's published
// records into the window's raw file once per flush interval (sooner when blocks run low),
// with new strings first, then ClockSync, domain names, drop counts and thread names;
// recycles drained blocks; runs the delay/duration timers and the storage limit.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "format/reader.h"
#include "format/records.h"
#include "runtime/domains.h"
#include "runtime/metadata.h"
#include "runtime/owned_fd.h"
#include "runtime/runtime.h"
#include "runtime/session.h"
#include "runtime/session_state.h"
#include "runtime/sources.h"

namespace aiprof::runtime {

namespace {

using format::ChunkType;
using format::RecordKind;

constexpr int kIdlePollMs = 200;
// A window flushes this soon after it opens, and as often until its first records are on
// disk (during its first second at most): a program that crashes right after it started
// still leaves its first data, and the launcher a directory to write its exit status in.
constexpr uint64_t kEarlyFlushNs = 50'000'000;
constexpr uint64_t kEarlyFlushPeriodNs = 1'000'000'000;
constexpr int kReopenAttempts = 8;
constexpr uint16_t kThreadNameFromKernel = 1;

struct DrainSpan {
  ThreadState* state;
  int32_t end_block;
  uint32_t end_position;
  bool exited;
};

uint64_t RealtimeNs() {
  return ReadClockNs(CLOCK_REALTIME);
}

void Fail(Window& window, const char* what) {
  __atomic_store_n(&aiprof_markers_active, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&aiprof_collecting, 0, __ATOMIC_RELAXED);
  if (!window.write_error.empty()) return;
  window.write_error = what;
  window.write_failed_realtime_ns = RealtimeNs();
  std::fprintf(stderr,
               "aiprof: writing %s failed (%s); profiling disabled. What could not be written "
               "is counted (info.json \"write_failure\", and dropped events in the export)\n",
               window.data_path.c_str(), what);
}

// Bookkeeping records (names, clocks, counts) are not events a user lost.
bool IsEventKind(uint8_t kind) {
  switch (static_cast<RecordKind>(kind)) {
    case RecordKind::kThreadName:
    case RecordKind::kClockSync:
    case RecordKind::kDrops:
    case RecordKind::kDomainName:
    case RecordKind::kCollection:
    case RecordKind::kForeignThread:
      return false;
    default:
      return kind != 0;
  }
}

void CountUnwritten(Window& window, ChunkType type, const void* data, uint32_t size) {
  window.unwritten_bytes += size;
  if (type != ChunkType::kEvents) return;
  format::RecordCursor cursor({static_cast<const uint8_t*>(data), size});
  format::RecordView record;
  while (cursor.Next(&record)) {
    if (IsEventKind(record.kind())) ++window.unwritten_by_kind[record.kind()];
  }
}

// The program closed the raw file's descriptor (and may have reused the number): the number
// is left alone and the file opened again, appending after its last whole chunk.
bool ReopenWindowFile(Window& window) {
  // A close of the program may be between its scan and its system call: a descriptor opened
  // now would be closed under the next write.
  WaitForProgramCloses();
  OwnedFd file = OwnedFd::Open(window.data_path.c_str(), O_WRONLY | O_APPEND);
  if (!file.valid()) return false;
  window.file->SwitchDescriptor(file.get());
  window.file_fd = std::move(file);
  ++window.file_reopened;
  return true;
}

// Appends one chunk through the window's own descriptor; `error` says why not.
bool AppendChunk(Window& window, ChunkType type, uint32_t tid, const void* data, uint32_t size,
                 std::string* error) {
  if (window.file == nullptr) {
    *error = "the file is closed";
    return false;
  }
  bool written = false;
  auto write = [&](int) { written = window.file->WriteChunk(type, tid, data, size); };
  // A program closing descriptors in a loop may take the reopened one too: a few tries.
  for (int attempt = 0; !window.file_fd.Use(write); ++attempt) {
    if (attempt == kReopenAttempts || !ReopenWindowFile(window)) {
      *error = "the program closed its descriptor and the file cannot be opened again";
      return false;
    }
  }
  if (!written) *error = window.file->last_error();
  return written;
}

// Reads the kernel's name of thread `tid` into `name` (at most 15 chars + NUL).
bool ReadThreadName(uint32_t tid, char name[16]) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
  OwnedFd file = OwnedFd::Open(path, O_RDONLY);
  ssize_t length = 0;
  if (!file.Use([&](int fd) { length = read(fd, name, 15); })) return false;
  if (length <= 0) return false;
  if (name[length - 1] == '\n') --length;
  name[length] = '\0';
  return true;
}

// Finds where each thread's published data ends now. Later records are left for the next
// flush, so every string they use is emitted before them.
std::vector<DrainSpan> SnapshotThreads(Runtime& runtime) {
  std::vector<DrainSpan> spans;
  uint32_t high = runtime.threads.high_water();
  for (uint32_t index = 0; index < high; ++index) {
    ThreadState* state = runtime.threads.Slot(index);
    uint32_t status = state->status.load(std::memory_order_acquire);
    if (status != kSlotActive && status != kSlotExited) continue;
    bool exited = status == kSlotExited;
    if (state->drain_block == kNoBlock) {
      int32_t head = state->chain_head.load(std::memory_order_acquire);
      if (head == kNoBlock) {
        if (exited) spans.push_back({state, kNoBlock, 0, true});
        continue;
      }
      state->drain_block = head;
      state->drain_position = 0;
    }
    int32_t block = state->drain_block;
    for (;;) {
      int32_t next = runtime.pool.Meta(block).next.load(std::memory_order_acquire);
      if (next == kNoBlock) break;
      block = next;
    }
    uint32_t end = runtime.pool.Meta(block).committed.load(std::memory_order_acquire);
    spans.push_back({state, block, end, exited});
  }
  return spans;
}

// Whether any thread published a record or counted a drop since the buffers were last
// drained (a deferred window gets its directory only then).
bool AnythingRecorded(Runtime& runtime) {
  uint32_t high = runtime.threads.high_water();
  for (uint32_t index = 0; index < high; ++index) {
    ThreadState* state = runtime.threads.Slot(index);
    uint32_t status = state->status.load(std::memory_order_acquire);
    if (status != kSlotActive && status != kSlotExited) continue;
    for (const auto& counter : state->drops) {
      if (counter.load(std::memory_order_relaxed) != 0) return true;
    }
    int32_t block = state->drain_block != kNoBlock
                        ? state->drain_block
                        : state->chain_head.load(std::memory_order_acquire);
    if (block == kNoBlock) continue;
    if (runtime.pool.Meta(block).next.load(std::memory_order_acquire) != kNoBlock) return true;
    uint32_t drained = state->drain_block == block ? state->drain_position : 0;
    if (runtime.pool.Meta(block).committed.load(std::memory_order_acquire) > drained) return true;
  }
  return false;
}

void EmitNewStrings(Runtime& runtime, Window& window) {
  format::StringTableBuffer strings;
  uint32_t count = runtime.strings.id_count();
  uint32_t id = window.strings_emitted;
  for (; id < count && runtime.strings.Published(id); ++id) {
    strings.Add(id, std::string_view(runtime.strings.Text(id), runtime.strings.Length(id)));
    if (strings.size() > (8u << 20)) {
      WriteWindowChunk(window, ChunkType::kStrings, 0, strings.data(), strings.size());
      strings.clear();
    }
  }
  window.strings_emitted = id;
  WriteWindowChunk(window, ChunkType::kStrings, 0, strings.data(), strings.size());
}

void AddDrops(Runtime& runtime, const std::vector<DrainSpan>& spans, Window& window,
              format::RecordBuffer* records, uint64_t now) {
  uint64_t total = 0;
  nlohmann::json by_kind = nlohmann::json::object();
  for (const DrainSpan& span : spans) {
    ThreadState* state = span.state;
    uint64_t thread_total = 0;
    for (const auto& counter : state->drops)
      thread_total += counter.load(std::memory_order_relaxed);
    if (thread_total == 0) continue;
    total += thread_total;
    bool changed = thread_total != state->drops_reported_total;
    for (uint32_t kind = 0; kind < 256; ++kind) {
      uint64_t count = state->drops[kind].load(std::memory_order_relaxed);
      if (count == 0) continue;
      by_kind[std::to_string(kind)] = by_kind.value(std::to_string(kind), uint64_t{0}) + count;
      if (changed) {
        format::DropCount drop{count, state->tid, 0};
        records->AddWith(static_cast<uint8_t>(RecordKind::kDrops), now, 0, kind, drop);
      }
    }
    state->drops_reported_total = thread_total;
  }
  uint64_t string_drops = runtime.strings.full_drops();
  if (string_drops != window.string_drops_reported) {
    format::DropCount drop{string_drops, 0, 0};
    records->AddWith(static_cast<uint8_t>(RecordKind::kDrops), now, 0, 0, drop);
    window.string_drops_reported = string_drops;
  }
  // Exited threads' counts leave with their slot, so the window keeps the running total.
  uint64_t previous = window.info["drops"].value("exited_total", uint64_t{0});
  window.info["drops"] = {{"total", total + previous},
                          {"by_kind", by_kind},
                          {"exited_total", previous},
                          {"string_table_full", string_drops}};
}

void DrainThread(Runtime& runtime, Window& window, const DrainSpan& span) {
  ThreadState* state = span.state;
  if (span.end_block != kNoBlock) {
    int32_t block = state->drain_block;
    uint32_t position = state->drain_position;
    for (;;) {
      bool last = block == span.end_block;
      uint32_t end = last ? span.end_position
                          : runtime.pool.Meta(block).committed.load(std::memory_order_acquire);
      if (end > position) {
        WriteWindowChunk(window, ChunkType::kEvents, state->tid,
                         runtime.pool.Data(block) + position, end - position);
        window.records_written = true;
      }
      if (last) {
        position = end;
        break;
      }
      int32_t next = runtime.pool.Meta(block).next.load(std::memory_order_acquire);
      runtime.pool.Push(block);
      block = next;
      position = 0;
      // A long flush (compression) must not hold back growth while producers burst.
      if (runtime.pool.GrowthDue()) runtime.pool.Grow();
    }
    state->drain_block = block;
    state->drain_position = position;
  }
  if (span.exited) {
    if (state->drain_block != kNoBlock) runtime.pool.Push(state->drain_block);
    state->drain_block = kNoBlock;
    uint64_t exited_drops = 0;
    for (const auto& counter : state->drops)
      exited_drops += counter.load(std::memory_order_relaxed);
    auto& drops = window.info["drops"];
    drops["exited_total"] = drops.value("exited_total", uint64_t{0}) + exited_drops;
    runtime.threads.Release(state);
  }
}

void WriterIteration(SessionState& session) {
  Runtime& runtime = GetRuntime();
  uint64_t now = RealtimeNs();
  if (const char* reason = session.pending_stop_reason.exchange(nullptr, std::memory_order_acquire);
      reason != nullptr) {
    StopWindowLocked(session, reason, session.pending_stop_status.load(std::memory_order_relaxed));
  }
  if (session.flush_requested.exchange(false) && session.open) FlushLocked(session, false);
  session.signal_requests_done.store(session.signal_requests.load());
  if (session.start_scheduled && now >= session.start_at_ns) {
    session.start_scheduled = false;
    std::string error;
    if (!StartWindowLocked(session, session.scheduled_options, &error)) {
      std::fprintf(stderr, "aiprof: cannot start collection: %s\n", error.c_str());
    }
  }
  if (session.open && session.stop_at_ns != 0 && now >= session.stop_at_ns) {
    StopWindowLocked(session, "duration", kExitStatusUnknown);
  }
  if (!session.open) {
    // Outside windows nothing is kept; this also frees the slots of exited threads.
    DiscardBufferedLocked();
    return;
  }
  bool blocks_low = runtime.pool.Low();
  // Fresh blocks first: they are free at once, while the flush below may take a while.
  if (runtime.pool.GrowthDue()) runtime.pool.Grow();
  if (now >= session.next_flush_ns || blocks_low) {
    FlushLocked(session, false);
    session.next_flush_ns = now + NextFlushDelayNs(session.window, now);
  }
  Window& window = session.window;
  uint64_t limit = window.options.storage_limit_mb << 20;
  if (limit != 0 && window.file != nullptr && window.file->bytes_written() > limit) {
    std::fprintf(stderr, "aiprof: storage limit of %llu MiB reached in %s; collection stopped\n",
                 static_cast<unsigned long long>(window.options.storage_limit_mb),
                 window.dir.c_str());
    window.info["storage_limit_reached"] = true;
    StopWindowLocked(session, "storage_limit", kExitStatusUnknown);
  }
}

int PollTimeoutMs(SessionState& session) {
  std::lock_guard<std::mutex> lock(session.mutex);
  if (!session.open) return session.start_scheduled ? 10 : kIdlePollMs;
  uint64_t now = RealtimeNs();
  if (session.next_flush_ns <= now) return 0;
  uint64_t wait_ms = (session.next_flush_ns - now) / 1000000 + 1;
  if (session.stop_at_ns != 0) wait_ms = std::min<uint64_t>(wait_ms, 10);
  return static_cast<int>(std::min<uint64_t>(wait_ms, kIdlePollMs));
}

// std::mutex is not fair: a writer kept busy by fast producers takes the session mutex again
// as soon as it lets it go, and a fork() of the program (PrepareFork) waited for minutes. It
// waits here (bounded: 100 ms) until the fork has the mutex.
void LetForkIn(SessionState& session) {
  for (int waited_us = 0; session.fork_waiting.load() != 0 && waited_us < 100000; waited_us += 50) {
    timespec pause{0, 50000};
    nanosleep(&pause, nullptr);
  }
}

void* WriterMain(void* argument) {
  auto* session = static_cast<SessionState*>(argument);
  Runtime& runtime = GetRuntime();
  uint32_t seen = runtime.wake_sequence.load(std::memory_order_acquire);
  while (!session->writer_exit.load()) {
    WaitForWake(seen, PollTimeoutMs(*session));
    // Read before the work: a wake during the work makes the next wait return at once.
    seen = runtime.wake_sequence.load(std::memory_order_acquire);
    runtime.poke_pending.store(false, std::memory_order_release);
    // Growth needs no lock (only this thread grows): it is not delayed by a thread that holds
    // the session mutex.
    if (runtime.buffers_ready.load(std::memory_order_acquire) && runtime.pool.GrowthDue()) {
      runtime.pool.Grow();
    }
    LetForkIn(*session);
    std::lock_guard<std::mutex> lock(session->mutex);
    WriterIteration(*session);
  }
  return nullptr;
}

}  // namespace

uint64_t NextFlushDelayNs(const Window& window, uint64_t now) {
  uint64_t interval = uint64_t{window.options.flush_interval_ms} * 1000000;
  bool early = !window.records_written && now < window.first_sync.realtime_ns + kEarlyFlushPeriodNs;
  return early ? std::min(interval, kEarlyFlushNs) : interval;
}

void PokeWriterNow() {
  WakeWriter();
}

void FlushLocked(SessionState& session, bool final) {
  Runtime& runtime = GetRuntime();
  Window& window = session.window;
  if (window.files_deferred) {
    if (!final) RunSourcesFlush();
    if (!AnythingRecorded(runtime) || !CreateDeferredWindowFilesLocked(session)) return;
  } else {
    if (window.file == nullptr) return;
    if (!final) RunSourcesFlush();
  }
  std::vector<DrainSpan> spans = SnapshotThreads(runtime);

  struct NameChange {
    uint32_t tid;
    uint32_t name_id;
  };
  std::vector<NameChange> names;
  for (const DrainSpan& span : spans) {
    ThreadState* state = span.state;
    char name[16];
    if (span.exited) {
      std::memcpy(name, state->name_at_exit, sizeof name);
      name[15] = '\0';
    } else if (!ReadThreadName(state->tid, name)) {
      continue;
    }
    if (state->tid == static_cast<uint32_t>(getpid())) CorrectExecutableName(name);
    if (name[0] == '\0') continue;
    if (std::strcmp(name, state->reported_name) == 0) continue;
    bool full = false;
    names.push_back({state->tid, runtime.strings.Intern(name, std::strlen(name), &full)});
    std::memcpy(state->reported_name, name, sizeof name);
  }
  std::vector<DomainName> domains = DomainNamesFrom(window.domains_emitted);

  EmitNewStrings(runtime, window);

  ClockSyncSample sync = SampleClocks();
  format::RecordBuffer process_records;
  format::ClockSample clock{sync.monotonic_raw_ns, sync.realtime_ns};
  if (window.first_sync_pending) {
    format::ClockSample opened{window.first_sync.monotonic_raw_ns, window.first_sync.realtime_ns};
    process_records.AddWith(static_cast<uint8_t>(RecordKind::kClockSync), window.first_sync.ticks,
                            0, 0, opened);
    window.first_sync_pending = false;
  }
  process_records.AddWith(static_cast<uint8_t>(RecordKind::kClockSync), sync.ticks, 0, 0, clock);
  for (const DomainName& domain : domains) {
    process_records.Add(static_cast<uint8_t>(RecordKind::kDomainName), sync.ticks, domain.id,
                        domain.name_id);
  }
  window.domains_emitted += static_cast<uint32_t>(domains.size());
  if (!window.collection_start_emitted) {
    process_records.Add(static_cast<uint8_t>(RecordKind::kCollection), window.first_sync.ticks, 1,
                        static_cast<uint32_t>(window.index));
    window.collection_start_emitted = true;
  }
  if (final) {
    process_records.Add(static_cast<uint8_t>(RecordKind::kCollection), sync.ticks, 0,
                        static_cast<uint32_t>(window.index));
  }
  AddDrops(runtime, spans, window, &process_records, sync.ticks);
  WriteWindowChunk(window, ChunkType::kEvents, 0, process_records.data(), process_records.size());

  for (const NameChange& change : names) {
    format::RecordBuffer record;
    record.Add(static_cast<uint8_t>(RecordKind::kThreadName), sync.ticks, kThreadNameFromKernel,
               change.name_id);
    WriteWindowChunk(window, ChunkType::kEvents, change.tid, record.data(), record.size());
  }
  for (const DrainSpan& span : spans) DrainThread(runtime, window, span);
}

bool WriteWindowChunk(Window& window, ChunkType type, uint32_t tid, const void* data,
                      uint32_t size) {
  if (window.file == nullptr || size == 0) return window.file != nullptr;
  std::string error;
  if (window.write_error.empty() && AppendChunk(window, type, tid, data, size, &error)) return true;
  CountUnwritten(window, type, data, size);
  if (window.write_error.empty()) Fail(window, error.c_str());
  return false;
}

void CloseWindowFile(Window& window) {
  window.file.reset();
  window.file_fd.Close();
}

std::string RuntimeReservePath(const Window& window) {
  return window.dir + "/.reserve.runtime";
}

std::string LauncherReservePath(const Window& window) {
  return window.dir + "/.reserve.launcher";
}

void RecordWriteFailure(Window& window) {
  unlink(RuntimeReservePath(window).c_str());
  uint64_t lost = 0;
  format::RecordBuffer counts;
  uint64_t now = Now();
  nlohmann::json by_kind = nlohmann::json::object();
  for (uint32_t kind = 0; kind < window.unwritten_by_kind.size(); ++kind) {
    uint64_t count = window.unwritten_by_kind[kind];
    if (count == 0) continue;
    lost += count;
    by_kind[std::to_string(kind)] = count;
    // Process-wide counts (thread 0), as for the string table's drops.
    format::DropCount drop{count, 0, 0};
    counts.AddWith(static_cast<uint8_t>(RecordKind::kDrops), now, static_cast<uint16_t>(kind), 0,
                   drop);
  }
  std::string error;
  bool recorded = counts.empty() ||
                  AppendChunk(window, ChunkType::kEvents, 0, counts.data(), counts.size(), &error);
  // The counts are drops to every reader (the export's "dropped events", the summaries).
  nlohmann::json& drops = window.info["drops"];
  drops["total"] = drops.value("total", uint64_t{0}) + lost;
  drops["unwritten"] = lost;
  window.info["write_failure"] = {{"error", window.write_error},
                                  {"at_realtime_ns", window.write_failed_realtime_ns},
                                  {"events_lost", lost},
                                  {"events_lost_by_kind", by_kind},
                                  {"bytes_lost", window.unwritten_bytes},
                                  {"counts_in_raw_file", recorded}};
  std::string text = window.info.dump();
  AppendChunk(window, ChunkType::kMetadata, 0, text.data(), static_cast<uint32_t>(text.size()),
              &error);
}

void DiscardBufferedLocked() {
  Runtime& runtime = GetRuntime();
  std::vector<DrainSpan> spans = SnapshotThreads(runtime);
  for (const DrainSpan& span : spans) {
    ThreadState* state = span.state;
    if (span.end_block != kNoBlock) {
      int32_t block = state->drain_block;
      while (block != span.end_block) {
        int32_t next = runtime.pool.Meta(block).next.load(std::memory_order_acquire);
        runtime.pool.Push(block);
        block = next;
      }
      state->drain_block = block;
      state->drain_position = span.end_position;
    }
    for (auto& counter : state->drops) counter.store(0, std::memory_order_relaxed);
    state->drops_reported_total = 0;
    state->reported_name[0] = '\0';
    if (span.exited) {
      if (state->drain_block != kNoBlock) runtime.pool.Push(state->drain_block);
      state->drain_block = kNoBlock;
      runtime.threads.Release(state);
    }
  }
}

bool EnsureWriterThreadLocked(SessionState& session) {
  if (session.writer_running) return true;
  session.writer_exit.store(false);
  // The thread starts with every signal blocked (inherited mask), so a SIGTERM can never
  // land on the writer, whose handler would wait for itself.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  int created = pthread_create(&session.writer, nullptr, WriterMain, &session);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (created != 0) return false;
  session.writer_running = true;
  return true;
}

void StopWriterThread(SessionState& session) {
  pthread_t writer;
  {
    std::lock_guard<std::mutex> lock(session.mutex);
    if (!session.writer_running) return;
    session.writer_running = false;
    writer = session.writer;
  }
  session.writer_exit.store(true);
  PokeWriterNow();
  pthread_join(writer, nullptr);
}

}  // namespace aiprof::runtime
