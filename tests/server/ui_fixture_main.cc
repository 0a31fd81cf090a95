// ui_e2e_fixture <parent dir> [--gemm-us=N | --cluster | --p2p]: writes a PROF_* directory for the
// web UI's end-to-end test with what examples/train cannot record here: PyTorch operators with
// allocator events and CUDA kernels launched from them. The records are written as the runtime and
// its torch and CUDA sources write them (the raw format, via the tests' RawProcessWriter); the
// kernels stand in for a GPU this machine does not have, so this is a test double of the CUDA
// source's output, not of aiprof's own code: the parser, analyses, exporters and server all run as
// in production. Prints the directory's path.
//
// One process (pid 5151), torch thread 11, CUPTI thread 12. Steps 1-3, 1 ms each; in each:
// aten::linear ⊃ aten::addmm (allocates (step + 1) × 4 KiB, launches gemm_kernel: N + 10 × step
// µs, N = 200 unless --gemm-us says otherwise, at most 440, so that two runs can be compared),
// then aten::relu (allocates 1 KiB, launches relu_kernel); both blocks are freed at the step's
// end.
//
// --cluster instead writes a 4-rank gloo job (tests/support/cluster_data_builder.h, the
// cluster tests' writer): one PROF_* per rank, 3 steps, each ending in an allreduce that rank 2
// (slower by 200 µs per step) makes the others wait for. Prints the parent directory.
// --p2p writes a 2-rank gloo job with point-to-point transfers: per step (1-3) rank 1 posts a
// gloo:recv 10 µs into the step, rank 0 computes (aten::mm, 20 × step µs) and then sends
// (gloo:send); both end 30 µs after the send starts. The ranges are the backend ranges the
// runtime records (mstx push/pop), in one PROF_* per rank as the cluster writer lays them out.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "format/records_cuda.h"
#include "format/records_torch.h"
#include "support/cluster_data_builder.h"
#include "support/raw_data_builder.h"

namespace {

using namespace aiprof;
using format::CudaRecordKind;
using format::TorchKind;

constexpr uint32_t kPid = 5151, kTorchTid = 11, kCuptiTid = 12;
constexpr uint64_t kBase = 1'000'000'000;  // CLOCK_MONOTONIC_RAW ns
constexpr int64_t kRealtimeOffset = 1'700'000'000'000'000'000;
constexpr uint32_t kStream = 7;
constexpr uint16_t kCudaDevice0 = 1 | (1 << 8);  // c10::DeviceType CUDA, index 0 (+1)

struct KernelWords {
  format::CudaSpan span;
  format::CudaKernelGeometry geometry;
  format::CudaKernelResources resources;
  format::CudaGraphNode graph;
  format::CudaKernelLaunch launch;
};

struct OpBegin {
  format::TorchOpIds ids;
  format::TorchOpThreads threads;
};

struct MemoryEvent {
  format::TorchMemoryBlock block;
  format::TorchMemoryTotals totals;
};

class FixtureWriter {
 public:
  FixtureWriter(const std::filesystem::path& data_file, uint64_t gemm_ns)
      : gemm_ns_(gemm_ns),
        w_(data_file.string(), kPid,
           testing::MetadataJson(kPid, "fixture", false, 0, 0, kRealtimeOffset + kBase,
                                 kRealtimeOffset + kBase + 5'000'000)) {
    w_.ClockSync(kBase, kBase, kRealtimeOffset + kBase);
    w_.ThreadName(kTorchTid, kBase, "python");
    const uint32_t device_name = w_.Intern("Fixture GPU (test double of the CUDA source)");
    struct {
      format::CudaDeviceInfo info;
      format::CudaDeviceLimits limits;
      format::CudaDeviceMemory memory;
    } device{{80ull << 30, 132, 9, 0}, {64, 32, 65536, 65536}, {233472, 49152, 1024, 32}};
    w_.Thread(kCuptiTid).AddWith(Kind(CudaRecordKind::kDevice), kBase, 0, device_name, device);
  }

