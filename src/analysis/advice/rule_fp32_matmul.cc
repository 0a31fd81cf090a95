// FP32 matrix kernels without Tensor Cores: the share of kernel time in single-precision
// GEMM and convolution kernels computed with FP32 FMA on the SIMT cores. From Volta on, the
// same matrix products run on Tensor Cores in FP16; from Ampere on also in TF32 (FP32 inputs,
// one switch in PyTorch) and bf16, several times faster. TensorBoard's profiler plugin gives
// the related advice when no kernel uses Tensor Cores while Tensor-Core-eligible operators
// run (trace-analysis-and-ui.md §2.3 item 6); aiprof measures the time of the FP32 kernels
// themselves, so a run that uses Tensor Cores for part of its work is judged too.
//
// The kernels are recognised by the names cuBLAS, CUTLASS and cuDNN give them (examples from
// public traces and the H200 run of docs/advice.md):
//   - "sgemm": SIMT single-precision GEMM: cutlass_80_simt_sgemm_128x256_8x4_nt_align1,
//     ampere_sgemm_128x64_tn, ampere_sgemm_64x32_sliced1x4_tn, and cuDNN's FP32 convolution
//     implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>;
//   - "scudnn": cuDNN's single-precision convolution, volta_scudnn_128x64_relu_interior_nn_v1,
//     ampere_scudnn_128x64_relu_xregs_large_nn_v1;
//   - "f32f32_f32f32" with "ffma": cuBLAS/cuDNN xmma kernels whose operands and math are FP32
//     on FMA units, sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize
//     2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas, and the convolution
//     sm80_xmma_fprop_implicit_gemm_indexed_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize64x64x8_
//     stage3_warpsize1x4x1_g1_ffma_aligna4_alignc4.
// A name that also carries a Tensor Core or reduced-precision mark is not counted: TF32
// (sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize32x32x64_stage3_warpsize2x1x2_tensor16x8x8,
// cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4), bf16/FP16
// (ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn) and TensorBoard's Tensor Core
// list (h884 s884 h1688 s1688 hmma i8816 16816 c1688, trace-analysis-and-ui.md §2.5; its
// "xmma_gemm" is left out: the FP32 ffma kernels above carry it too).
#include <algorithm>
#include <array>
#include <string_view>

#include "analysis/advice/evidence.h"
#include "analysis/advice/rule_support.h"
#include "analysis/advice/rules.h"
#include "model/ascii_case.h"

namespace aiprof::analysis::advice {
namespace {

constexpr size_t kKernelsShown = 8;

constexpr std::array<std::string_view, 16> kTensorCoreMarks = {
    "tf32",  "bf16", "f16",  "fp16",  "half",  "tensorop", "hmma",  "imma",
    "wgmma", "h884", "s884", "h1688", "s1688", "i8816",    "16816", "c1688"};

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

bool IsFp32MatmulWithoutTensorCores(std::string_view name) {
  const std::string lower = model::AsciiLowered(name);
  const bool fp32 = Contains(lower, "sgemm") || Contains(lower, "scudnn") ||
                    (Contains(lower, "f32f32_f32f32") && Contains(lower, "ffma"));
  if (!fp32) return false;
  return std::none_of(kTensorCoreMarks.begin(), kTensorCoreMarks.end(),
                      [&](std::string_view mark) { return Contains(lower, mark); });
}

namespace {

void Evaluate(const AdviceInput& input, const Thresholds& thresholds, Finding* finding) {
  const double share_limit = thresholds.Get("fp32_matmul.kernel_share");
  PerProfile outcome(input, finding);
  for (size_t p = 0; p < input.profiles.size(); ++p) {
    const ProfileFacts& facts = input.profiles[p].facts;
    if (!input.profiles[p].analyses->inputs.device_run) {
      outcome.NotEvaluated(p, "CPU-only run (no kernel records)");
      continue;
    }
    if (facts.kernels.empty() || facts.kernel_total_ns <= 0) {
      outcome.NotEvaluated(p, "no kernel records");
      continue;
    }
    int64_t fp32_ns = 0;
    std::vector<const KernelShape*> fp32;
    for (const KernelShape& kernel : facts.kernels) {
      if (!IsFp32MatmulWithoutTensorCores(kernel.name)) continue;
      fp32_ns += kernel.total_ns;
      fp32.push_back(&kernel);
    }
    const double total = static_cast<double>(facts.kernel_total_ns);
    const double share = static_cast<double>(fp32_ns) / total;
    const bool triggered = share > share_limit;
    outcome.Evaluated(p, share, triggered,
                      Percent(share) + " of kernel time in " + std::to_string(fp32.size()) +
                          " FP32 GEMM/convolution kernel(s) without Tensor Cores (threshold " +
                          Percent(share_limit) + " of kernel time)");
    if (!triggered) continue;
    EvidenceTable& table = AddTable(finding, "FP32 matrix kernels without Tensor Cores",
                                    {"kernel", "calls", "total", "share of kernel time"});
    for (size_t i = 0; i < std::min(kKernelsShown, fp32.size()); ++i) {
      const KernelShape& kernel = *fp32[i];
      AddRow(input, p, &table,
             {kernel.name, std::to_string(kernel.count), Ms(kernel.total_ns),
              Percent(static_cast<double>(kernel.total_ns) / total)},
             EvidenceTarget::Name(kernel.name));
    }
  }
  outcome.Finish(thresholds.Get("fp32_matmul.high_share"));
  if (outcome.any_triggered()) {
    finding->suggestion =
        "Run the matrix products on Tensor Cores: TF32 keeps FP32 tensors "
        "(torch.set_float32_matmul_precision(\"high\"), or "
        "torch.backends.cuda.matmul.allow_tf32 = True and torch.backends.cudnn.allow_tf32 = "
        "True for convolutions), or mixed precision with torch.autocast(\"cuda\", "
        "dtype=torch.bfloat16). TF32 and bf16 need an Ampere GPU (compute capability 8.0) or "
        "newer; on Volta/Turing use dtype=torch.float16 with a GradScaler. Check the loss "
        "curve against the FP32 run.";
  }
}

}  // namespace

const RuleDefinition& Fp32MatmulRule() {
  static const RuleDefinition rule{
      "fp32_matmul",
      "FP32 matrix kernels without Tensor Cores",
      {"kernel records (name, duration)"},
      {{"fp32_matmul.kernel_share", 0.20, "share of kernel time",
        "time in FP32 GEMM/convolution kernels without Tensor Cores above which the advice "
        "is given",
        "aiprof's choice; TensorBoard advises mixed precision when no kernel uses Tensor Cores "
        "and eligible operators run (trace-analysis-and-ui.md §2.3 item 6)"},
       {"fp32_matmul.high_share", 0.50, "share of kernel time",
        "share from which the advice is high severity", "aiprof's choice"}},
      Evaluate};
  return rule;
}

}  // namespace aiprof::analysis::advice
