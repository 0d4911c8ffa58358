// Plain host tensors (float32 only) and shape helpers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ngraphbench {

using Shape = std::vector<int64_t>;

// A named float32 tensor shape, e.g. a model input.
struct TensorSpec {
  std::string name;
  Shape shape;
};

// A dense, row-major float32 tensor in host memory.
struct HostTensor {
  Shape shape;
  std::vector<float> data;
};

int64_t NumElements(const Shape& shape);

// "1x3x224x224"; the scalar shape is "scalar".
std::string ShapeToString(const Shape& shape);

// A tensor of `shape` filled with N(0, stddev^2) samples, in row-major order, from
// PortableRng(seed).Normal() (core/random.h): the same values on every machine.
HostTensor RandomNormal(const Shape& shape, uint64_t seed, float stddev = 1.0f);

// The seed of a run's input `input_name`: Fnv1a64("<run_id>/<input_name>").
uint64_t InputSeed(const std::string& run_id, const std::string& input_name);
// The seed of the output check's second draw of input `input_name` (measure/check.h,
// JudgeInputDependence): Fnv1a64("redraw:<run_id>/<input_name>").
uint64_t RedrawSeed(const std::string& run_id, const std::string& input_name);

// The calibration set of precision int8 (static quantization): kCalibrationBatches batches, each
// input drawn as the run's inputs are (RandomNormal, N(0, 1)) but from a stream of its own,
// Fnv1a64("calibration:<batch>/<input_name>") for batch 0, 1, ..., so that the outputs the check
// compares come from inputs the quantizer never saw. It does not depend on the run id: a
// quantized model is cached by model and calibration set alone.
inline constexpr int kCalibrationBatches = 8;
uint64_t CalibrationSeed(int batch, const std::string& input_name);

// Number of CPU cores this process may run on (its affinity mask), at least 1.
int AvailableCores();

// A file of tensors (the worker's cached reference outputs, results/.cache/reference/, and the
// calibration batches of precision int8): "NGBTENS1", a uint64 tensor count, then per tensor a
// uint64 rank, int64 dims and float32 data, all little-endian as written by this machine.
// ParseTensorFile checks every size against the bytes present and throws InputError for a
// truncated or malformed file.
std::string FormatTensorFile(const std::vector<HostTensor>& tensors);
std::vector<HostTensor> ParseTensorFile(const std::string& bytes, const std::string& source);

}  // namespace ngraphbench
