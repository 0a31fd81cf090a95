// The CUDA importer on hand-written raw data (written as the runtime writes it): API names,
// records the importer must survive (too few ext words, activity before its device
// record, external ids arriving after the kernel), and the tick rate of a TSC file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <filesystem>
#include <optional>
#include <string>

#include "format/records_cuda.h"
#include "model/parser.h"
#include "support/raw_data_builder.h"

namespace aiprof::model {
namespace {

namespace fs = std::filesystem;
using format::CudaRecordKind;

constexpr uint8_t Kind(CudaRecordKind kind) {
  return static_cast<uint8_t>(kind);
}
constexpr uint32_t kPid = 4242, kAppTid = 4243, kCuptiTid = 4250;

struct KernelWords {
  format::CudaSpan span;
  format::CudaKernelGeometry geometry;
  format::CudaKernelResources resources;
  format::CudaGraphNode graph;
  format::CudaKernelLaunch launch;
};

std::optional<uint64_t> Arg(const Model& m, uint32_t set, std::string_view key) {
  if (set == 0) return std::nullopt;
  for (uint32_t i = m.args.set_begin[set]; i < m.args.set_begin[set + 1]; ++i) {
    if (m.Str(m.args.key[i]) == key) return m.args.value[i];
  }
  return std::nullopt;
}

class CudaImporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (fs::temp_directory_path() / ("cuda_importer_" + std::to_string(getpid()) + ".data"))
                .string();
  }
  void TearDown() override { fs::remove(path_); }
  std::string path_;
};

TEST_F(CudaImporterTest, NamesFlowsLateExternalIdsAndMalformedRecords) {
  {
    // A 2 GHz TSC clock: 2 ticks per ns.
    testing::RawProcessWriter w(path_, kPid,
                                testing::MetadataJson(kPid, "host", true, 2e9, 0, 0, 0));
    w.ClockSync(1'000'000, 1'000'000'000, 1'700'000'000'000'000'000);
    w.ClockSync(3'000'000, 1'001'000'000, 1'700'000'000'001'000'000);
    const uint32_t launch = w.Intern("cudaLaunchKernel_v7000");
    const uint32_t alloc = w.Intern("cuMemAlloc_v2");
    const uint32_t kernel_name = w.Intern("_Z5scalePffi");
    auto& app = w.Thread(kAppTid);
    app.AddWith(Kind(CudaRecordKind::kApi), 1'100'000, 0, launch,
                format::CudaApiCall{1'110'000, 7, 211});
    app.AddWith(Kind(CudaRecordKind::kApi), 1'200'000, 1, alloc,
                format::CudaApiCall{1'210'000, 8, 9});
    auto& cupti = w.Thread(kCuptiTid);
    // A kernel before any device record (no occupancy known), launched by correlation 7.
    KernelWords k{};
    k.span = {1'300'000, 7, 13};
    k.geometry = {64, 1, 1, 1};
    k.resources = {128, 1, 1, 24, 0};
    cupti.AddWith(Kind(CudaRecordKind::kKernel), 1'200'000, 0, kernel_name, k);
    // Its operator id arrives after it.
    cupti.AddWith(Kind(CudaRecordKind::kExternalCorrelation), 1'400'000, 0, 0,
                  format::CudaExternalCorrelation{99, 7, format::kCudaExternalOperator});
    // A kernel record cut short (two ext words): skipped, not misread.
    cupti.AddRaw(Kind(CudaRecordKind::kKernel), 1'500'000, 0, kernel_name, &k, 2);
    // A copy: 2 MB in 100,000 ticks = 50 µs → 40 GB/s.
    struct {
      format::CudaSpan span;
      format::CudaCopy copy;
      format::CudaGraphNode graph;
    } copy{{1'700'000, 7, 13}, {2'000'000, 1, 1, 1, 3, 0}, {}};
    cupti.AddWith(Kind(CudaRecordKind::kMemcpy), 1'600'000, 0, 0, copy);
    w.Flush();
    w.Close();
  }
  const Model m = ParseFiles({path_});
  ASSERT_EQ(m.files.size(), 1u);
  EXPECT_TRUE(m.files[0].report.clean()) << m.files[0].report.Summary();

  int kernels = 0, copies = 0;
  std::vector<std::string> apis;
  for (uint32_t s = 0; s < m.slices.size(); ++s) {
    const std::string_view category = m.Str(m.slices.category[s]);
    const uint32_t args = m.slices.args[s];
    if (category == "cuda_runtime" || category == "cuda_driver") {
      apis.emplace_back(m.Str(m.slices.name[s]));
      EXPECT_EQ(m.threads.tid[m.ThreadOfSlice(s)], kAppTid);
    } else if (category == "kernel") {
      ++kernels;
      EXPECT_EQ(m.Str(m.slices.name[s]), "scale(float*, float, int)");
      EXPECT_EQ(Arg(m, args, "External id"), 99u) << "joined in Finish";
      EXPECT_FALSE(Arg(m, args, "theoretical occupancy %").has_value());
      EXPECT_FALSE(Arg(m, args, "est. achieved occupancy %").has_value());
      EXPECT_EQ(m.slices.dur(s), 50'000) << "100,000 ticks of a 2 GHz clock";
    } else if (category == "gpu_memcpy") {
      ++copies;
      EXPECT_EQ(m.Str(m.slices.name[s]), "Memcpy HtoD (Pageable -> Device)");
      EXPECT_NEAR(std::bit_cast<double>(*Arg(m, args, "memory bandwidth (GB/s)")), 40.0, 1e-9);
    }
  }
  EXPECT_EQ(kernels, 1);
  EXPECT_EQ(copies, 1);
  EXPECT_EQ(apis, (std::vector<std::string>{"cudaLaunchKernel", "cuMemAlloc_v2"}));
  size_t ac2g = 0;
  for (size_t f = 0; f < m.flows.size(); ++f) ac2g += m.Str(m.flows.category[f]) == "ac2g";
  EXPECT_EQ(ac2g, 2u) << "launch → kernel and launch → copy (same correlation)";
}

}  // namespace
}  // namespace aiprof::model
