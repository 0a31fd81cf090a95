// The names the CUDA importer gives CUPTI's values (model/importers/cuda/cuda_names.h).
#include "model/importers/cuda/cuda_names.h"

#include <gtest/gtest.h>

#include "format/records_cuda.h"

namespace aiprof::model::cuda_names {
namespace {

TEST(CudaNames, KernelNamesAreDemangledAndOtherTextKept) {
  EXPECT_EQ(Demangle("_Z6squarePfi"), "square(float*, int)");
  EXPECT_EQ(Demangle("ampere_sgemm_128x64_tn"), "ampere_sgemm_128x64_tn");
  EXPECT_EQ(Demangle(""), "");
}

TEST(CudaNames, OnlyCuptisLongVersionSuffixIsDropped) {
  EXPECT_EQ(ApiName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(ApiName("cuMemAlloc_v2"), "cuMemAlloc_v2");
  EXPECT_EQ(ApiName("cudaMemcpy_vABCD"), "cudaMemcpy_vABCD");
  EXPECT_EQ(ApiName("cudaStreamSynchronize"), "cudaStreamSynchronize");
}

TEST(CudaNames, KindsOutOfRangeAreUnknown) {
  EXPECT_STREQ(CopyKindName(1), "HtoD");
  EXPECT_STREQ(CopyKindName(10), "PtoP");
  EXPECT_STREQ(CopyKindName(200), "Unknown");
  EXPECT_STREQ(MemoryKindName(2), "Pinned");
  EXPECT_STREQ(MemoryKindName(99), "Unknown");
  EXPECT_STREQ(SyncName(2), "Stream Wait Event");
  EXPECT_STREQ(SyncName(0), "Synchronization");
  EXPECT_STREQ(LimitName(format::kOccupancyLimitRegisters), "REGS");
  EXPECT_STREQ(LimitName(0xff), "UNKNOWN");
}

}  // namespace
}  // namespace aiprof::model::cuda_names
