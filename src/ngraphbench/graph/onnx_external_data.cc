// ONNX tensors stored outside the model file (external data), read for the import.
//
// A tensor with data_location EXTERNAL keeps its bytes in a side file: external_data entries
// `location` (a path relative to the model's folder), `offset` and `length` (bytes), and
// `checksum` (a SHA-1 of the bytes, optional; not verified: sizes are, which is what keeps a
// hostile file from reading out of bounds). The location is resolved against the folder of the
// .onnx file, never the working directory, and must stay inside it: no absolute path, no `..`,
// no symlink leading out (checked on the canonical path). The byte range is checked against the
// file's size and the tensor's declared element count before anything is read or allocated.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <limits>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/graph/onnx_import.h"

namespace ngraphbench::onnx_import {

namespace {

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

}  // namespace

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

}  // namespace ngraphbench::onnx_import
