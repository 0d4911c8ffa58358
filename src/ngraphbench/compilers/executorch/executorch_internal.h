// What the parts of the `executorch` compiler share, and no other file includes:
// executorch_compiler.cc (the compiler: the lowering by executorch_compile.py, the program cache,
// the thread pool's size, the settings) and executorch_executable.cc (the .pte loaded by
// ExecuTorch's runtime: its methods, the offline contexts, Profile() with the event tracer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/core/tensor.h"

// The runtime's thread pool, libexecutorch_threadpool.so. The wheel ships no header for it
// (only threadpool_guard.h); these are the declarations of ExecuTorch's
// extension/threadpool/threadpool.h for the functions used here, which the library exports
// under these (mangled) names. Non-virtual members only: the class's layout is never needed.
namespace executorch::extension::threadpool {
class ThreadPool {
 public:
  size_t get_thread_count() const;
  // Replaces the pool's threads by `num_threads` new ones. Unsafe while a method that captured
  // the old pool can still run: XNNPACK takes the pool when a program's method is loaded.
  bool _unsafe_reset_threadpool(uint32_t num_threads);  // NOLINT(readability-identifier-naming)
};
ThreadPool* get_threadpool();
}  // namespace executorch::extension::threadpool

namespace ngraphbench::executorch_compiler {

// One loaded method with its inputs and outputs (executorch_executable.cc).
class MethodContext;

class ExecuTorchExecutable : public Executable {
 public:
  // `streams`: offline, the contexts it serves (NewContext), each on a pool of
  // `threads_per_stream` (1: Compile refuses more); 0: single stream.
  ExecuTorchExecutable(const Graph& graph, const std::filesystem::path& pte,
                       std::map<std::string, std::string> settings,
                       std::vector<std::string> degraded, std::filesystem::path remove_after,
                       int64_t streams);
  ~ExecuTorchExecutable() override;

  void SetInputs(const std::vector<HostTensor>& inputs) override;
  void Run() override;
  std::vector<HostTensor> GetOutputs() override;

  // Offline: another load of the same .pte (its own Method, memory plan, inputs, outputs and
  // XNNPACK workspace), run once on zeros here, before the timed runs.
  std::unique_ptr<RunContext> NewContext() override;

  int64_t Streams() const override { return streams_ > 0 ? streams_ : 1; }

  std::map<std::string, std::string> EffectiveSettings() const override;

  std::vector<std::string> Degraded() const override { return degraded_; }

  std::optional<KernelProfile> Profile(int runs) override;

 private:
  const Graph& graph_;
  std::filesystem::path pte_;
  std::map<std::string, std::string> settings_;
  std::vector<std::string> degraded_;
  std::filesystem::path remove_after_;  // an uncached program's temporary folder
  int64_t streams_ = 0;                 // offline: the streams served; 0: single stream
  std::unique_ptr<MethodContext> main_;
};

}  // namespace ngraphbench::executorch_compiler
