// The runtime in-process through its public APIs: record round trip, threads, drops,
// strings, clock samples, fork.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "aiprof/mstx.h"
#include "aiprof/plugin.h"
#include "runtime/window_fixture.h"

// Forked children of a multi-threaded test start the runtime's writer thread again.
extern "C" const char* __tsan_default_options() {
  return "die_after_fork=0";
}

namespace aiprof::testing {
namespace {

using format::RecordKind;

uint8_t K(RecordKind kind) {
  return static_cast<uint8_t>(kind);
}

TEST(RuntimeTest, RecordsRoundTripThroughTheRawFile) {
  uint64_t range_id = 0;
  uint32_t main_tid = static_cast<uint32_t>(gettid());
  std::string dir = RunWindow("roundtrip", {}, [&] {
    mstxDomainHandle_t domain = mstxDomainCreateA("roundtrip");
    mstxStringHandle_t registered = mstxDomainRegisterStringA(domain, "registered name");
    mstxRangePushA("outer", nullptr);
    mstxDomainRangePushR(domain, registered, nullptr);
    mstxEventAttributes attributes{};
    attributes.fields = MSTX_ATTR_COLOR | MSTX_ATTR_PAYLOAD | MSTX_ATTR_CATEGORY;
    attributes.color_argb = 0xFF112233u;
    attributes.category = 7;
    attributes.payload_type = MSTX_PAYLOAD_DOUBLE;
    attributes.payload.f64 = 2.5;
    mstxMarkExA("marked", &attributes, nullptr);
    mstxDomainRangePop(domain);
    range_id = mstxRangeStartA("cross-thread", nullptr);
    std::thread([&] { mstxRangeEnd(range_id); }).join();
    mstxRangePop();
    aiprofStepBegin(3);
    aiprofStepEnd(3);
  });
  ASSERT_FALSE(dir.empty());
  RawData data = LoadRawFile(RuntimeDataFile(dir, static_cast<uint32_t>(getpid())));
  ASSERT_TRUE(data.opened) << data.error;
  EXPECT_TRUE(data.report.clean()) << data.report.Summary();
  EXPECT_EQ(data.pid, static_cast<uint32_t>(getpid()));

  std::vector<Record> mine;
  const Record* end = nullptr;
  for (const Record& record : data.records) {
    if (record.tid == main_tid && record.kind >= K(RecordKind::kMark) &&
        record.kind <= K(RecordKind::kStepEnd)) {
      mine.push_back(record);
    }
    if (record.kind == K(RecordKind::kRangeEnd)) end = &record;
  }
  ASSERT_EQ(mine.size(), 8u);
  EXPECT_EQ(mine[0].kind, K(RecordKind::kRangePush));
  EXPECT_EQ(data.Name(mine[0].arg), "outer");
  EXPECT_EQ(mine[1].kind, K(RecordKind::kRangePush));
  EXPECT_EQ(data.Name(mine[1].arg), "registered name");
  EXPECT_NE(mine[1].aux, 0);  // the "roundtrip" domain
  EXPECT_EQ(mine[2].kind, K(RecordKind::kMark));
  ASSERT_EQ(mine[2].ext.size(), 1u);
  format::MarkerAttributes attributes;
  std::memcpy(&attributes, mine[2].ext.data(), sizeof attributes);
  EXPECT_EQ(attributes.color_argb, 0xFF112233u);
  EXPECT_EQ(attributes.category, 7);
  EXPECT_EQ(attributes.payload_type, format::kPayloadDouble);
  double payload;
  std::memcpy(&payload, &attributes.payload, sizeof payload);
  EXPECT_EQ(payload, 2.5);
  EXPECT_EQ(mine[3].kind, K(RecordKind::kRangePop));
  EXPECT_EQ(mine[3].aux, mine[1].aux);
  EXPECT_EQ(mine[4].kind, K(RecordKind::kRangeStart));
  EXPECT_EQ(mine[4].ext[0].lo, range_id);
  EXPECT_EQ(mine[5].kind, K(RecordKind::kRangePop));
  EXPECT_EQ(mine[5].aux, 0);
  EXPECT_EQ(mine[6].kind, K(RecordKind::kStepBegin));
  EXPECT_EQ(mine[6].arg, 3u);
  EXPECT_EQ(mine[7].kind, K(RecordKind::kStepEnd));
  for (size_t i = 1; i < mine.size(); ++i) EXPECT_LE(mine[i - 1].ts, mine[i].ts);
  ASSERT_NE(end, nullptr);
  EXPECT_NE(end->tid, main_tid);
  EXPECT_EQ(end->ext[0].lo, range_id);
  EXPECT_GE(end->ts, mine[4].ts);

  nlohmann::json info = ReadInfoJson(dir);
  EXPECT_EQ(info["pid"], getpid());
  EXPECT_EQ(info["stop_reason"], "stop");
  EXPECT_TRUE(info["end_realtime_ns"].get<uint64_t>() >= info["start_realtime_ns"].get<uint64_t>());
  EXPECT_TRUE(info["clock"]["source"] == "tsc" || info["clock"]["source"] == "monotonic_raw");
  EXPECT_EQ(info["drops"]["total"], 0);
  EXPECT_TRUE(info.contains("hostname") && info.contains("cmdline") && info.contains("cpu_model"));
  ASSERT_FALSE(data.metadata.empty());
  EXPECT_EQ(data.metadata.back()["stop_reason"], "stop");
  EXPECT_EQ(data.Count(RecordKind::kCollection), 2u);
}

long ResidentKb() {
  FILE* status = std::fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (status != nullptr && std::fgets(line, sizeof line, status) != nullptr) {
    if (std::strncmp(line, "VmRSS:", 6) == 0) kb = std::atol(line + 6);
  }
  if (status != nullptr) std::fclose(status);
  return kb;
}

// The pool grows on demand, from the writer thread: a process's very first burst can drop
// records if the writer gets no CPU while the small initial part lasts. A busy process keeps
// its grown pool, and from then on nothing below the cap is lost however late the writer
// runs. This makes the process busy: it records until the pool has grown by 14 MiB (the
// initial 2 MiB to at least 16 MiB).
void GrowThePoolByBeingBusy() {
  long before = ResidentKb();
  RunWindow("warm_up", {}, [&] {
    for (int round = 0; round < 1000 && ResidentKb() - before < 14 * 1024; ++round) {
      for (int i = 0; i < 20000; ++i) mstxMarkA("warm up", nullptr);
      usleep(1000);
    }
  });
  EXPECT_GE(ResidentKb() - before, 14 * 1024) << "the writer thread never grew the pool";
}

TEST(RuntimeTest, EveryEventOfManyThreadsArrivesBelowTheCap) {
  constexpr int kThreads = 4;
  constexpr int kEvents = 50000;
  GrowThePoolByBeingBusy();
  std::string dir = RunWindow("threads", {{"flush_interval_ms", "20"}}, [&] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([] {
        for (int i = 0; i < kEvents; ++i) {
          mstxRangePushA("work", nullptr);
          mstxRangePop();
        }
      });
    }
    for (auto& thread : threads) thread.join();
  });
  RawData data = LoadRawFile(RuntimeDataFile(dir));
  ASSERT_TRUE(data.opened);
  EXPECT_TRUE(data.report.clean()) << data.report.Summary();
  std::map<uint32_t, int> depth;
  std::map<uint32_t, uint64_t> pushes;
  for (const Record& record : data.records) {
    if (record.kind == K(RecordKind::kRangePush)) {
      ++pushes[record.tid];
      EXPECT_EQ(++depth[record.tid], 1);
      EXPECT_EQ(data.Name(record.arg), "work");
    } else if (record.kind == K(RecordKind::kRangePop)) {
      EXPECT_EQ(--depth[record.tid], 0);
    }
  }
  EXPECT_EQ(pushes.size(), static_cast<size_t>(kThreads));
  for (const auto& [tid, count] : pushes) EXPECT_EQ(count, static_cast<uint64_t>(kEvents));
  EXPECT_EQ(data.TotalDrops(), 0u);
}

