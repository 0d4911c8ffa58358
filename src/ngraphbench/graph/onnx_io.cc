#include "ngraphbench/graph/onnx_io.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/graph/onnx_compat.h"
#include "ngraphbench/graph/onnx_fold.h"

namespace ngraphbench {

namespace {

Shape StaticShape(const onnx::TypeProto& type, const std::string& value,
                  const std::string& source) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) {
    throw InputError("ONNX model '" + source + "': value '" + value +
                     "' has no inferable tensor shape; ngraphbench needs static shapes");
  }
  Shape shape;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value()) {
      throw InputError("ONNX model '" + source + "': value '" + value +
                       "' has a dynamic dimension '" + dim.dim_param() +
                       "' that import-time folding could not resolve (it depends on data "
                       "computed at run time, or on an operator the folder does not evaluate); "
                       "only the batch dimension of inputs may be dynamic");
    }
    shape.push_back(dim.dim_value());
  }
  return shape;
}

// The most bytes one initializer may declare once imported (float32 as 4 bytes, integers widened
// to 8): 4 GiB unless NGRAPHBENCH_MAX_TENSOR_MB says otherwise. A file that declares more is
// refused before anything is allocated.
constexpr uint64_t kDefaultMaxTensorMb = 4096;
constexpr uint64_t kLargestMaxTensorMb = uint64_t{1} << 20;  // 1 TiB

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

