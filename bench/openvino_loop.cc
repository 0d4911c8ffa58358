// A bare loop of OpenVINO's C++ API, the third side of bench/openvino_vs_benchmark_app.sh: what
// the SDK's own `infer()` costs in a C++ process, with nothing of ngraphbench's harness and
// nothing of benchmark_app's Python. Compiles the model with the LATENCY hint and the given
// threads, precision hint and streams, sets random inputs once (uniform in [0, 1); zeros for
// inputs not float32), runs `warmup` requests, then times synchronous `infer()` calls with
// steady_clock until it has `repeats` of them and at least `min_time_s` (ngraphbench's
// protocol), and prints their median.
//   openvino_loop MODEL THREADS PRECISION(f32|bf16|f16) STREAMS(0|1) WARMUP REPEATS MIN_TIME_S
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include <openvino/openvino.hpp>

int main(int argc, char** argv) try {
  if (argc != 8) {
    std::fprintf(stderr, "usage: openvino_loop MODEL THREADS PRECISION STREAMS WARMUP REPEATS "
                         "MIN_TIME_S\n");
    return 2;
  }
  const std::string precision = argv[3];
  ov::AnyMap properties{ov::hint::performance_mode(ov::hint::PerformanceMode::LATENCY),
                        ov::inference_num_threads(std::stoi(argv[2])),
                        ov::hint::inference_precision(precision == "bf16"  ? ov::element::bf16
                                                      : precision == "f16" ? ov::element::f16
                                                                           : ov::element::f32)};
  if (std::stoi(argv[4]) > 0) properties.emplace(ov::num_streams(std::stoi(argv[4])));
  ov::Core core;
  ov::CompiledModel compiled = core.compile_model(argv[1], "CPU", properties);
  ov::InferRequest request = compiled.create_infer_request();
  std::mt19937 generator(1);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (const ov::Output<const ov::Node>& input : compiled.inputs()) {
    ov::Tensor tensor(input.get_element_type(), input.get_shape());
    std::memset(tensor.data(), 0, tensor.get_byte_size());  // inputs of other types: zeros
    if (tensor.get_element_type() == ov::element::f32) {
      float* data = tensor.data<float>();
      for (size_t i = 0; i < tensor.get_size(); ++i) data[i] = uniform(generator);
    }
    request.set_tensor(input, tensor);
  }
  for (int i = 0, warmup = std::stoi(argv[5]); i < warmup; ++i) request.infer();
  const size_t repeats = std::stoul(argv[6]);
  const auto min_time = std::chrono::duration<double>(std::stod(argv[7]));
  std::vector<double> ms;
  const auto start = std::chrono::steady_clock::now();
  while (ms.size() < repeats || std::chrono::steady_clock::now() - start < min_time) {
    const auto before = std::chrono::steady_clock::now();
    request.infer();
    const auto after = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(after - before).count());
  }
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  const double p50 = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  std::printf("runs %zu p50_ms %.6f min_ms %.6f\n", n, p50, ms.front());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "openvino_loop: %s\n", e.what());
  return 1;
}
