// A built model's float32 weights as bytes, and back: what a run's first worker process stores
// so that its later processes fill the same graph, built under SkipWeightDraws (models/
// builder.h), instead of drawing every weight again from the seeded generator, which is most of
// a build (about 1 s of 1.1 s for resnet50 on a 2-core VM).
//
// The bytes: "ngraphbench-weights 1\n", then for every float32 initializer of the graph, in
// order, its name's length and name, its element count, and its elements (each a little-endian
// uint64 or float32 as the machine writes them: a cache is read on the machine that wrote it).
#pragma once

#include <cstdint>
#include <string>

#include "ngraphbench/graph/ir.h"
#include "ngraphbench/models/zoo.h"

namespace ngraphbench {

// Whether the spec's weights are drawn by GraphBuilder (synthetic families, architectures), the
// only ones SkipWeightDraws skips; models imported from ONNX or PyTorch are read, not drawn.
bool DrawsWeights(const ModelSpec& spec);

// The size FormatWeights(graph) has, from the graph's structure alone.
uint64_t WeightsBytes(const Graph& graph);
std::string FormatWeights(const Graph& graph);
// Fills `graph`'s float32 initializers from `bytes`. Returns false, the graph untouched, unless
// the bytes hold exactly its initializers: the same names, element counts and order.
bool FillWeights(const std::string& bytes, Graph& graph);

}  // namespace ngraphbench