// Bytes per element once imported: float32 stays 4 bytes, every integer type becomes int64.
uint64_t ImportedElementBytes(int data_type) {
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

// Attributes that libonnx's shape inference divides by or indexes with, checked first: a Conv
// with a stride of 0 would otherwise end the process with SIGFPE.
void CheckNodeAttributes(const onnx::GraphProto& g, const std::string& source) {
  if (g.output_size() == 0) {
    throw InputError("ONNX model '" + source + "' has no graph outputs; a model must produce one");
  }
  static const std::set<std::string> kWindowed = {"Conv", "ConvTranspose", "MaxPool",
                                                  "AveragePool", "LpPool"};
  for (const auto& node : g.node()) {
    if (!kWindowed.count(node.op_type())) continue;
    const std::string where = "ONNX model '" + source + "': node '" + node.name() + "' (" +
                              node.op_type() + ") ";
    for (const auto& a : node.attribute()) {
      const std::string& key = a.name();
      if (key == "strides" || key == "dilations" || key == "kernel_shape") {
        for (int64_t v : a.ints()) {
          if (v < 1) throw InputError(where + "has " + key + " " + std::to_string(v) + "; each must be >= 1");
        }
      } else if (key == "pads") {
        for (int64_t v : a.ints()) {
          if (v < 0) throw InputError(where + "has pads " + std::to_string(v) + "; each must be >= 0");
        }
      } else if (key == "group" && a.i() < 1) {
        throw InputError(where + "has group " + std::to_string(a.i()) + "; it must be >= 1");
      }
    }
  }
}

// A windowed node (Conv, ConvTranspose, pooling) against the shapes inference gave, checked as
// an SDK checks it when it builds the node (ONNX Runtime refuses each of these at session
// creation), since libonnx's shape inference does not: the weight against the input's channels
// (a kernel reading C channels of a weight laid out for fewer reads past its end), kernel_shape
// against the weight, one stride, dilation and pair of pads per spatial axis, auto_pad without
// explicit pads, pooling pads within the window, and a dilated window that fits the padded input.
// Runs after shape inference, which has checked that strides, dilations and pads have one value
// (pads two) per spatial axis.
void CheckWindowed(const onnx::NodeProto& n, const std::map<std::string, Shape>& shapes,
                   const std::string& source) {
  static const std::set<std::string> kPools = {"MaxPool", "AveragePool", "LpPool"};
  const bool conv = n.op_type() == "Conv";
  const bool transpose = n.op_type() == "ConvTranspose";
  const bool pool = kPools.count(n.op_type()) > 0;
  if ((!conv && !transpose && !pool) || n.input_size() < 1) return;
  const auto x = shapes.find(n.input(0));
  if (x == shapes.end()) return;
  const Shape& xs = x->second;
  const std::string where =
      "ONNX model '" + source + "': node '" + n.name() + "' (" + n.op_type() + ") ";
  std::map<std::string, const onnx::AttributeProto*> attrs;
  for (const auto& a : n.attribute()) attrs[a.name()] = &a;
  auto ints = [&](const std::string& key) {
    const auto it = attrs.find(key);
    return it == attrs.end() ? Shape() : Shape(it->second->ints().begin(), it->second->ints().end());
  };
  const int64_t group = attrs.count("group") ? attrs["group"]->i() : 1;
  if (xs.size() < 3) {
    throw InputError(where + "has an input of shape " + ShapeToString(xs) +
                     "; expected at least 3 dimensions ([N, C, spatial...])");
  }
  const size_t spatial = xs.size() - 2;
  Shape kernel = ints("kernel_shape");
  if (conv || transpose) {
    if (n.input_size() < 2) return;
    const auto w = shapes.find(n.input(1));
    if (w == shapes.end()) return;
    const Shape& ws = w->second;
    if (ws.size() != xs.size()) {
      throw InputError(where + "has an input of rank " + std::to_string(xs.size()) +
                       " and a weight of rank " + std::to_string(ws.size()) +
                       "; expected equal ranks of at least 3 ([N, C, spatial...])");
    }
    // Conv: [M, C/group, k...]; ConvTranspose: [C, M/group, k...].
    if (conv ? ws[1] * group != xs[1] || ws[0] % group != 0 : ws[0] != xs[1] || xs[1] % group != 0) {
      throw InputError(where + "has " + std::to_string(xs[1]) + " input channels but a weight of " +
                       ShapeToString(ws) + " with group " + std::to_string(group) +
                       (conv ? "; expected a weight [M, C/group, k...] with M a multiple of group"
                             : "; expected a weight [C, M/group, k...] with C a multiple of group"));
    }
    const int64_t out_channels = conv ? ws[0] : ws[1] * group;
    if (n.input_size() > 2 && !n.input(2).empty()) {
      const auto b = shapes.find(n.input(2));
      if (b != shapes.end() && (b->second.size() != 1 || b->second[0] != out_channels)) {
        throw InputError(where + "has a bias of " + ShapeToString(b->second) + "; expected [" +
                         std::to_string(out_channels) + "], one value per output channel");
      }
    }
    const Shape weight_kernel(ws.begin() + 2, ws.end());
    if (attrs.count("kernel_shape") && kernel != weight_kernel) {
      throw InputError(where + "has kernel_shape " + ShapeToString(kernel) + " but a weight of " +
                       ShapeToString(ws) + ", whose window is " + ShapeToString(weight_kernel) +
                       "; they must agree (or leave kernel_shape out)");
    }
    kernel = weight_kernel;
  } else if (kernel.size() != spatial) {
    throw InputError(where + "has kernel_shape " + ShapeToString(kernel) + " for an input of " +
                     ShapeToString(xs) + "; expected one window size per spatial axis (" +
                     std::to_string(spatial) + ")");
  }
  const Shape pads = ints("pads");
  const std::string auto_pad = attrs.count("auto_pad") ? attrs["auto_pad"]->s() : "NOTSET";
  static const std::set<std::string> kAutoPads = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
  if (!kAutoPads.count(auto_pad)) {
    throw InputError(where + "has auto_pad '" + auto_pad +
                     "'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  const bool explicit_pads = std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; });
  if (auto_pad != "NOTSET" && explicit_pads) {
    throw InputError(where + "has auto_pad " + auto_pad + " and explicit pads " +
                     ShapeToString(pads) + "; ONNX allows one or the other (auto_pad NOTSET "
                     "with pads, or auto_pad without them)");
  }
  if (transpose) return;  // a transposed window grows its input: any size fits
  const Shape dilations = ints("dilations");
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t begin = i < pads.size() / 2 ? pads[i] : 0;
    const int64_t end = i < pads.size() / 2 ? pads[i + spatial] : 0;
    if (pool && (begin >= kernel[i] || end >= kernel[i])) {
      throw InputError(where + "has pads " + ShapeToString(pads) + " and kernel_shape " +
                       ShapeToString(kernel) + "; each pad must be smaller than its window");
    }
    const int64_t dilation = i < dilations.size() ? dilations[i] : 1;
    // In long double: a hostile dilation or pad near 2^63 must not wrap.
    const long double window = static_cast<long double>(dilation) * (kernel[i] - 1) + 1;
    const long double padded = static_cast<long double>(xs[i + 2]) +
                               (auto_pad == "NOTSET" ? begin + end : 0);
    if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && window > padded) {
      throw InputError(where + "has kernel " + std::to_string(kernel[i]) + " with dilation " +
                       std::to_string(dilation) + " on spatial axis " + std::to_string(i) +
                       ", a window wider than the input " + ShapeToString(xs) +
                       (pads.empty() ? std::string(" without pads")
                                     : " with pads " + ShapeToString(pads)) +
                       "; the dilated window must fit the padded input");
    }
  }
}

// ---- external data ---------------------------------------------------------------------------
//
// A tensor with data_location EXTERNAL keeps its bytes in a side file: external_data entries
// `location` (a path relative to the model's folder), `offset` and `length` (bytes), and
// `checksum` (a SHA-1 of the bytes, optional; not verified: sizes are, which is what keeps a
// hostile file from reading out of bounds). The location is resolved against the folder of the
// .onnx file, never the working directory, and must stay inside it: no absolute path, no `..`,
// no symlink leading out (checked on the canonical path). The byte range is checked against the
// file's size and the tensor's declared element count before anything is read or allocated.

struct ExternalRef {
  std::filesystem::path path;  // canonical
  uint64_t offset = 0;
  uint64_t length = 0;
};

// Tensors at most this large are read into the model at once (the folder may need their values:
// shapes, axes); larger ones (weights) are read straight into the IR's buffers at the end, once.
constexpr uint64_t kEagerExternalBytes = uint64_t{1} << 20;

size_t ExternalElementBytes(int32_t type) {
  switch (type) {
    case onnx::TensorProto::DOUBLE: case onnx::TensorProto::INT64: case onnx::TensorProto::UINT64:
      return 8;
    case onnx::TensorProto::FLOAT: case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32:
      return 4;
    case onnx::TensorProto::FLOAT16: case onnx::TensorProto::BFLOAT16:
    case onnx::TensorProto::INT16: case onnx::TensorProto::UINT16:
      return 2;
    case onnx::TensorProto::INT8: case onnx::TensorProto::UINT8: case onnx::TensorProto::BOOL:
      return 1;
    default:
      return 0;  // strings, complex, sub-byte types
  }
}

ExternalRef ResolveExternal(const onnx::TensorProto& t, const std::string& model_dir,
                            const std::string& source) {
  namespace fs = std::filesystem;
  const std::string where = "ONNX model '" + source + "': tensor '" + t.name() + "' ";
  std::string location;
  bool has_length = false;
  uint64_t offset = 0, length = 0;
  for (const auto& e : t.external_data()) {
    auto number = [&](const std::string& key) {
      const std::string& v = e.value();
      const auto digit = [](char c) { return c >= '0' && c <= '9'; };
      if (v.empty() || v.size() > 19 || !std::all_of(v.begin(), v.end(), digit)) {
        throw InputError(where + "has external data " + key + " '" + v +
                         "'; expected a non-negative whole number of bytes");
      }
      return std::stoull(v);
    };
    if (e.key() == "location") location = e.value();
    else if (e.key() == "offset") offset = number("offset");
    else if (e.key() == "length") { length = number("length"); has_length = true; }
  }
  if (location.empty()) {
    throw InputError(where + "is stored externally but names no 'location'; expected the "
                     "path of its data file, relative to the model's folder");
  }
  if (model_dir.empty()) {
    throw InputError(where + "is stored in the external file '" + location +
                     "', but the model was not read from a file; import it with "
                     "ImportOnnxFile (external data is read from the model's folder)");
  }
  const fs::path loc(location);
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::path(model_dir), ec);
  if (ec) throw InputError(where + "cannot resolve the model's folder '" + model_dir + "'");
  const std::string inside = "; external data must be a relative path inside the model's "
                             "folder '" + base.string() + "'";
  if (loc.is_absolute() || loc.has_root_name() || loc.has_root_directory()) {
    throw InputError(where + "has the absolute external data location '" + location + "'" +
                     inside);
  }
  for (const auto& part : loc) {
    if (part == "..") {
      throw InputError(where + "has the external data location '" + location +
                       "', which leaves the model's folder" + inside);
    }
  }
  const fs::path lexical = (base / loc).lexically_normal();  // for messages
  // weakly_canonical resolves every symlink of the part that exists: a link inside the folder
  // that points out of it resolves to its target outside.
  const fs::path target = fs::weakly_canonical(base / loc, ec);
  if (ec) {
    throw InputError(where + "has the external data location '" + location +
                     "', which cannot be resolved (" + ec.message() + ")");
  }
  auto mismatch = std::mismatch(base.begin(), base.end(), target.begin(), target.end());
  if (mismatch.first != base.end()) {
    throw InputError(where + "has the external data location '" + location +
                     "', which resolves to '" + target.string() +
                     "' outside the model's folder (a symlink?)" + inside);
  }
  if (!fs::exists(target, ec)) {
    throw InputError(where + "stores its data in '" + lexical.string() +
                     "', which does not exist; keep the external data file(s) next to the "
                     ".onnx file");
  }
  if (!fs::is_regular_file(target, ec)) {
    throw InputError(where + "stores its data in '" + lexical.string() +
                     "', which is not a regular file");
  }
  const uint64_t size = fs::file_size(target, ec);
  if (ec) throw InputError(where + "cannot read the size of '" + lexical.string() + "'");
  if (offset > size) {
    throw InputError(where + "has external data offset " + std::to_string(offset) +
                     " beyond the end of '" + lexical.string() + "' (" + std::to_string(size) +
                     " bytes)");
  }
  if (!has_length) length = size - offset;
  if (length > size - offset) {
    throw InputError(where + "has external data offset " + std::to_string(offset) +
                     " and length " + std::to_string(length) + ", beyond the end of '" +
                     lexical.string() + "' (" + std::to_string(size) + " bytes)");
  }
  // The declared element count, checked like CheckedElementCount, against the bytes.
  const size_t width = ExternalElementBytes(t.data_type());
  if (width == 0) {
    throw InputError(where + "has data type " + std::to_string(t.data_type()) +
                     " stored externally; ngraphbench imports float32, int64 and int32 tensors");
  }
  const uint64_t n = DeclaredElements(
      t.dims(), t.data_type(), [&](const std::string& what) { throw InputError(where + what); });
  if (n * width != length) {
    throw InputError(where + "declares " + std::to_string(n) + " elements (" +
                     std::to_string(n * width) + " bytes) but its external data in '" +
                     lexical.string() + "' holds " + std::to_string(length) + " bytes");
  }
  return ExternalRef{target, offset, length};
}

