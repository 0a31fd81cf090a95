#include "format/torch_inputs.h"

#include <cstring>

namespace aiprof::format {

std::vector<TorchInput> DecodeTorchInputs(std::span<const uint64_t> values) {
  std::vector<TorchInput> inputs;
  size_t i = 0;
  while (i < values.size()) {
    const uint64_t descriptor = values[i++];
    const auto tag = static_cast<TorchInputTag>(descriptor & 0xff);
    if (tag == TorchInputTag::kEnd) break;
    TorchInput input;
    input.tag = tag;
    input.scalar_type = static_cast<uint8_t>((descriptor >> 8) & 0xff);
    switch (tag) {
      case TorchInputTag::kTensor: {
        const size_t rank = (descriptor >> 16) & 0xff;
        if (i + rank > values.size()) return inputs;
        for (size_t d = 0; d < rank; ++d) input.dims.push_back(static_cast<int64_t>(values[i++]));
        input.type = TorchScalarTypeName(input.scalar_type);
        break;
      }
      case TorchInputTag::kInt:
      case TorchInputTag::kDouble:
      case TorchInputTag::kBool: {
        if (i >= values.size()) return inputs;
        const uint64_t raw = values[i++];
        input.type = "Scalar";
        if (tag == TorchInputTag::kInt) {
          input.concrete = std::to_string(static_cast<int64_t>(raw));
        } else if (tag == TorchInputTag::kBool) {
          input.concrete = raw ? "True" : "False";
        } else {
          double value;
          std::memcpy(&value, &raw, sizeof(value));
          char text[32];
          std::snprintf(text, sizeof(text), "%g", value);
          input.concrete = text;
        }
        break;
      }
      case TorchInputTag::kTensorList:
        input.type = "TensorList";
        break;
      case TorchInputTag::kScalarList:
        input.type = "ScalarList";
        break;
      case TorchInputTag::kIntList: {
        const size_t count = (descriptor >> 16) & 0xff;
        if (i + count > values.size()) return inputs;
        for (size_t v = 0; v < count; ++v) input.list.push_back(static_cast<int64_t>(values[i++]));
        input.type = "ScalarList";
        break;
      }
      default:
        break;
    }
    inputs.push_back(std::move(input));
  }
  return inputs;
}

namespace {

std::string JoinDims(const std::vector<int64_t>& dims, const char* separator) {
  std::string text;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (d) text += separator;
    text += std::to_string(dims[d]);
  }
  return text;
}

}  // namespace

std::string FormatInputDims(const std::vector<TorchInput>& inputs) {
  std::string text = "[";
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i) text += ", ";
    text += "[" + JoinDims(inputs[i].dims, ", ") + "]";
  }
  return text + "]";
}

std::string InputShapesFromDims(std::string_view dims) {
  std::string out;
  int depth = 0;
  for (char c : dims) {
    if (c == '[') {
      ++depth;
    } else if (c == ']') {
      --depth;
    } else if (c == ',' && depth == 1) {
      out += ';';
    } else if (depth == 2 && c != ' ') {
      out += c;
    }
  }
  return out;
}

}  // namespace aiprof::format
