// ONNX Runtime's session profile (SessionOptions::EnableProfiling) read as the kernels of
// Executable::Profile. Kept apart from the SDK so that the parsing is tested without ONNX Runtime.
//
// ORT writes the profile at EndProfiling() as a JSON array of Chrome-trace events
//   {"cat" : "Node", "pid" :1, "tid" :2, "dur" :31, "ts" :5120, "ph" : "X",
//    "name" :"<node>_kernel_time", "args" : {"op_name" : "FusedConv",
//    "provider" : "CPUExecutionProvider", "node_index" : "3", ...}}
// with `ts` and `dur` in whole microseconds (truncated) from the session's creation. Each node
// of the graph it optimized makes one such event per execution, named after the node (or
// "<op type>_<index>" for a node without a name); each Run() makes one
//   {"cat" : "Session", "name" :"model_run", "ts" : <its start>, "dur" : ...}
// recorded when it ends. Names are written unescaped: a node name with a quote or a backslash
// makes the file invalid JSON.
#pragma once

#include <string>
#include <unordered_set>

#include "ngraphbench/compilers/compiler.h"

namespace ngraphbench::ort {

// The kernels of the last `runs` of the `warmup + runs` Run() calls that a session made, from
// its profile `trace`, summed per node over those runs. A kernel lists its node as one of the
// graph's nodes (nodes_known) only when the node's name is in `graph_nodes`. The warm-up runs
// are told apart by time: ORT's events carry no run number, so a kernel counts when it started
// at or after the start of run `warmup` (0-based). Notes say what the profile cannot tell,
// with one more for the GPU providers found among the kernels.
// Throws CompileError naming `who` when the trace is not valid JSON or does not hold
// `warmup + runs` runs (ORT stops recording at a million events).
KernelProfile ParseSessionProfile(const std::string& trace, int warmup, int runs,
                                  const std::unordered_set<std::string>& graph_nodes,
                                  const std::string& who);

}  // namespace ngraphbench::ort
