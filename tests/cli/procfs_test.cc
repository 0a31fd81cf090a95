#include "sources/host/procfs.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace aiprof::host {
namespace {

TEST(ProcStat, ParsesTotalPerCpuAndCounters) {
  auto stat = ParseProcStat(
      "cpu  100 5 50 1000 20 3 7 0 0 0\n"
      "cpu0 60 5 30 500 10 2 4 0 0 0\n"
      "cpu2 40 0 20 500 10 1 3 0 0 0\n"
      "intr 12345 1 2\nctxt 987654\nbtime 1700000000\nprocesses 4321\n"
      "procs_running 3\nprocs_blocked 1\n");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->total.user, 100u);
  EXPECT_EQ(stat->total.nice, 5u);
  EXPECT_EQ(stat->total.softirq, 7u);
  EXPECT_EQ(stat->total.Total(), 100u + 5 + 50 + 1000 + 20 + 3 + 7);
  ASSERT_EQ(stat->per_cpu.size(), 3u);
  EXPECT_TRUE(stat->cpu_present[0]);
  EXPECT_FALSE(stat->cpu_present[1]);  // offline CPU leaves a gap
  EXPECT_EQ(stat->per_cpu[2].idle, 500u);
  EXPECT_EQ(stat->context_switches, 987654u);
  EXPECT_EQ(stat->procs_running, 3u);
  EXPECT_EQ(stat->procs_blocked, 1u);
}

TEST(ProcStat, RejectsGarbage) {
  EXPECT_FALSE(ParseProcStat(""));
  EXPECT_FALSE(ParseProcStat("cpu  x y z\n"));
  EXPECT_FALSE(ParseProcStat("cpuX 1 2 3 4\ncpu 1 2 3 4\n"));
}

TEST(ProcStat, ReadsThisMachine) {
  auto text = ReadProcFile("/proc/stat");
  ASSERT_TRUE(text);
  auto stat = ParseProcStat(*text);
  ASSERT_TRUE(stat);
  EXPECT_GT(stat->total.Total(), 0u);
  EXPECT_GE(stat->per_cpu.size(), 1u);
}

TEST(Meminfo, ParsesKbAndPages) {
  auto values = ParseMeminfo(
      "MemTotal:       24576000 kB\nMemFree:         1000 kB\nHugePages_Total:       4\n"
      "broken line\n");
  EXPECT_EQ(values["MemTotal"], 24576000u);
  EXPECT_EQ(values["MemFree"], 1000u);
  EXPECT_EQ(values["HugePages_Total"], 4u);
  EXPECT_EQ(values.size(), 3u);
}

TEST(PidStat, HandlesSpacesAndParensInComm) {
  auto stat = ParsePidStat(
      "4242 (my (odd) app) S 1 4242 4242 0 -1 4194304 1500 0 7 0 250 120 0 0 20 0 5 0 "
      "123456 100000000 2048 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->pid, 4242);
  EXPECT_EQ(stat->comm, "my (odd) app");
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->ppid, 1);
  EXPECT_EQ(stat->minor_faults, 1500u);
  EXPECT_EQ(stat->major_faults, 7u);
  EXPECT_EQ(stat->utime, 250u);
  EXPECT_EQ(stat->stime, 120u);
  EXPECT_EQ(stat->threads, 5u);
  EXPECT_EQ(stat->start_time, 123456u);
  EXPECT_EQ(stat->rss_pages, 2048u);
  EXPECT_FALSE(ParsePidStat("12 (short) S 1 2"));
}

TEST(PidStat, ReadsSelf) {
  auto text = ReadProcFile("/proc/self/stat");
  ASSERT_TRUE(text);
  auto stat = ParsePidStat(*text);
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->pid, getpid());
  EXPECT_EQ(stat->ppid, getppid());
  EXPECT_GE(stat->threads, 1u);
  EXPECT_GT(stat->rss_pages, 0u);
}

TEST(PidIo, ParsesReadAndWriteBytes) {
  auto io = ParsePidIo(
      "rchar: 10\nwchar: 20\nsyscr: 1\nsyscw: 2\nread_bytes: 4096\n"
      "write_bytes: 8192\ncancelled_write_bytes: 0\n");
  ASSERT_TRUE(io);
  EXPECT_EQ(io->read_bytes, 4096u);
  EXPECT_EQ(io->write_bytes, 8192u);
  EXPECT_FALSE(ParsePidIo("rchar: 10\n"));
}

TEST(NetDev, SumsAllButLoopback) {
  auto net = ParseNetDev(
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
      "errs drop fifo colls carrier compressed\n"
      "    lo:    3267      29    0    0    0     0          0         0     3267      29    0 "
      "   0    0     0       0          0\n"
      "  eth0: 1000 10 1 2 0 0 0 0 2000 20 3 4 0 0 0 0\n"
      "  eth1: 500 5 0 0 0 0 0 0 700 7 0 1 0 0 0 0\n");
  ASSERT_TRUE(net);
  EXPECT_EQ(net->rx_bytes, 1500u);
  EXPECT_EQ(net->rx_packets, 15u);
  EXPECT_EQ(net->rx_errors, 1u);
  EXPECT_EQ(net->rx_dropped, 2u);
  EXPECT_EQ(net->tx_bytes, 2700u);
  EXPECT_EQ(net->tx_packets, 27u);
  EXPECT_EQ(net->tx_errors, 3u);
  EXPECT_EQ(net->tx_dropped, 5u);
}

TEST(PidList, ParsesChildrenFile) {
  EXPECT_EQ(ParsePidList("12 34 56 "), (std::vector<int>{12, 34, 56}));
  EXPECT_TRUE(ParsePidList("").empty());
}

}  // namespace
}  // namespace aiprof::host