// Holds the writer thread inside its flush (a plugin's on_flush runs there) while armed,
// so the producers overrun the pool however fast or slow (TSan) they are.
std::atomic<bool> g_hold_writer{false};
void HoldWriter(void*) {
  while (g_hold_writer.load()) usleep(1000);
}

TEST(RuntimeTest, DropsAboveTheCapAreCountedExactly) {
  constexpr int kThreads = 2;
  constexpr int kEvents = 300000;  // 4.8 MB per thread, far above the 1 MiB cap
  std::string dir = RunWindow("drops", {{"buffer_mb", "1"}, {"flush_interval_ms", "5"}}, [&] {
    aiprof_source holder{
        AIPROF_PLUGIN_ABI_VERSION, "test-holder", nullptr, nullptr, HoldWriter, nullptr, nullptr};
    ASSERT_EQ(aiprof_register_source(&holder), 0);
    g_hold_writer = true;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([] {
        for (int i = 0; i < kEvents; ++i) mstxMarkA("m", nullptr);
      });
    }
    for (auto& thread : threads) thread.join();
    g_hold_writer = false;
  });
  RawData data = LoadRawFile(RuntimeDataFile(dir));
  ASSERT_TRUE(data.opened);
  uint64_t read = data.Count(RecordKind::kMark);
  uint64_t dropped = 0;
  for (const auto& [key, count] : data.drops) {
    EXPECT_EQ(key.second, K(RecordKind::kMark));
    dropped += count;
  }
  EXPECT_GT(dropped, 0u);
  EXPECT_EQ(read + dropped, static_cast<uint64_t>(kThreads) * kEvents);
  nlohmann::json info = ReadInfoJson(dir);
  EXPECT_EQ(info["drops"]["total"].get<uint64_t>(), dropped);
}