// Reads `bytes` bytes at `ref.offset` of its file into `dst`, in chunks, without another buffer.
void ReadExternal(const ExternalRef& ref, char* dst, uint64_t bytes, const std::string& tensor,
                  const std::string& source) {
  if (bytes == 0) return;
  // Opened as every input is (core/file.h): a file swapped for a FIFO since its size was checked
  // is refused rather than waited on. Its size was checked against the tensors already.
  const UniqueFd fd = OpenFileCapped(ref.path.string(), std::numeric_limits<uint64_t>::max(),
                                     "external data file");
  constexpr uint64_t kChunk = uint64_t{64} << 20;
  for (uint64_t done = 0; done < bytes;) {
    const ssize_t got = ::pread(fd.get(), dst + done, std::min(kChunk, bytes - done),
                                static_cast<off_t>(ref.offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<uint64_t>(got);
    if (done == bytes) return;
  }
  throw InputError("ONNX model '" + source + "': cannot read " + std::to_string(bytes) +
                   " bytes of tensor '" + tensor + "' from '" + ref.path.string() + "' at offset " +
                   std::to_string(ref.offset) + " (was the file changed while importing?)");
}

// Resolves every externally stored initializer of `g`: small ones are read into the model now;
// large ones stay external, their location replaced by the checked canonical path (libonnx's
// checker only stats it, and would otherwise resolve the location against the working
// directory), and ToInitializer reads their data at the end.
std::map<std::string, ExternalRef> LoadExternalData(onnx::GraphProto& g,
                                                    const std::string& model_dir,
                                                    const std::string& source) {
  std::map<std::string, ExternalRef> deferred;
  for (auto& t : *g.mutable_initializer()) {
    if (!(t.has_data_location() && t.data_location() == onnx::TensorProto::EXTERNAL)) continue;
    const ExternalRef ref = ResolveExternal(t, model_dir, source);
    t.clear_external_data();
    if (ref.length <= kEagerExternalBytes) {
      std::string raw(ref.length, '\0');
      ReadExternal(ref, raw.data(), ref.length, t.name(), source);
      t.set_data_location(onnx::TensorProto::DEFAULT);
      t.set_raw_data(std::move(raw));
    } else {
      auto* location = t.add_external_data();
      location->set_key("location");
      location->set_value(ref.path.string());
      deferred[t.name()] = ref;
    }
  }
  return deferred;
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

// The small integer types (bool, int8, uint8, int16, uint16, uint32) the IR has no dtype for:
// a constant of such a type that a kept node reads reaches the IR as an int64 initializer and a
// Cast back to its type, so that the node sees exactly the model's tensor.
bool NarrowIntegerType(int32_t type) {
  return type == onnx::TensorProto::BOOL || type == onnx::TensorProto::INT8 ||
         type == onnx::TensorProto::UINT8 || type == onnx::TensorProto::INT16 ||
         type == onnx::TensorProto::UINT16 || type == onnx::TensorProto::UINT32;
}

// libonnx 1.12's checker requires every graph input and output to declare a shape, which later
// IR versions made optional (no shape: unknown rank), and the current `onnx` package's helpers
// leave out. The checker sees a placeholder (rank 0) there; the original declaration is put back
// for shape inference, which fills it in. value_info entries without a shape say nothing
// inference will not, and are dropped.
void CheckModel(onnx::ModelProto& model, const std::string& source) {
  onnx::GraphProto* g = model.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> infos;
  for (auto& info : *g->mutable_value_info()) {
    if (!info.type().has_tensor_type() || info.type().tensor_type().has_shape()) {
      *infos.Add() = std::move(info);
    }
  }
  g->mutable_value_info()->Swap(&infos);
  std::vector<onnx::ValueInfoProto*> shapeless;
  for (auto* list : {g->mutable_input(), g->mutable_output()}) {
    for (auto& info : *list) {
      auto* t = info.mutable_type();
      if (t->has_tensor_type() && !t->tensor_type().has_shape()) {
        t->mutable_tensor_type()->mutable_shape();
        shapeless.push_back(&info);
      }
    }
  }
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw InputError("ONNX model '" + source + "' fails the ONNX checker: " + e.what());
  }
  for (auto* info : shapeless) info->mutable_type()->mutable_tensor_type()->clear_shape();
  // libonnx 1.12 does not check that an output is defined; dead-code removal would otherwise
  // drop every node of such a graph and leave an output nothing computes.
  std::set<std::string> defined;
  for (const auto& in : g->input()) defined.insert(in.name());
  for (const auto& t : g->initializer()) defined.insert(t.name());
  for (const auto& n : g->node()) defined.insert(n.output().begin(), n.output().end());
  for (const auto& out : g->output()) {
    if (!defined.count(out.name())) {
      throw InputError("ONNX model '" + source + "': graph output '" + out.name() +
                       "' is computed by no node (nor is it an input or initializer); every "
                       "output must be a node's output");
    }
  }
}

InputError NotOnnx(const std::string& source) {
  return InputError("'" + source + "' is not an ONNX model: its bytes do not parse as a "
                    "ModelProto (expected a file written by an ONNX exporter)");
}

// Frees the values a TensorProto holds (clear() alone keeps the capacity), once they have been
// copied into the IR: the proto and the IR never both hold all of a model's weights.
void ReleaseTensorData(onnx::TensorProto& t) {
  std::string().swap(*t.mutable_raw_data());
  google::protobuf::RepeatedField<float>().Swap(t.mutable_float_data());
  google::protobuf::RepeatedField<int64_t>().Swap(t.mutable_int64_data());
  google::protobuf::RepeatedField<int32_t>().Swap(t.mutable_int32_data());
}

// ImportOnnx on a parsed model, which it changes (folding, normalization) and empties of its
// tensor data as the IR takes it over.
Graph ImportParsed(onnx::ModelProto& model, const std::string& source, int64_t batch_size,
                   const std::string& model_dir) {
  onnx::GraphProto* g = model.mutable_graph();
  // Before libonnx looks at it: sizes against the bytes present, and the attributes its checks
  // divide by.
  CheckNodeAttributes(*g, source);
  FoldContext fold;
  fold.source = source;
  // The file's float32 initializers are its weights: counted as parameters, never folded into
  // other constants (onnx_fold.h). Constant nodes are not (they are an exporter's constants).
  for (const auto& t : g->initializer()) {
    if (t.data_type() == onnx::TensorProto::FLOAT) fold.weights.insert(t.name());
  }
  ConstantNodesToInitializers(*g);
  const std::map<std::string, ExternalRef> external = LoadExternalData(*g, model_dir, source);
  for (const auto& t : g->initializer()) {
    if (external.count(t.name())) fold.opaque.insert(t.name());
    else CheckedElementCount(t, source);
  }
  // Constants only (no shapes yet): the axes that opset-18 reductions take as inputs become
  // constants before NormalizeOnnxVersions turns them into attributes.
  FoldConstantsOnce(*g, {}, fold);
  NormalizeOnnxVersions(model, source);
  CheckModel(model, source);
  std::set<std::string> init_names;
  for (const auto& t : g->initializer()) init_names.insert(t.name());
  if (batch_size > 0) {
    for (auto& in : *g->mutable_input()) {
      if (init_names.count(in.name())) continue;
      auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
      if (shape->dim_size() == 0) continue;
      auto* dim = shape->mutable_dim(0);
      if (dim->has_dim_value() && dim->dim_value() != batch_size) {
        throw InputError("ONNX model '" + source + "': input '" + in.name() +
                         "' has a fixed batch size of " + std::to_string(dim->dim_value()) +
                         ", so it cannot run at batch size " + std::to_string(batch_size) +
                         "; export it with a dynamic batch axis, or run it at batch size " +
                         std::to_string(dim->dim_value()));
      }
      dim->set_dim_value(batch_size);
    }
    g->clear_value_info();
    for (auto& out : *g->mutable_output()) {
      if (!out.type().tensor_type().has_shape()) continue;  // unknown rank: inference fills it
      auto* shape = out.mutable_type()->mutable_tensor_type()->mutable_shape();
      if (shape->dim_size() > 0) shape->mutable_dim(0)->clear_dim_value();
    }
  }
  // Shape inference and folding until every shape is static, then dead-code removal.
  ResolveStaticShapes(model, fold);
  init_names.clear();
  for (const auto& t : g->initializer()) init_names.insert(t.name());

  Graph graph;
  graph.name = g->name().empty() ? source : g->name();
  std::vector<Node> casts;  // Cast nodes restoring narrow integer constants (NarrowIntegerType)
  std::set<std::string> used_names = init_names;
  for (const auto& n : g->node()) used_names.insert(n.output().begin(), n.output().end());
  for (auto& t : *g->mutable_initializer()) {
    auto ext = external.find(t.name());
    if (ext == external.end() && NarrowIntegerType(t.data_type())) {
      std::vector<int64_t> values;
      if (!ReadIntegers(t, MaxTensorBytes() / 8, &values)) {
        throw InputError("ONNX model '" + source + "': initializer '" + t.name() +
                         "' holds the wrong number of elements for its shape");
      }
      Initializer init;
      init.name = t.name() + "__int64";
      while (used_names.count(init.name)) init.name += "_";
      used_names.insert(init.name);
      init.dtype = DType::kInt64;
      init.is_parameter = false;
      for (int64_t d : t.dims()) init.tensor.shape.push_back(d);
      init.int64_data = std::move(values);
      ReleaseTensorData(t);
      Node cast;
      cast.op_type = "Cast";
      cast.name = t.name() + "__cast";
      cast.inputs = {init.name};
      cast.outputs = {t.name()};
      cast.attrs["to"] = static_cast<int64_t>(t.data_type());
      casts.push_back(std::move(cast));
      graph.value_shapes[init.name] = init.tensor.shape;
      graph.value_shapes[t.name()] = init.tensor.shape;
      graph.initializers.push_back(std::move(init));
      continue;
    }
    graph.initializers.push_back(
        ToInitializer(t, source, ext == external.end() ? nullptr : &ext->second));
    ReleaseTensorData(t);
    Initializer& init = graph.initializers.back();
    if (init.dtype == DType::kFloat32) init.is_parameter = fold.weights.count(t.name()) > 0;
    graph.value_shapes[t.name()] = init.tensor.shape;
  }
  graph.nodes = std::move(casts);
  auto record = [&](const onnx::ValueInfoProto& info) {
    graph.value_shapes[info.name()] = StaticShape(info.type(), info.name(), source);
  };
  for (const auto& in : g->input()) {
    if (init_names.count(in.name())) continue;
    if (in.type().tensor_type().elem_type() != onnx::TensorProto::FLOAT) {
      throw InputError("ONNX model '" + source + "': input '" + in.name() +
                       "' is not float32; ngraphbench feeds float32 inputs");
    }
    record(in);
    graph.inputs.push_back({in.name(), graph.value_shapes[in.name()]});
  }
  for (const auto& info : g->value_info()) record(info);
  for (const auto& out : g->output()) {
    record(out);
    graph.outputs.push_back({out.name(), graph.value_shapes[out.name()]});
  }
  for (const auto& n : g->node()) {
    if (!n.domain().empty() && n.domain() != "ai.onnx") {
      throw InputError("ONNX model '" + source + "': node '" + n.name() + "' uses operator " +
                       n.domain() + "::" + n.op_type() + "; only the default ONNX domain is "
                       "supported");
    }
    if (n.op_type() == "Constant") {
      // Constant nodes with a tensor or number became initializers (ConstantNodesToInitializers).
      const std::string attr = n.attribute_size() ? n.attribute(0).name() : "";
      throw InputError("ONNX model '" + source + "': Constant node '" + n.name() +
                       "' uses attribute '" + attr + "'; ngraphbench imports numeric constants "
                       "('value', 'value_float(s)', 'value_int(s)')");
    }
    Node node;
    node.op_type = n.op_type();
    node.name = n.name();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    for (const auto& a : n.attribute()) {
      switch (a.type()) {
        case onnx::AttributeProto::INT: node.attrs[a.name()] = a.i(); break;
        case onnx::AttributeProto::FLOAT: node.attrs[a.name()] = a.f(); break;
        case onnx::AttributeProto::STRING: node.attrs[a.name()] = a.s(); break;
        case onnx::AttributeProto::INTS:
          node.attrs[a.name()] = std::vector<int64_t>(a.ints().begin(), a.ints().end());
          break;
        case onnx::AttributeProto::FLOATS:
          node.attrs[a.name()] = std::vector<float>(a.floats().begin(), a.floats().end());
          break;
        default:
          throw InputError("ONNX model '" + source + "': node '" + n.name() + "' (" +
                           n.op_type() + ") has attribute '" + a.name() +
                           "' of a kind ngraphbench does not import (graphs, tensors)");
      }
    }
    CheckWindowed(n, graph.value_shapes, source);
    for (const auto& out : node.outputs) {
      if (!graph.value_shapes.count(out)) {
        throw InputError("ONNX model '" + source + "': shape inference gave no shape for '" +
                         out + "' (" + n.op_type() + "); ngraphbench needs static shapes");
      }
    }
    graph.nodes.push_back(std::move(node));
  }
  return graph;
}

// Parsed straight from the file, without a copy of its bytes (protobuf stops at 2 GiB, the most
// an .onnx file can hold).
onnx::ModelProto ParseModelFile(const std::string& path) {
  const UniqueFd fd = OpenFileCapped(path, kMaxModelBytes, "ONNX file");
  onnx::ModelProto model;
  if (!model.ParseFromFileDescriptor(fd.get())) throw NotOnnx(path);
  return model;
}

}  // namespace

Graph ImportOnnx(const std::string& bytes, const std::string& source, int64_t batch_size,
                 const std::string& model_dir) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) throw NotOnnx(source);
  return ImportParsed(model, source, batch_size, model_dir);
}

Graph ImportOnnxFile(const std::string& path, int64_t batch_size) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  onnx::ModelProto model = ParseModelFile(path);
  return ImportParsed(model, path, batch_size, dir.empty() ? "." : dir);
}

int64_t OnnxFixedBatchSize(const std::string& path) {
  const onnx::ModelProto model = ParseModelFile(path);
  std::set<std::string> init_names;
  for (const auto& t : model.graph().initializer()) init_names.insert(t.name());
  for (const auto& in : model.graph().input()) {
    if (init_names.count(in.name())) continue;
    const auto& shape = in.type().tensor_type().shape();
    if (shape.dim_size() > 0 && shape.dim(0).has_dim_value()) return shape.dim(0).dim_value();
    return 0;
  }
  throw InputError("ONNX model '" + path + "' has no inputs");
}

}  // namespace ngraphbench
