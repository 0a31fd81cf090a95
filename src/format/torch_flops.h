// Floating-point operations of a PyTorch operator from its input shapes (with_flops), the
// way torch.profiler estimates them: 2 per multiply-add for matrix products and
// convolutions, 1 per output element for element-wise add and mul. Shared by the model
// importer and the Python package's reader; the torch plugin uses IsFlopCountedOperator to
// capture inputs for these operators only.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "format/torch_inputs.h"

namespace aiprof::format {

// aten::mm, addmm, bmm, baddbmm, matmul, linear, conv1d/2d/3d, convolution, _convolution,
// mul, mul_, add, add_.
bool IsFlopCountedOperator(std::string_view name);

// FLOPs of one call, or 0 when the operator is not counted or its inputs do not say
// (missing shapes, a padding given as a string, ...).
uint64_t TorchOperatorFlops(std::string_view name, const std::vector<TorchInput>& inputs);

}  // namespace aiprof::format
