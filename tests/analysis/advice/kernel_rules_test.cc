// The kernel rules on the launch shapes and names of an FP32 PyTorch training run measured on
// an H200 (docs/advice.md): register-capped cuBLAS/CUTLASS GEMMs are not inefficient
// launches, small grids and under-filled launches still are; FP32 GEMMs without Tensor Cores
// are found by name, TF32 and bf16 ones are not.
#include <gtest/gtest.h>

#include "analysis/advice/advice_test_support.h"
#include "analysis/advice/rules.h"

namespace aiprof::analysis::advice {
namespace {

using testing::Evaluate;
using testing::HandBuiltProfiles;
using testing::Shape;

constexpr const char* kXmmaFp32Gemm =
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_"
    "alignc4_execute_kernel__5x_cublas";
constexpr const char* kCutlassSgemm =
    "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>(cutlass_80_simt_sgemm_"
    "128x256_8x4_nt_align1::Params)";
constexpr const char* kGeluBackward =
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)>";

constexpr int64_t kMs = 1'000'000;

// A GPU run whose kernels are `kernels`; kernel time is their sum plus `other_ns`.
HandBuiltProfiles GpuRun(std::vector<KernelShape> kernels, int64_t other_ns = 0) {
  HandBuiltProfiles b;
  b.Add("gpu job");
  b.AddSteps(0, {2000 * kMs}, 0.9, 0);
  ProfileFacts& facts = b.Facts(0);
  facts.kernel_total_ns = other_ns;
  for (const KernelShape& kernel : kernels) facts.kernel_total_ns += kernel.total_ns;
  facts.kernels = std::move(kernels);
  return b;
}

// The H200 run's two largest kernels as aiprof recorded them: grids that fill the GPU, 13%
// estimated occupancy, 12.5% theoretical, capped by registers; the rest of its kernel time
// in element-wise kernels at high occupancy.
HandBuiltProfiles H200Run() {
  return GpuRun({Shape(kXmmaFp32Gemm, 264, 362 * kMs, 9.78, 13, 12.5, "REGS"),
                 Shape(kCutlassSgemm, 264, 346 * kMs, 1.94, 13, 12.5, "REGS"),
                 Shape(kGeluBackward, 132, 12 * kMs, 2048, 94, 100, "WARPS")},
                40 * kMs);
}

TEST(KernelEfficiencyRule, RegisterCappedGemmsWithFullGridsDoNotTrigger) {
  Finding finding = Evaluate(H200Run().input(), "kernel_efficiency");
  EXPECT_EQ(finding.status, RuleStatus::kPassed) << finding.detail;
  // The detail still says how much time such kernels take and what caps them.
  EXPECT_NE(finding.detail.find("93.2% at low occupancy capped by the kernels' own resources "
                                "(REGS 93.2%)"),
            std::string::npos)
      << finding.detail;
  EXPECT_NE(finding.detail.find("0.0% of kernel time in grids smaller than the GPU"),
            std::string::npos)
      << finding.detail;
}

TEST(KernelEfficiencyRule, SmallGridTriggersEvenWhenRegisterCapped) {
  HandBuiltProfiles b = H200Run();
  b.Facts(0).kernels[1].blocks_per_sm = 0.5;  // the sgemm's grid now covers half the SMs
  Finding finding = Evaluate(b.input(), "kernel_efficiency");
  ASSERT_EQ(finding.status, RuleStatus::kTriggered) << finding.detail;
  EXPECT_EQ(finding.severity, Severity::kHigh);  // 45.5% of kernel time, above 40%
  const EvidenceTable& table = finding.evidence.at(0);
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0][0], kCutlassSgemm);
  EXPECT_EQ(table.rows[0][1], "small grid");
  EXPECT_EQ(table.columns.at(6), "theoretical occupancy");
  EXPECT_EQ(table.rows[0][6], "12.5%");
  EXPECT_EQ(table.rows[0][7], "REGS");
}

TEST(KernelEfficiencyRule, UnderFilledLaunchTriggers) {
  // 4 blocks of 2 warps per SM (8 of 64 warp slots, 12%) where the kernel could hold 50%.
  HandBuiltProfiles b = GpuRun({Shape("custom_kernel", 100, 600, 4.0, 12, 50, "SMEM"),
                                Shape("other_kernel", 100, 400, 8.0, 80, 100, "WARPS")});
  Finding finding = Evaluate(b.input(), "kernel_efficiency");
  ASSERT_EQ(finding.status, RuleStatus::kTriggered) << finding.detail;
  EXPECT_EQ(finding.severity, Severity::kHigh);  // 60% of kernel time
  EXPECT_EQ(finding.evidence.at(0).rows.at(0).at(1), "under-filled");
  EXPECT_NE(finding.detail.find("60.0% in under-filled launches: est. occupancy under 25% and "
                                "under 80% of the kernel's theoretical"),
            std::string::npos)
      << finding.detail;
}

TEST(KernelEfficiencyRule, AchievedFractionOfTheoreticalIsTheBoundary) {
  // Theoretical 20%: at 16% (0.8 of it) the kernel's resources cap it; at 15% the launch does.
  HandBuiltProfiles at = GpuRun({Shape("kernel", 10, 1000, 4.0, 16, 20, "REGS")});
  EXPECT_EQ(Evaluate(at.input(), "kernel_efficiency").status, RuleStatus::kPassed);
  HandBuiltProfiles below = GpuRun({Shape("kernel", 10, 1000, 4.0, 15, 20, "REGS")});
  EXPECT_EQ(Evaluate(below.input(), "kernel_efficiency").status, RuleStatus::kTriggered);
  Thresholds strict = Thresholds::Defaults();
  std::string error;
  ASSERT_TRUE(strict.Set("kernel_efficiency.achieved_fraction", 0.7, &error)) << error;
  EXPECT_EQ(Evaluate(below.input(), "kernel_efficiency", strict).status, RuleStatus::kPassed);
}

