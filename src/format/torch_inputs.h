// Decodes the packed operator input stream of TorchKind::kOpBegin records into the
// strings PyTorch's profiler shows ("Input Dims", "Input type", "Concrete Inputs").
// Shared by the Python package's reader and the model importer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/records_torch.h"

namespace aiprof::format {

struct TorchInput {
  TorchInputTag tag = TorchInputTag::kOther;
  uint8_t scalar_type = 0;
  std::vector<int64_t> dims;  // tensors
  std::vector<int64_t> list;  // int lists (kIntList)
  std::string type;           // "float", "Scalar", "TensorList", "" ...
  std::string concrete;       // scalars: their value; "" otherwise
};

// `values` are the u64 values of ext words 2.. of the record. Stops at kEnd or at a
// descriptor that does not fit (a truncated stream decodes what is whole).
std::vector<TorchInput> DecodeTorchInputs(std::span<const uint64_t> values);

// "[[32, 64], [], [64]]" (Kineto's Input Dims).
std::string FormatInputDims(const std::vector<TorchInput>& inputs);
// msprof op_summary's Input Shapes (',' between dims, ';' between tensors) from Kineto's
// Input Dims text: "[[32, 64], [], [64]]" → "32,64;;64" (readers of the model, which keeps
// the Input Dims argument as text).
std::string InputShapesFromDims(std::string_view dims);

}  // namespace aiprof::format
