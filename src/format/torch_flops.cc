#include "format/torch_flops.h"

#include <algorithm>
#include <array>

namespace aiprof::format {
namespace {

enum class FlopKind { kNone, kMm, kAddmm, kBmm, kBaddbmm, kMatmul, kLinear, kConv, kElementwise };

struct NamedKind {
  std::string_view name;
  FlopKind kind;
};

constexpr std::array<NamedKind, 15> kCounted = {{{"aten::mm", FlopKind::kMm},
                                                 {"aten::addmm", FlopKind::kAddmm},
                                                 {"aten::bmm", FlopKind::kBmm},
                                                 {"aten::baddbmm", FlopKind::kBaddbmm},
                                                 {"aten::matmul", FlopKind::kMatmul},
                                                 {"aten::linear", FlopKind::kLinear},
                                                 {"aten::conv1d", FlopKind::kConv},
                                                 {"aten::conv2d", FlopKind::kConv},
                                                 {"aten::conv3d", FlopKind::kConv},
                                                 {"aten::convolution", FlopKind::kConv},
                                                 {"aten::_convolution", FlopKind::kConv},
                                                 {"aten::mul", FlopKind::kElementwise},
                                                 {"aten::mul_", FlopKind::kElementwise},
                                                 {"aten::add", FlopKind::kElementwise},
                                                 {"aten::add_", FlopKind::kElementwise}}};

FlopKind KindOf(std::string_view name) {
  for (const auto& entry : kCounted) {
    if (entry.name == name) return entry.kind;
  }
  return FlopKind::kNone;
}

const std::vector<int64_t>* TensorDims(const std::vector<TorchInput>& inputs, size_t index) {
  if (index >= inputs.size() || inputs[index].tag != TorchInputTag::kTensor) return nullptr;
  return &inputs[index].dims;
}

uint64_t Product(const std::vector<int64_t>& dims, size_t from = 0) {
  uint64_t product = 1;
  for (size_t d = from; d < dims.size(); ++d)
    product *= static_cast<uint64_t>(std::max<int64_t>(dims[d], 0));
  return product;
}

// 2 * M * K * N for a [M, K] x [K, N] product.
uint64_t Gemm(const std::vector<int64_t>* a, const std::vector<int64_t>* b) {
  if (a == nullptr || b == nullptr || a->size() != 2 || b->size() != 2) return 0;
  return 2 * Product(*a) * static_cast<uint64_t>((*b)[1]);
}

uint64_t BatchedGemm(const std::vector<int64_t>* a, const std::vector<int64_t>* b) {
  if (a == nullptr || b == nullptr || a->size() != 3 || b->size() != 3) return 0;
  return 2 * Product(*a) * static_cast<uint64_t>((*b)[2]);
}

// torch.matmul: vectors become [1, K] / [K, 1]; leading dimensions broadcast.
uint64_t Matmul(const std::vector<int64_t>* a, const std::vector<int64_t>* b) {
  if (a == nullptr || b == nullptr || a->empty() || b->empty()) return 0;
  std::vector<int64_t> left = *a, right = *b;
  if (left.size() == 1) left.insert(left.begin(), 1);
  if (right.size() == 1) right.push_back(1);
  const auto m = static_cast<uint64_t>(left[left.size() - 2]);
  const auto k = static_cast<uint64_t>(left.back());
  const auto n = static_cast<uint64_t>(right.back());
  const size_t left_batch = left.size() - 2, right_batch = right.size() - 2;
  uint64_t batch = 1;
  for (size_t i = 0; i < std::max(left_batch, right_batch); ++i) {
    const int64_t l = i < left_batch ? left[left_batch - 1 - i] : 1;
    const int64_t r = i < right_batch ? right[right_batch - 1 - i] : 1;
    batch *= static_cast<uint64_t>(std::max<int64_t>(std::max(l, r), 0));
  }
  return 2 * batch * m * k * n;
}

// linear(input[..., in], weight[out, in], bias): 2 * (input elements) * out.
uint64_t Linear(const std::vector<int64_t>* input, const std::vector<int64_t>* weight) {
  if (input == nullptr || weight == nullptr || weight->size() != 2 || input->empty()) return 0;
  return 2 * Product(*input) * static_cast<uint64_t>((*weight)[0]);
}

const std::vector<int64_t>* IntList(const std::vector<TorchInput>& inputs, size_t index) {
  if (index >= inputs.size() || inputs[index].tag != TorchInputTag::kIntList) return nullptr;
  return &inputs[index].list;
}

// conv*(input, weight, bias, stride, padding, dilation, ...): input [N, C_in, spatial...],
// weight [C_out, C_in / groups, kernel...]. convolution and _convolution have `transposed`
// at index 6, where weight is [C_in, C_out / groups, kernel...] and every input element
// meets every kernel element of its group.
uint64_t Convolution(std::string_view name, const std::vector<TorchInput>& inputs) {
  const auto* input = TensorDims(inputs, 0);
  const auto* weight = TensorDims(inputs, 1);
  if (input == nullptr || weight == nullptr || input->size() < 3 ||
      weight->size() != input->size()) {
    return 0;
  }
  const size_t spatial = input->size() - 2;
  const uint64_t kernel = Product(*weight, 2);
  const bool general = name == "aten::convolution" || name == "aten::_convolution";
  if (general && inputs.size() > 6 && inputs[6].tag == TorchInputTag::kBool &&
      inputs[6].concrete == "True") {
    return 2 * Product(*input) * static_cast<uint64_t>((*weight)[1]) * kernel;
  }
  const auto* stride = IntList(inputs, 3);
  const auto* padding = IntList(inputs, 4);
  const auto* dilation = IntList(inputs, 5);
  if (stride == nullptr || padding == nullptr || dilation == nullptr) return 0;
  auto at = [](const std::vector<int64_t>& list, size_t i) {
    return list.size() == 1 ? list[0] : i < list.size() ? list[i] : -1;
  };
  uint64_t outputs = 1;
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t s = at(*stride, i), p = at(*padding, i), d = at(*dilation, i);
    if (s <= 0 || p < 0 || d <= 0) return 0;
    const int64_t size = ((*input)[2 + i] + 2 * p - d * ((*weight)[2 + i] - 1) - 1) / s + 1;
    if (size <= 0) return 0;
    outputs *= static_cast<uint64_t>(size);
  }
  return 2 * static_cast<uint64_t>((*input)[0]) * static_cast<uint64_t>((*weight)[0]) * outputs *
         static_cast<uint64_t>((*weight)[1]) * kernel;
}

// One operation per element of the broadcast result of the tensor operands.
uint64_t Elementwise(const std::vector<TorchInput>& inputs) {
  std::vector<int64_t> shape;
  bool any = false;
  for (size_t i = 0; i < std::min<size_t>(inputs.size(), 2); ++i) {
    const auto* dims = TensorDims(inputs, i);
    if (dims == nullptr) continue;
    any = true;
    if (dims->size() > shape.size()) shape.insert(shape.begin(), dims->size() - shape.size(), 1);
    const size_t offset = shape.size() - dims->size();
    for (size_t d = 0; d < dims->size(); ++d) {
      shape[offset + d] = std::max(shape[offset + d], (*dims)[d]);
    }
  }
  return any ? Product(shape) : 0;
}

}  // namespace

bool IsFlopCountedOperator(std::string_view name) {
  return KindOf(name) != FlopKind::kNone;
}

uint64_t TorchOperatorFlops(std::string_view name, const std::vector<TorchInput>& inputs) {
  switch (KindOf(name)) {
    case FlopKind::kMm:
      return Gemm(TensorDims(inputs, 0), TensorDims(inputs, 1));
    case FlopKind::kAddmm:
      return Gemm(TensorDims(inputs, 1), TensorDims(inputs, 2));
    case FlopKind::kBmm:
      return BatchedGemm(TensorDims(inputs, 0), TensorDims(inputs, 1));
    case FlopKind::kBaddbmm:
      return BatchedGemm(TensorDims(inputs, 1), TensorDims(inputs, 2));
    case FlopKind::kMatmul:
      return Matmul(TensorDims(inputs, 0), TensorDims(inputs, 1));
    case FlopKind::kLinear:
      return Linear(TensorDims(inputs, 0), TensorDims(inputs, 1));
    case FlopKind::kConv:
      return Convolution(name, inputs);
    case FlopKind::kElementwise:
      return Elementwise(inputs);
    case FlopKind::kNone:
      break;
  }
  return 0;
}

}  // namespace aiprof::format
