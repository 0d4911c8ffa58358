// The initializers of an imported ONNX model: the size one may declare, checked before anything
// is allocated, and their values in the IR.
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/onnx_import.h"

namespace ngraphbench::onnx_import {

namespace {

constexpr uint64_t kDefaultMaxTensorMb = 4096;
constexpr uint64_t kLargestMaxTensorMb = uint64_t{1} << 20;  // 1 TiB

}  // namespace

uint64_t MaxTensorBytes() {
  static const uint64_t bytes = [] {
    const char* text = std::getenv("NGRAPHBENCH_MAX_TENSOR_MB");
    if (text == nullptr || *text == '\0') return kDefaultMaxTensorMb << 20;
    uint64_t mb = 0;
    const char* end = text + std::strlen(text);
    const auto [ptr, ec] = std::from_chars(text, end, mb);
    if (ec != std::errc() || ptr != end || mb < 1 || mb > kLargestMaxTensorMb) {
      throw InputError("NGRAPHBENCH_MAX_TENSOR_MB='" + std::string(text) +
                       "' is not a whole number of MiB from 1 to " +
                       std::to_string(kLargestMaxTensorMb) + " (the default is " +
                       std::to_string(kDefaultMaxTensorMb) + ")");
    }
    return mb << 20;
  }();
  return bytes;
}

size_t CheckedElementCount(const onnx::TensorProto& t, const std::string& source) {
  auto fail = [&](const std::string& what) {
    throw InputError("ONNX model '" + source + "': initializer '" + t.name() + "' " + what);
  };
  const uint64_t n = DeclaredElements(t.dims(), t.data_type(), fail);
  uint64_t held = 0;
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      held = t.has_raw_data() ? t.raw_data().size() / sizeof(float) : t.float_data_size();
      break;
    case onnx::TensorProto::INT64:
      held = t.has_raw_data() ? t.raw_data().size() / sizeof(int64_t) : t.int64_data_size();
      break;
    case onnx::TensorProto::INT32:
      held = t.has_raw_data() ? t.raw_data().size() / sizeof(int32_t) : t.int32_data_size();
      break;
    default:
      return static_cast<size_t>(n);  // refused by type below
  }
  if (held != n) {
    fail("declares " + std::to_string(n) + " elements but the file holds " +
         std::to_string(held));
  }
  return static_cast<size_t>(n);
}

Initializer ToInitializer(const onnx::TensorProto& t, const std::string& source,
                          const ExternalRef* external) {
  Initializer init;
  init.name = t.name();
  if (!external && t.has_data_location() && t.data_location() == onnx::TensorProto::EXTERNAL) {
    throw InputError("ONNX model '" + source + "': tensor '" + t.name() +
                     "' uses external data where ngraphbench does not read it (inside a "
                     "subgraph or a node attribute); save it inside the file");
  }
  for (int64_t d : t.dims()) init.tensor.shape.push_back(d);
  if (external) {
    // Checked against the side file's size when it was resolved.
    const size_t n = static_cast<size_t>(NumElements(init.tensor.shape));
    switch (t.data_type()) {
      case onnx::TensorProto::FLOAT:
        init.tensor.data.resize(n);
        ReadExternal(*external, reinterpret_cast<char*>(init.tensor.data.data()),
                     n * sizeof(float), t.name(), source);
        return init;
      case onnx::TensorProto::INT64:
        init.dtype = DType::kInt64;
        init.is_parameter = false;
        init.int64_data.resize(n);
        ReadExternal(*external, reinterpret_cast<char*>(init.int64_data.data()),
                     n * sizeof(int64_t), t.name(), source);
        return init;
      case onnx::TensorProto::INT32: {
        init.dtype = DType::kInt64;
        init.is_parameter = false;
        init.int64_data.resize(n);
        // Widened in place: read the int32 values into the upper half, then spread them out.
        auto* base = reinterpret_cast<char*>(init.int64_data.data());
        auto* narrow = reinterpret_cast<int32_t*>(base + n * sizeof(int32_t));
        ReadExternal(*external, reinterpret_cast<char*>(narrow), n * sizeof(int32_t), t.name(),
                     source);
        for (size_t k = 0; k < n; ++k) {
          int32_t v;
          std::memcpy(&v, narrow + k, sizeof v);
          // Bytes [8k, 8k+8) end at or before value k+1 (at 4n + 4k + 4): nothing unread is hit.
          init.int64_data[k] = v;
        }
        return init;
      }
      default:
        throw InputError("ONNX model '" + source + "': initializer '" + t.name() +
                         "' has data type " + std::to_string(t.data_type()) +
                         "; ngraphbench imports float32, int64 and int32 constants");
    }
  }
  const size_t n = CheckedElementCount(t, source);
  const std::string& raw = t.raw_data();
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      init.tensor.data.resize(n);
      if (t.has_raw_data()) {
        if (raw.size() != n * sizeof(float)) break;
        if (n > 0) std::memcpy(init.tensor.data.data(), raw.data(), raw.size());
      } else {
        if (static_cast<size_t>(t.float_data_size()) != n) break;
        std::copy(t.float_data().begin(), t.float_data().end(), init.tensor.data.begin());
      }
      return init;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::INT32:
      init.dtype = DType::kInt64;
      init.is_parameter = false;
      init.int64_data.resize(n);
      if (t.has_raw_data()) {
        if (t.data_type() == onnx::TensorProto::INT64) {
          if (raw.size() != n * sizeof(int64_t)) break;
          if (n > 0) std::memcpy(init.int64_data.data(), raw.data(), raw.size());
        } else {
          if (raw.size() != n * sizeof(int32_t)) break;
          std::vector<int32_t> tmp(n);
          if (n > 0) std::memcpy(tmp.data(), raw.data(), raw.size());
          std::copy(tmp.begin(), tmp.end(), init.int64_data.begin());
        }
      } else if (t.data_type() == onnx::TensorProto::INT64) {
        if (static_cast<size_t>(t.int64_data_size()) != n) break;
        std::copy(t.int64_data().begin(), t.int64_data().end(), init.int64_data.begin());
      } else {
        if (static_cast<size_t>(t.int32_data_size()) != n) break;
        std::copy(t.int32_data().begin(), t.int32_data().end(), init.int64_data.begin());
      }
      return init;
    default:
      throw InputError("ONNX model '" + source + "': initializer '" + t.name() +
                       "' has data type " + std::to_string(t.data_type()) +
                       "; ngraphbench imports float32, int64 and int32 constants");
  }
  throw InputError("ONNX model '" + source + "': initializer '" + t.name() +
                   "' holds the wrong number of elements for its shape " +
                   ShapeToString(init.tensor.shape));
}

}  // namespace ngraphbench::onnx_import
