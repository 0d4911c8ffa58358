// Which execution provider runs how many nodes of an ONNX Runtime session, read from the lines
// ORT logs at verbose level while it creates the session ("Node placements"). Kept apart from
// the SDK so that the parsing is tested without ONNX Runtime.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace ngraphbench::ort {

// Nodes per execution provider, e.g. {"TensorrtExecutionProvider": 1, "CPUExecutionProvider":
// 3}. A provider that fuses nodes (TensorRT) counts each fused subgraph as one node.
using Placement = std::map<std::string, int64_t>;

// Adds what one log message says about placement: ORT writes
//   " All nodes placed on [CPUExecutionProvider]. Number of nodes: 2"
// when one provider runs everything, and one
//   " Node(s) placed on [CUDAExecutionProvider]. Number of nodes: 5"
// per provider otherwise. Other messages are ignored. Returns whether the message was one.
bool ParsePlacementMessage(const std::string& message, Placement& into);

// "CPUExecutionProvider:3,TensorrtExecutionProvider:1", for the row's compiler_settings.
std::string FormatPlacement(const Placement& placement);

// The nodes that run outside `provider`.
int64_t NodesOutside(const Placement& placement, const std::string& provider);

}  // namespace ngraphbench::ort