TEST(RuntimeTest, ManyDistinctStringsAreInternedOnce) {
  std::string dir = RunWindow("strings", {}, [&] {
    char buffer[32];
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < 5000; ++i) {
        std::snprintf(buffer, sizeof buffer, "name %d", i);  // one reused buffer
        mstxMarkA(buffer, nullptr);
      }
    }
  });
  RawData data = LoadRawFile(RuntimeDataFile(dir));
  std::map<std::string, int> seen;
  for (const auto& [id, text] : data.strings) EXPECT_EQ(++seen[text], 1) << text;
  std::vector<std::string> names;
  for (const Record& record : data.records) {
    if (record.kind == K(RecordKind::kMark)) names.push_back(data.Name(record.arg));
  }
  ASSERT_EQ(names.size(), 10000u);
  for (int i = 0; i < 10000; ++i) EXPECT_EQ(names[i], "name " + std::to_string(i % 5000));
}

TEST(RuntimeTest, PluginRecordsAndForeignThreadAttribution) {
  std::string dir = RunWindow("plugin", {}, [&] {
    format::RecordHeader header{aiprof_now(), 90, 1, 5, aiprof_intern("kernel", 6)};
    format::ExtWord ext{123, 456};
    uint8_t record[32];
    std::memcpy(record, &header, 16);
    std::memcpy(record + 16, &ext, 16);
    EXPECT_EQ(aiprof_emit(record, 2), 1);
    EXPECT_EQ(aiprof_emit_for_thread(4242, record, 2), 1);
    EXPECT_NE(aiprof_next_id(), aiprof_next_id());
    aiprof_add_metadata("plugin_test", "{\"devices\": 2}");
  });
  RawData data = LoadRawFile(RuntimeDataFile(dir));
  std::vector<Record> custom;
  for (const Record& record : data.records) {
    if (record.kind == 90) custom.push_back(record);
  }
  ASSERT_EQ(custom.size(), 2u);
  EXPECT_EQ(custom[0].tid, static_cast<uint32_t>(gettid()));
  EXPECT_EQ(custom[1].tid, 4242u);
  for (const Record& record : custom) {
    EXPECT_EQ(data.Name(record.arg), "kernel");
    EXPECT_EQ(record.aux, 5);
    ASSERT_EQ(record.ext.size(), 1u);
    EXPECT_EQ(record.ext[0].lo, 123u);
    EXPECT_EQ(record.ext[0].hi, 456u);
  }
  EXPECT_EQ(ReadInfoJson(dir)["metadata"]["plugin_test"]["devices"], 2);
}

