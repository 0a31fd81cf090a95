// Which sample gives a Blocked interval its stack (cpu_sampling_importer.cc): in dwarf mode a
// blocking switch-out has a frame-pointer chain sample and a stack-copy sample; the copy is
// used when all its pieces arrived, else the chain, and a copy sample without its copy (the
// leaf alone) only when there is no chain. Samples before the thread's switch-in belong to
// an earlier switch-out and are never taken.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "format/records_cpu.h"
#include "model/parser.h"
#include "support/raw_data_builder.h"

namespace aiprof::model {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kPid = 10, kTid = 20, kWriterTid = 30;
constexpr uint64_t kChainLeaf = 0x401000, kChainCaller = 0x402000, kCopyLeaf = 0x7f0000001000;

uint8_t Kind(format::CpuRecordKind kind) {
  return static_cast<uint8_t>(kind);
}

void Switch(format::RecordBuffer& records, uint64_t ts, bool out) {
  format::CpuSampleHeader sample{kPid, kTid, 0, 0};
  uint16_t flags = format::kCpuTimeMonotonicRaw | (out ? format::kCpuSwitchOut : 0);
  records.AddWith(Kind(format::CpuRecordKind::kCpuSwitch), ts, flags, 0, sample);
}

void ChainSample(format::RecordBuffer& records, uint64_t ts) {
  struct {
    format::CpuSampleHeader sample{kPid, kTid, 0, 2};
    uint64_t ips[2] = {kChainLeaf, kChainCaller};
  } record;
  records.AddWith(Kind(format::CpuRecordKind::kCpuSample), ts,
                  format::kCpuTimeMonotonicRaw | format::kCpuSampleOffCpu, 0, record);
}

// A stack-copy sample; `whole`: its one piece (registers and 16 stack bytes) follows.
void CopySample(format::RecordBuffer& records, uint64_t ts, bool whole) {
  struct {
    format::CpuSampleHeader sample{kPid, kTid, 0, 1};
    uint64_t ips[2] = {kCopyLeaf, 0};
  } record;
  records.AddWith(
      Kind(format::CpuRecordKind::kCpuSample), ts,
      format::kCpuTimeMonotonicRaw | format::kCpuSampleOffCpu | format::kCpuSampleStackCopy, 0,
      record);
  if (!whole) return;
  constexpr uint32_t kStackBytes = 16;
  struct {
    format::CpuStackCopyPiece piece{kPid, kStackBytes, 0, kStackBytes};
    uint64_t regs[format::kCpuUserRegs] = {};
    uint8_t stack[kStackBytes] = {};
  } piece;
  piece.regs[format::kCpuDwarfIp] = kCopyLeaf;
  records.AddWith(Kind(format::CpuRecordKind::kCpuStackCopy), ts, 0, kTid, piece);
}

TEST(BlockingStack, WholeCopyThenChainThenLeafOnlyCopy) {
  fs::path dir = fs::temp_directory_path() / ("aiprof_blocking_stack_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::path prof = dir / "PROF_000001_20260101000000000_BLOCKINGSTACK001";
  fs::create_directories(prof / "host" / "data");
  {
    testing::RawProcessWriter w((prof / "host" / "data" / "aiprof.10.data").string(), kPid,
                                testing::MetadataJson(kPid, "h", false, 0, -1, 0, 0));
    w.ClockSync(1000, 1000, 5000);
    format::RecordBuffer& records = w.Thread(kWriterTid);
    // Blocked 2000..5000: chain and whole copy.
    Switch(records, 1000, false);
    ChainSample(records, 1990);
    CopySample(records, 1995, true);
    Switch(records, 2000, true);
    // Blocked 6000..9000: chain, and a copy sample whose pieces were lost. The whole copy
    // of the previous switch-out is within 100 µs but before this switch-in (5000).
    Switch(records, 5000, false);
    ChainSample(records, 5990);
    CopySample(records, 5995, false);
    Switch(records, 6000, true);
    // Blocked 10000..13000: only a copy sample without its copy.
    Switch(records, 9000, false);
    CopySample(records, 9995, false);
    Switch(records, 10000, true);
    Switch(records, 13000, false);
    w.Close();
  }
  Model m = ParseProfDir(prof.string());
  fs::remove_all(dir);
  const ThreadStateTable& states = m.cpu.thread_states;
  std::vector<uint32_t> blocked;
  for (size_t i = 0; i < states.size(); ++i) {
    if (states.state[i] == ThreadState::kBlocked) blocked.push_back(states.stack[i]);
  }
  ASSERT_EQ(blocked.size(), 3u);
  const CpuStackTable& stacks = m.cpu.stacks;
  auto frames = [&](uint32_t row) {
    return std::vector<uint64_t>(stacks.frames.begin() + stacks.begin[row],
                                 stacks.frames.begin() + stacks.begin[row + 1]);
  };
  ASSERT_NE(blocked[0], UINT32_MAX);
  EXPECT_NE(stacks.copy[blocked[0]], UINT32_MAX) << "the whole copy";
  ASSERT_NE(blocked[1], UINT32_MAX);
  EXPECT_EQ(frames(blocked[1]), (std::vector<uint64_t>{kChainLeaf, kChainCaller})) << "the chain";
  ASSERT_NE(blocked[2], UINT32_MAX);
  EXPECT_EQ(stacks.copy[blocked[2]], UINT32_MAX);
  EXPECT_EQ(frames(blocked[2]), (std::vector<uint64_t>{kCopyLeaf})) << "the leaf alone";
}

}  // namespace
}  // namespace aiprof::model
