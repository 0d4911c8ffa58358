// Models from newer ONNX writers, normalized to what ngraphbench's libonnx (Debian's 1.12: IR
// version <= 8, operator schemas up to opset 17) checks and what the IR holds (opset 17).
//
// Why rewrite rather than require an older export: PyTorch's exporters and the `onnx` package
// write IR 9-10+ and opsets 18-21 by default, and libonnx 1.12 refuses both ("ir_version is
// higher than the checker's", no schemas past 17). Most of what changed since is either a new
// element type (float8, int4, ...), which a float32 model does not use, or an operator whose
// signature moved an attribute to an input; both have an exact opset-17 spelling. So:
//   - IR version > 8: set to 8 when the model uses nothing IR 9+ added that changes its meaning
//     (the element types float8 (IR 9), int4/uint4 (10), float4 (11), float8e8m0 (12), int2/uint2
//     (13), float6 (14)); otherwise InputError naming the type and where it is used. The other
//     additions (function attribute defaults, overloads, metadata_props, multi-device
//     annotations) are annotations libonnx 1.12 parses as unknown fields and ignores.
//   - default-domain opset 18..22 -> 17, rewriting the operators whose opset-17 form differs
//     (onnx_compat.cc lists them per opset, from the operator changelog) and refusing, in one
//     InputError listing them all, those with no opset-17 equivalent. Opset 22 only added
//     bfloat16 to the type lists of 48 operators, so it reads as 21 for a float32 model. Newer
//     opsets are refused with the opset to re-export at.
//   - opsets below 17 are left as they are (the importer's behaviour before this file).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace ngraphbench {

// Opsets 23-28 changed the operators the importer accepts only by adding element types (refused
// with their IR version) and attributes that are lowered or refused in onnx_compat.cc.
constexpr int64_t kNewestImportedOpset = 28;

// Rewrites `model` in place; throws InputError naming `source`. Run after Constant nodes became
// initializers (the axes of Reduce*-18 must be constants) and before libonnx's checker.
void NormalizeOnnxVersions(onnx::ModelProto& model, const std::string& source);

}  // namespace ngraphbench