// aiprof_emit_inline is aiprof_emit without the call: records of either, interleaved on
// several threads across many blocks, arrive in order, and each one is either read or
// counted as dropped (a thread's first record and a full block take aiprof_emit). Outside
// a window the inline path stores nothing.
TEST(RuntimeTest, InlineEmitAndEmitShareTheThreadsBlocks) {
  constexpr int kThreads = 3;
  constexpr uint64_t kRecords = 20000;  // 2 or 3 words each: over 10 blocks per thread
  constexpr uint8_t kKind = 91;
  auto emit_all = [](uint64_t thread_index) {
    for (uint64_t i = 0; i < kRecords; ++i) {
      uint8_t record[48];
      const uint32_t words = i % 5 == 0 ? 3 : 2;
      format::RecordHeader header{aiprof_now(), kKind, static_cast<uint8_t>(words - 1), 0, 0};
      format::ExtWord ext{i, thread_index};
      std::memcpy(record, &header, 16);
      std::memcpy(record + 16, &ext, 16);
      std::memcpy(record + 32, &ext, 16);
      if ((i + thread_index) % 3 == 0) {
        aiprof_emit(record, words);
      } else {
        aiprof_emit_inline(record, words);
      }
    }
  };
  uint8_t outside[32] = {};
  EXPECT_EQ(aiprof_emit_inline(outside, 2), 0);
  std::string dir = RunWindow("inline", {{"flush_interval_ms", "5"}}, [&] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(emit_all, t);
    for (auto& thread : threads) thread.join();
  });
  RawData data = LoadRawFile(RuntimeDataFile(dir));
  ASSERT_TRUE(data.opened);
  EXPECT_TRUE(data.report.clean()) << data.report.Summary();
  std::map<uint64_t, uint64_t> read_by_thread;
  std::map<uint64_t, uint64_t> next_at_least;
  for (const Record& record : data.records) {
    if (record.kind != kKind) continue;
    ASSERT_FALSE(record.ext.empty());
    const uint64_t thread_index = record.ext[0].hi;
    const uint64_t sequence = record.ext[0].lo;
    EXPECT_GE(sequence, next_at_least[thread_index]);
    next_at_least[thread_index] = sequence + 1;
    ++read_by_thread[thread_index];
    EXPECT_EQ(record.ext.size(), sequence % 5 == 0 ? 2u : 1u);
    if (record.ext.size() == 2) {
      EXPECT_EQ(record.ext[1].lo, sequence);
    }
  }
  ASSERT_EQ(read_by_thread.size(), static_cast<size_t>(kThreads));
  uint64_t read = 0;
  for (const auto& [thread_index, count] : read_by_thread) read += count;
  uint64_t dropped = 0;
  for (const auto& [key, count] : data.drops) {
    if (key.second == kKind) dropped += count;
  }
  EXPECT_EQ(read + dropped, kThreads * kRecords);
}

TEST(RuntimeTest, NothingIsRecordedOutsideAWindowOrInExcludedDomains) {
  mstxMarkA("before any window", nullptr);
  std::string dir = RunWindow("filters", {{"mstx_domain_exclude", "[\"noisy\"]"}}, [&] {
    mstxDomainHandle_t noisy = mstxDomainCreateA("noisy");
    mstxDomainHandle_t kept = mstxDomainCreateA("kept");
    mstxDomainMarkA(noisy, "dropped by filter", nullptr);
    mstxDomainMarkA(kept, "kept", nullptr);
  });
  mstxMarkA("after the window", nullptr);
  RawData data = LoadRawFile(RuntimeDataFile(dir));
  std::vector<std::string> marks;
  for (const Record& record : data.records) {
    if (record.kind == K(RecordKind::kMark)) marks.push_back(data.Name(record.arg));
  }
  EXPECT_EQ(marks, std::vector<std::string>{"kept"});
}

TEST(RuntimeTest, ClockSamplesConvertRecordTimesToRealtime) {
  uint64_t before_ns = 0, after_ns = 0, mark_ticks = 0;
  std::string dir = RunWindow("clock", {}, [&] {
    timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    before_ns = now.tv_sec * 1000000000ull + now.tv_nsec;
    mark_ticks = aiprof_now();
    mstxMarkA("now", nullptr);
    clock_gettime(CLOCK_REALTIME, &now);
    after_ns = now.tv_sec * 1000000000ull + now.tv_nsec;
  });
  RawData data = LoadRawFile(RuntimeDataFile(dir));
  std::vector<std::pair<uint64_t, uint64_t>> samples;  // ticks, realtime
  const Record* mark = nullptr;
  for (const Record& record : data.records) {
    if (record.kind == K(RecordKind::kClockSync)) samples.push_back({record.ts, record.ext[0].hi});
    if (record.kind == K(RecordKind::kMark)) mark = &record;
  }
  ASSERT_GE(samples.size(), 2u);
  ASSERT_NE(mark, nullptr);
  EXPECT_GE(mark->ts, mark_ticks);
  // The parser's conversion: a line through the first and last sample.
  auto [t0, r0] = samples.front();
  auto [t1, r1] = samples.back();
  ASSERT_GT(t1, t0);
  double ns_per_tick = static_cast<double>(r1 - r0) / static_cast<double>(t1 - t0);
  double converted = static_cast<double>(r0) + (static_cast<double>(mark->ts) - t0) * ns_per_tick;
  // Ordering, not speed: the converted time lies between the readings around the call
  // (1 ms slack for the realtime clock's own adjustment between samples).
  EXPECT_GE(converted, static_cast<double>(before_ns) - 1e6);
  EXPECT_LE(converted, static_cast<double>(after_ns) + 1e6);
  nlohmann::json info = ReadInfoJson(dir);
  if (info["clock"]["source"] == "tsc") {
    EXPECT_GT(info["clock"]["tsc_hz_estimate"].get<double>(), 1e8);
  }
}