TEST(KernelEfficiencyRule, LowOccupancyWithoutTheoreticalStillTriggers) {
  // A trace without the theoretical occupancy (torch.profiler's kernel args): the estimate
  // alone decides, as before.
  HandBuiltProfiles b = GpuRun({Shape("kernel", 10, 1000, 4.0, 13, -1, "")});
  Finding finding = Evaluate(b.input(), "kernel_efficiency");
  ASSERT_EQ(finding.status, RuleStatus::kTriggered) << finding.detail;
  EXPECT_EQ(finding.evidence.at(0).rows.at(0).at(6), "n/a");
}

TEST(Fp32MatmulRule, RecognisesFp32GemmAndConvolutionNames) {
  for (const char* name :
       {kXmmaFp32Gemm, kCutlassSgemm, "ampere_sgemm_128x64_tn", "ampere_sgemm_64x32_sliced1x4_tn",
        "void cudnn::detail::implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, "
        "false, true>(int, int, int, float const*, int, float*, float*)",
        "volta_scudnn_128x64_relu_interior_nn_v1", "ampere_scudnn_128x64_relu_xregs_large_nn_v1",
        "sm80_xmma_fprop_implicit_gemm_indexed_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize64x64x8_"
        "stage3_warpsize1x4x1_g1_ffma_aligna4_alignc4"}) {
    EXPECT_TRUE(IsFp32MatmulWithoutTensorCores(name)) << name;
  }
  for (const char* name :
       {"sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize32x32x64_stage3_warpsize2x1x2_tensor16x8x8",
        "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_"
        "segment_k_off_kernel__5x_cublas",
        "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(cutlass_80_"
        "tensorop_s1688gemm_128x128_32x3_nn_align4::Params)",
        "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn",
        "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x64_32x4_nn_align8",
        "volta_h884gemm_64x64_ldg8_nn", "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn",
        kGeluBackward,
        "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, "
        "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>>>>"}) {
    EXPECT_FALSE(IsFp32MatmulWithoutTensorCores(name)) << name;
  }
}

TEST(Fp32MatmulRule, H200RunIsHighAndRankedFirst) {
  HandBuiltProfiles b = H200Run();
  Finding finding = Evaluate(b.input(), "fp32_matmul");
  ASSERT_EQ(finding.status, RuleStatus::kTriggered) << finding.detail;
  EXPECT_EQ(finding.severity, Severity::kHigh);
  EXPECT_NEAR(finding.impact, 708.0 / 760.0, 1e-9);
  EXPECT_NE(finding.detail.find("93.2% of kernel time in 2 FP32"), std::string::npos)
      << finding.detail;
  EXPECT_NE(finding.suggestion.find("set_float32_matmul_precision"), std::string::npos);
  EXPECT_NE(finding.suggestion.find("Ampere"), std::string::npos);
  const EvidenceTable& table = finding.evidence.at(0);
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0][0], kXmmaFp32Gemm);
  EXPECT_EQ(table.rows[0][1], "264");
  EXPECT_EQ(table.rows[0][3], "47.6%");
  AdviceReport report = RunAdvice(b.input(), Thresholds::Defaults());
  ASSERT_FALSE(report.findings.empty());
  EXPECT_EQ(report.findings[0].rule, "fp32_matmul");
}

TEST(Fp32MatmulRule, ShareOfKernelTimeAgainstTwentyAndFiftyPercent) {
  // `fp32` of 1000 ns of kernel time in an FP32 GEMM, the rest in a TF32 one.
  auto run = [](int64_t fp32) {
    return GpuRun({Shape("ampere_sgemm_128x64_tn", 10, fp32),
                   Shape("cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4", 10, 1000 - fp32)});
  };
  EXPECT_EQ(Evaluate(run(100).input(), "fp32_matmul").status, RuleStatus::kPassed);
  EXPECT_EQ(Evaluate(run(200).input(), "fp32_matmul").status, RuleStatus::kPassed);
  Finding medium = Evaluate(run(300).input(), "fp32_matmul");
  EXPECT_EQ(medium.status, RuleStatus::kTriggered);
  EXPECT_EQ(medium.severity, Severity::kMedium);
  EXPECT_EQ(Evaluate(run(500).input(), "fp32_matmul").severity, Severity::kHigh);
}

TEST(Fp32MatmulRule, CpuOnlyOrNoKernelsIsNotEvaluated) {
  HandBuiltProfiles cpu;
  cpu.Add("cpu job");
  cpu.AddSteps(0, {1000}, 0.5);
  Finding on_cpu = Evaluate(cpu.input(), "fp32_matmul");
  EXPECT_EQ(on_cpu.status, RuleStatus::kNotEvaluated);
  EXPECT_NE(on_cpu.detail.find("CPU-only"), std::string::npos) << on_cpu.detail;
  Finding no_kernels = Evaluate(GpuRun({}).input(), "fp32_matmul");
  EXPECT_EQ(no_kernels.status, RuleStatus::kNotEvaluated);
  EXPECT_NE(no_kernels.detail.find("no kernel records"), std::string::npos) << no_kernels.detail;
}

}  // namespace
}  // namespace aiprof::analysis::advice
