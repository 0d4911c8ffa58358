// What the parts of the ONNX import (onnx_io.h) share, and no other module includes:
// onnx_io.cc (the import itself), onnx_initializers.cc (initializers: their sizes and values),
// onnx_external_data.cc (tensors stored in a side file) and onnx_checks.cc (what the import
// checks beyond libonnx's checker). Needs ONNX's protobuf headers.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "ngraphbench/graph/ir.h"

namespace ngraphbench::onnx_import {

// ---- initializers (onnx_initializers.cc) ---------------------------------------------------

// The most bytes one initializer may declare once imported (float32 as 4 bytes, integers widened
// to 8): 4 GiB unless NGRAPHBENCH_MAX_TENSOR_MB says otherwise. A file that declares more is
// refused before anything is allocated.
uint64_t MaxTensorBytes();

// Bytes per element once imported: float32 stays 4 bytes, every integer type becomes int64.
inline uint64_t ImportedElementBytes(int data_type) {
  return data_type == onnx::TensorProto::FLOAT ? 4 : 8;
}

// The element count `dims` declares, refused (InputError from `fail`) when a dimension is
// negative or the tensor would exceed MaxTensorBytes() once imported.
template <typename Dims, typename Fail>
uint64_t DeclaredElements(const Dims& dims, int data_type, const Fail& fail) {
  const uint64_t max_elements = MaxTensorBytes() / ImportedElementBytes(data_type);
  uint64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) fail("has a negative dimension " + std::to_string(d));
    if (d > 0 && n > max_elements / static_cast<uint64_t>(d)) {
      fail("declares more than " + std::to_string(max_elements) + " elements, over the " +
           std::to_string(MaxTensorBytes() >> 20) + " MiB one tensor may take (set " +
           "NGRAPHBENCH_MAX_TENSOR_MB to allow more)");
    }
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

// The number of elements `t` declares, checked against the values the file actually holds
// before anything is allocated: a tiny file may declare dims of 2^62 or -5.
size_t CheckedElementCount(const onnx::TensorProto& t, const std::string& source);

// ---- external data (onnx_external_data.cc) -------------------------------------------------

struct ExternalRef {
  std::filesystem::path path;  // canonical
  uint64_t offset = 0;
  uint64_t length = 0;
};

// Reads `bytes` bytes at `ref.offset` of its file into `dst`, in chunks, without another buffer.
void ReadExternal(const ExternalRef& ref, char* dst, uint64_t bytes, const std::string& tensor,
                  const std::string& source);

// Resolves every externally stored initializer of `g`: small ones are read into the model now;
// large ones stay external, their location replaced by the checked canonical path (libonnx's
// checker only stats it, and would otherwise resolve the location against the working
// directory), and ToInitializer reads their data at the end.
std::map<std::string, ExternalRef> LoadExternalData(onnx::GraphProto& g,
                                                    const std::string& model_dir,
                                                    const std::string& source);

// ---- initializers, continued (onnx_initializers.cc) ------------------------------------------

// The IR's initializer of `t`: float32 as a float tensor, int64 and int32 as int64. `external` is
// where its data lies when LoadExternalData left it in its side file, else null; data stored
// externally anywhere else is refused.
Initializer ToInitializer(const onnx::TensorProto& t, const std::string& source,
                          const ExternalRef* external);

// ---- checks (onnx_checks.cc) ----------------------------------------------------------------

// Attributes that libonnx's shape inference divides by or indexes with, checked first: a Conv
// with a stride of 0 would otherwise end the process with SIGFPE.
void CheckNodeAttributes(const onnx::GraphProto& g, const std::string& source);

// A windowed node (Conv, ConvTranspose, pooling) against the shapes inference gave, checked as
// an SDK checks it when it builds the node (ONNX Runtime refuses each of these at session
// creation), since libonnx's shape inference does not: the weight against the input's channels
// (a kernel reading C channels of a weight laid out for fewer reads past its end), kernel_shape
// against the weight, one stride, dilation and pair of pads per spatial axis, auto_pad without
// explicit pads, pooling pads within the window, and a dilated window that fits the padded input.
// Runs after shape inference, which has checked that strides, dilations and pads have one value
// (pads two) per spatial axis.
void CheckWindowed(const onnx::NodeProto& n, const std::map<std::string, Shape>& shapes,
                   const std::string& source);

// libonnx 1.12's checker requires every graph input and output to declare a shape, which later
// IR versions made optional (no shape: unknown rank), and the current `onnx` package's helpers
// leave out. The checker sees a placeholder (rank 0) there; the original declaration is put back
// for shape inference, which fills it in. value_info entries without a shape say nothing
// inference will not, and are dropped.
void CheckModel(onnx::ModelProto& model, const std::string& source);

}  // namespace ngraphbench::onnx_import