TEST(RuntimeTest, StorageLimitStopsTheWindowCleanly) {
  std::string output = MakeTempDir("storage");
  ASSERT_EQ(aiprofInit(output.c_str()), AIPROF_SUCCESS);
  aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_DEFAULT);
  aiprofConfigSetOption(config, "storage_limit_mb", "1");
  aiprofConfigSetOption(config, "flush_interval_ms", "5");
  aiprofConfigSetOption(config, "compress", "false");
  ASSERT_EQ(aiprofStart(config), AIPROF_SUCCESS);
  // Far more than 1 MiB of marks, in rounds so the writer gets to flush in between.
  for (int round = 0; round < 400 && aiprofIsCollecting(); ++round) {
    for (int i = 0; i < 10000; ++i) mstxMarkA("filler", nullptr);
    usleep(2000);
  }
  EXPECT_EQ(aiprofIsCollecting(), 0);
  aiprofDestroyConfig(config);
  std::string dir = aiprofCurrentDir();
  nlohmann::json info = ReadInfoJson(dir);
  EXPECT_EQ(info["stop_reason"], "storage_limit");
  EXPECT_EQ(info["storage_limit_reached"], true);
  RawData data = LoadRawFile(RuntimeDataFile(dir));
  EXPECT_TRUE(data.report.clean()) << data.report.Summary();
  EXPECT_GT(data.Count(RecordKind::kMark), 0u);
}

TEST(RuntimeTest, ForkedChildWritesItsOwnDirectoryWithoutDeadlock) {
  std::atomic<bool> stop{false};
  pid_t child = -1;
  std::string dir = RunWindow("fork", {{"flush_interval_ms", "10"}}, [&] {
    std::thread busy([&] {
      while (!stop.load()) {
        mstxRangePushA("parent busy", nullptr);
        mstxRangePop();
      }
    });
    for (int i = 0; i < 3; ++i) {
      mstxMarkA("parent before fork", nullptr);
      child = fork();
      if (child == 0) {
        mstxMarkA("child", nullptr);
        aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_DEFAULT);
        aiprofStop(config);
        _exit(aiprofCurrentDir()[0] != '\0' ? 0 : 3);
      }
      int status = 0;
      ASSERT_EQ(waitpid(child, &status, 0), child);
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 0);
    }
    stop = true;
    busy.join();
  });
  std::string output = dir.substr(0, dir.rfind('/'));
  std::vector<std::string> dirs = ProfDirs(output);
  ASSERT_EQ(dirs.size(), 4u);  // the parent's and one per child
  int children = 0;
  for (const std::string& prof_dir : dirs) {
    RawData data = LoadRawFile(RuntimeDataFile(prof_dir));
    ASSERT_TRUE(data.opened) << prof_dir;
    EXPECT_TRUE(data.report.clean()) << data.report.Summary();
    std::multiset<std::string> marks;
    for (const Record& record : data.records) {
      if (record.kind == K(RecordKind::kMark)) marks.insert(data.Name(record.arg));
    }
    if (data.pid == static_cast<uint32_t>(getpid())) {
      EXPECT_EQ(marks.count("parent before fork"), 3u);
      EXPECT_EQ(marks.count("child"), 0u);
    } else {
      ++children;
      EXPECT_EQ(marks.count("child"), 1u);
      EXPECT_EQ(marks.count("parent before fork"), 0u);
      EXPECT_EQ(ReadInfoJson(prof_dir)["ppid"], getpid());
    }
  }
  EXPECT_EQ(children, 3);
}

}  // namespace
}  // namespace aiprof::testing
