// Intermediate tensors as a graph's outputs: what the output check compares where a model's own
// outputs do not depend on its input (a zero-initialized classifier head, measure/check.h), so
// that a compile computing something else still fails the check.
#pragma once

#include <string>
#include <vector>

#include "ngraphbench/graph/ir.h"

namespace ngraphbench {

// At most `max` values computed by `graph`'s nodes, nearest its outputs first: breadth-first
// from the outputs through each node's inputs (initializers and graph inputs are no candidates,
// nor are the outputs themselves). Left out, but walked through: what an operator may produce
// as another type than float32 (Shape, Size, ArgMax, ArgMin, TopK's indices, NonZero, Cast,
// CastLike, comparisons and logic), and values without a static shape.
std::vector<std::string> IntermediateCandidates(const Graph& graph, size_t max);

// `graph` with `values` (computed by its nodes) as its outputs, in that order, and only the
// nodes and initializers they need. Throws std::invalid_argument for a value that no node
// computes.
Graph WithOutputs(const Graph& graph, const std::vector<std::string>& values);

}  // namespace ngraphbench