  void Step(uint32_t step) {
    const uint64_t begin = kBase + step * 1'000'000;
    auto& torch = w_.Thread(kTorchTid);
    w_.StepBegin(kTorchTid, begin, step);
    const uint64_t linear = OpBeginAt(begin + 100'000, "aten::linear");
    const uint64_t addmm = OpBeginAt(begin + 110'000, "aten::addmm");
    const int64_t big = static_cast<int64_t>(step + 1) * 4096;
    Memory(begin + 120'000, 0x10000 * step, big);
    Launch(begin + 130'000, addmm, "gemm_kernel", begin + 150'000, gemm_ns_ + step * 10'000);
    torch.Add(Kind(TorchKind::kOpEnd), begin + 400'000, 0, static_cast<uint32_t>(addmm));
    torch.Add(Kind(TorchKind::kOpEnd), begin + 420'000, 0, static_cast<uint32_t>(linear));
    const uint64_t relu = OpBeginAt(begin + 500'000, "aten::relu");
    Memory(begin + 510'000, 0x10000 * step + 0x8000, 1024);
    Launch(begin + 520'000, relu, "relu_kernel", begin + 600'000, 50'000);
    torch.Add(Kind(TorchKind::kOpEnd), begin + 650'000, 0, static_cast<uint32_t>(relu));
    Memory(begin + 900'000, 0x10000 * step + 0x8000, -1024);
    Memory(begin + 910'000, 0x10000 * step, -big);
    w_.StepEnd(kTorchTid, begin + 999'000, step);
  }

  void Close() {
    w_.ClockSync(kBase + 5'000'000, kBase + 5'000'000, kRealtimeOffset + kBase + 5'000'000);
    w_.Flush();
    w_.Close();
  }

 private:
  template <typename K>
  static constexpr uint8_t Kind(K kind) {
    return static_cast<uint8_t>(kind);
  }

  uint64_t OpBeginAt(uint64_t ts, const std::string& name) {
    const uint64_t id = ++record_id_;
    w_.Thread(kTorchTid).AddWith(Kind(TorchKind::kOpBegin), ts, 0, w_.Intern(name),
                                 OpBegin{{id, static_cast<int64_t>(id)}, {0, 1}});
    return id;
  }

  void Memory(uint64_t ts, uint64_t address, int64_t bytes) {
    allocated_ += bytes;
    reserved_ = std::max(reserved_, allocated_ + (1 << 20));
    w_.Thread(kTorchTid).AddWith(Kind(TorchKind::kMemory), ts, kCudaDevice0, 0,
                                 MemoryEvent{{address, bytes}, {allocated_, reserved_}});
  }

  // cudaLaunchKernel on the torch thread inside operator `op`, and its kernel on stream 7.
  void Launch(uint64_t ts, uint64_t op, const std::string& kernel, uint64_t kernel_start,
              uint64_t kernel_ns) {
    const uint32_t correlation = ++correlation_;
    w_.Thread(kTorchTid).AddWith(Kind(CudaRecordKind::kApi), ts, 0, w_.Intern("cudaLaunchKernel"),
                                 format::CudaApiCall{ts + 8'000, correlation, 211});
    auto& cupti = w_.Thread(kCuptiTid);
    cupti.AddWith(Kind(CudaRecordKind::kExternalCorrelation), ts + 1, 0, 0,
                  format::CudaExternalCorrelation{op, correlation, format::kCudaExternalOperator});
    KernelWords words{};
    words.span = {kernel_start + kernel_ns, correlation, kStream};
    words.geometry = {128, 1, 1, 1};
    words.resources = {256, 1, 1, 32, 5000};
    cupti.AddWith(Kind(CudaRecordKind::kKernel), kernel_start, 0, w_.Intern(kernel), words);
  }

  uint64_t gemm_ns_;
  testing::RawProcessWriter w_;
  uint64_t record_id_ = 0;
  uint32_t correlation_ = 0;
  int64_t allocated_ = 0;
  int64_t reserved_ = 0;
};

// One rank of the --p2p job: its PROF_* directory, info.json and raw data.
void WriteP2pRank(const std::filesystem::path& parent, int rank) {
  namespace fs = std::filesystem;
  const uint32_t pid = 2000 + static_cast<uint32_t>(rank);
  const fs::path prof = parent / ("PROF_00000" + std::to_string(rank + 1) +
                                  "_20260101000000000_P2PRANK" + std::to_string(rank));
  fs::create_directories(prof / "host" / "data");
  nlohmann::json metadata = nlohmann::json::parse(
      testing::MetadataJson(pid, "node0", false, 0, rank, kRealtimeOffset + kBase, 0));
  metadata["world_size"] = 2;
  metadata["local_rank"] = rank;
  metadata["local_world_size"] = 2;
  const std::string file = "aiprof." + std::to_string(pid) + ".data";
  testing::RawProcessWriter w((prof / "host" / "data" / file).string(), pid, metadata.dump());
  constexpr uint32_t kTid = 100;
  w.ClockSync(kBase, kBase, kRealtimeOffset + kBase);
  for (uint32_t step = 1; step <= 3; ++step) {
    const uint64_t begin = kBase + step * 1'000'000;
    const uint64_t send = begin + 10'000 + step * 20'000;
    w.StepBegin(kTid, begin, step);
    if (rank == 0) {
      w.Push(kTid, begin + 10'000, "aten::mm");
      w.Pop(kTid, send - 1'000);
      w.Push(kTid, send, "gloo:send");
    } else {
      w.Push(kTid, begin + 10'000, "gloo:recv");
    }
    w.Pop(kTid, send + 30'000);
    w.StepEnd(kTid, begin + 500'000, step);
  }
  w.ClockSync(kBase + 5'000'000, kBase + 5'000'000, kRealtimeOffset + kBase + 5'000'000);
  w.Close();
  metadata["data_files"] = {"host/data/" + file};
  std::ofstream(prof / "info.json") << metadata.dump(2) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[2]) == "--cluster") {
    testing::ClusterDataSpec spec;
    spec.ranks = 4;
    spec.steps = 3;
    spec.ops_per_step = 4;
    spec.slow_rank = 2;
    spec.slow_extra_ns = 200'000;
    testing::WriteClusterData(argv[1], spec);
    std::cout << argv[1] << "\n";
    return 0;
  }
  if (argc == 3 && std::string_view(argv[2]) == "--p2p") {
    for (int rank = 0; rank < 2; ++rank) WriteP2pRank(argv[1], rank);
    std::cout << argv[1] << "\n";
    return 0;
  }
  uint64_t gemm_us = 200;
  if (argc == 3 && std::string_view(argv[2]).starts_with("--gemm-us=")) {
    gemm_us = std::strtoull(argv[2] + 10, nullptr, 10);
  }
  if (argc < 2 || argc > 3 || (argc == 3 && (gemm_us == 0 || gemm_us > 440))) {
    std::cerr << "usage: ui_e2e_fixture <parent dir> [--gemm-us=1..440 | --cluster | --p2p]\n";
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(argv[1]) / "PROF_000001_20260101000000000_UIFIXTURE00001";
  std::error_code ec;
  fs::create_directories(dir / "host" / "data", ec);
  if (ec) {
    std::cerr << "ui_e2e_fixture: cannot create " << dir << ": " << ec.message() << "\n";
    return 1;
  }
  FixtureWriter writer(dir / "host" / "data" / ("aiprof." + std::to_string(kPid) + ".data"),
                       gemm_us * 1000);
  for (uint32_t step = 1; step <= 3; ++step) writer.Step(step);
  writer.Close();
  std::cout << dir.string() << "\n";
  return 0;
}
