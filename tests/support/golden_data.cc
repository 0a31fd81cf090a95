#include "support/golden_data.h"

#include <filesystem>
#include <fstream>

#include "support/raw_data_builder.h"

namespace aiprof::testing {

std::string WriteGoldenProfDir(const std::string& parent, bool tsc_clock) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(parent) / "PROF_000001_20260101000000000_GOLDENDATA000001";
  fs::create_directories(dir / "host" / "data");
  // With TSC: 3 ticks per ns from an arbitrary origin.
  auto ticks = [&](uint64_t relative_ns) {
    uint64_t ns = kMonotonicBase + relative_ns;
    return tsc_clock ? ns * 3 + 12345 : ns;
  };
  std::string metadata =
      MetadataJson(kGoldenPid, "node1", tsc_clock, 3e9, 0, GoldenRealtime(0), GoldenRealtime(4000));
  {
    std::ofstream info(dir / "info.json");
    info << metadata;
  }
  std::string path =
      (dir / "host" / "data" / ("aiprof." + std::to_string(kGoldenPid) + ".data")).string();
  RawProcessWriter w(path, kGoldenPid, metadata);
  auto sync = [&](uint64_t relative_ns) {
    w.ClockSync(ticks(relative_ns), kMonotonicBase + relative_ns,
                static_cast<uint64_t>(GoldenRealtime(relative_ns)));
  };
  sync(0);
  w.ThreadName(101, ticks(900), "main");
  w.ThreadName(102, ticks(900), "worker");
  w.DomainName(101, ticks(900), 1, "train");
  w.Counter(101, ticks(1000), "cpu_usage", 50.0, format::CounterScope::kCpu, 0, "%");
  w.StepBegin(101, ticks(1000), 1);
  w.Push(101, ticks(1100), "forward");
  w.Push(101, ticks(1200), "matmul");
  w.Pop(101, ticks(1300));
  w.Pop(101, ticks(1500));
  w.Mark(101, ticks(1600), "checkpoint", 1);
  w.RangeStart(101, ticks(1700), 7, "async", 1);
  w.Flush();
  sync(1800);
  w.StepEnd(101, ticks(2000), 1);
  w.Counter(101, ticks(2000), "cpu_usage", 75.0, format::CounterScope::kCpu, 0, "%");
  w.StepBegin(101, ticks(2000), 2);
  w.Push(101, ticks(2100), "forward");
  w.Push(101, ticks(2150), "matmul");
  w.Pop(101, ticks(2350));
  w.Pop(101, ticks(2400));
  w.RangeEnd(102, ticks(2500), 7);
  w.Push(102, ticks(2600), "load");
  w.StepEnd(101, ticks(3000), 2);
  w.Drops(101, ticks(3000), static_cast<uint8_t>(format::RecordKind::kRangePush), 3);
  sync(3000);
  w.Close();
  return dir.string();
}

}  // namespace aiprof::testing
