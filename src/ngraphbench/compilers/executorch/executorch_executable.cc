// The `executorch` compiler's executable: the .pte program loaded by ExecuTorch's runtime
// (executorch::runtime::Program and Method), one method per context with the memory it runs in,
// its inputs and outputs; and Profile(), the same program loaded with the event tracer (ETDump).
#include <executorch/devtools/etdump/etdump_flatcc.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <executorch/runtime/backend/backend_options_map.h>
#include <executorch/runtime/backend/options.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "ngraphbench/compilers/compiler.h"
#include "ngraphbench/compilers/executorch/etdump.h"
#include "ngraphbench/compilers/executorch/executorch_internal.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/tensor.h"

namespace ngraphbench::executorch_compiler {

namespace fs = std::filesystem;
namespace et = ::executorch::runtime;

namespace {

using ::executorch::extension::MallocMemoryAllocator;
using ::executorch::extension::MmapDataLoader;

std::string ErrorName(et::Error error) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%x", static_cast<unsigned>(error));
  return std::string(et::to_string(error)) + " (" + buf + ")";
}

// One loaded method ("forward") of a program, with the memory it runs in: ExecuTorch allocates
// nothing on its own, the caller gives it the memory-planned buffers (activations, and the
// inputs and outputs, which the lowering plans too) and allocators for the rest.
// `own_workspace`: XNNPACK's subgraphs get scratch memory of their own for this method
// (the XNNPACK backend's workspace_sharing_mode "per model", a model being one loaded method,
// told for this load only) instead of the workspace every method shares by default, whose lock
// each execute holds: for a method that runs while others run theirs.
class LoadedMethod {
 public:
  LoadedMethod(const fs::path& pte, et::EventTracer* tracer, bool own_workspace = false) {
    et::Result<MmapDataLoader> loader = MmapDataLoader::from(pte.c_str());
    if (!loader.ok()) {
      throw CompileError("executorch: cannot open " + pte.string() + ": " +
                         ErrorName(loader.error()));
    }
    loader_ = std::make_unique<MmapDataLoader>(std::move(loader.get()));
    et::Result<et::Program> program = et::Program::load(loader_.get());
    if (!program.ok()) {
      throw CompileError("executorch: " + pte.string() + " is not a program this runtime reads: " +
                         ErrorName(program.error()));
    }
    program_ = std::make_unique<et::Program>(std::move(program.get()));
    et::Result<et::MethodMeta> meta = program_->method_meta("forward");
    if (!meta.ok()) {
      throw CompileError("executorch: " + pte.string() + " has no method 'forward'");
    }
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      const size_t size = static_cast<size_t>(meta->memory_planned_buffer_size(i).get());
      planned_.emplace_back(size);
      spans_.emplace_back(planned_.back().data(), size);
    }
    hierarchical_ = std::make_unique<et::HierarchicalAllocator>(
        et::Span<et::Span<uint8_t>>(spans_.data(), spans_.size()));
    memory_ = std::make_unique<et::MemoryManager>(&method_allocator_, hierarchical_.get(),
                                                  &temp_allocator_);
    if (own_workspace) {
      // The XNNPACK backend's key and option, and its WorkspaceSharingMode::PerModel (1).
      static constexpr char kXnnpackBackend[] = "XnnpackBackend";
      const et::Error set = xnnpack_options_.set_option("workspace_sharing_mode", 1);
      if (set != et::Error::Ok ||
          backend_options_.set_options(kXnnpackBackend, xnnpack_options_.view()) !=
              et::Error::Ok) {
        throw CompileError("executorch: cannot set XNNPACK's workspace_sharing_mode: " +
                           ErrorName(set));
      }
    }
    et::Result<et::Method> method = program_->load_method(
        "forward", memory_.get(), tracer, /*named_data_map=*/nullptr,
        own_workspace ? &backend_options_ : nullptr);
    if (!method.ok()) {
      // A missing operator or delegate is logged by the runtime (the worker's log) and comes
      // back here as OperatorMissing / NotFound.
      throw CompileError("executorch: loading method 'forward' of " + pte.string() +
                         " failed: " + ErrorName(method.error()) +
                         " (a kernel or the XNNPACK backend missing from the runtime libraries"
                         " is named in the worker's log)");
    }
    method_ = std::make_unique<et::Method>(std::move(method.get()));
  }

  et::Method& method() { return *method_; }

 private:
  // Destroyed in reverse: the method before the memory and the program it uses.
  std::unique_ptr<MmapDataLoader> loader_;
  std::unique_ptr<et::Program> program_;
  std::vector<std::vector<uint8_t>> planned_;
  std::vector<et::Span<uint8_t>> spans_;
  std::unique_ptr<et::HierarchicalAllocator> hierarchical_;
  MallocMemoryAllocator method_allocator_;
  MallocMemoryAllocator temp_allocator_;
  std::unique_ptr<et::MemoryManager> memory_;
  // The load's backend options, read while the method loads (and kept while it lives, as the
  // runtime asks).
  et::BackendOptions<1> xnnpack_options_;
  et::LoadBackendOptionsMap backend_options_;
  std::unique_ptr<et::Method> method_;
};

// A host tensor as the runtime's Tensor: a TensorImpl over the caller's data, contiguous.
class HostView {
 public:
  explicit HostView(const HostTensor& t)
      : sizes_(t.shape.begin(), t.shape.end()),
        dim_order_(t.shape.size()),
        strides_(t.shape.size()) {
    for (size_t i = 0; i < dim_order_.size(); ++i) dim_order_[i] = static_cast<uint8_t>(i);
    int32_t stride = 1;
    for (size_t i = sizes_.size(); i-- > 0;) {
      strides_[i] = stride;
      stride *= sizes_[i];
    }
    impl_ = std::make_unique<::executorch::aten::TensorImpl>(
        ::executorch::aten::ScalarType::Float, static_cast<ssize_t>(sizes_.size()),
        sizes_.data(), const_cast<float*>(t.data.data()), dim_order_.data(), strides_.data());
  }
  ::executorch::aten::Tensor tensor() { return ::executorch::aten::Tensor(impl_.get()); }

 private:
  std::vector<::executorch::aten::SizesType> sizes_;
  std::vector<::executorch::aten::DimOrderType> dim_order_;
  std::vector<::executorch::aten::StridesType> strides_;
  std::unique_ptr<::executorch::aten::TensorImpl> impl_;
};

}  // namespace

// One loaded method with the inputs it reads and the outputs it writes: the executable's own
// context, and each offline context (NewContext), which runs from its stream's thread while the
// others run theirs.
class MethodContext : public RunContext {
 public:
  // `offline`: a context of the offline scenario: its method has an XNNPACK workspace of its
  // own, and runs its parallel regions on the calling thread (below).
  MethodContext(const Graph& graph, const fs::path& pte, bool offline)
      : graph_(graph),
        offline_(offline),
        loaded_(std::make_unique<LoadedMethod>(pte, nullptr, /*own_workspace=*/offline)) {
    CheckSignature(loaded_->method());
    // A first run on zeros: XNNPACK finishes setting up (weights packing) on the first
    // execute, as the other compilers' first runs do, before any timed run.
    std::vector<HostTensor> zeros;
    for (const auto& spec : graph.inputs) {
      zeros.push_back(HostTensor{spec.shape, std::vector<float>(NumElements(spec.shape), 0.f)});
    }
    SetInputs(zeros);
    Run();
  }

  // The lowering leaves the inputs out of the memory plan (executorch_compile.py): the method
  // reads them where they are, in this context's copy of the host inputs (made here, outside
  // the clock), which nothing in the program writes.
  void SetInputs(const std::vector<HostTensor>& inputs) override {
    if (inputs.size() != graph_.inputs.size()) {
      throw std::runtime_error("executorch: " + std::to_string(inputs.size()) +
                               " inputs given, the model has " +
                               std::to_string(graph_.inputs.size()));
    }
    // Kept: the method points at this data until the next SetInputs (and Profile's method
    // at it while it runs).
    inputs_ = inputs;
    views_.clear();
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (NumElements(inputs_[i].shape) != static_cast<int64_t>(inputs_[i].data.size())) {
        throw std::runtime_error("executorch: input " + graph_.inputs[i].name + " has " +
                                 std::to_string(inputs_[i].data.size()) + " values for shape " +
                                 ShapeToString(inputs_[i].shape));
      }
      views_.push_back(std::make_unique<HostView>(inputs_[i]));
    }
    BindInputs(loaded_->method());
  }

  void Run() override {
    // Offline, the pool has one thread (Compile), with which pthreadpool runs a parallel
    // region inline on the calling thread; ExecuTorch's own kernels reach it through the
    // pool's run(), which holds the pool's lock even then, one stream at a time. The guard
    // (thread-local) has them run inline without the pool, as one thread would, and without
    // the lock.
    std::optional<::executorch::extension::threadpool::NoThreadPoolGuard> inline_only;
    if (offline_) inline_only.emplace();
    const et::Error error = loaded_->method().execute();
    if (error != et::Error::Ok) {
      throw std::runtime_error("executorch: execute() failed: " + ErrorName(error));
    }
  }

  std::vector<HostTensor> GetOutputs() override {
    et::Method& method = loaded_->method();
    std::vector<HostTensor> out;
    for (size_t i = 0; i < graph_.outputs.size(); ++i) {
      const et::EValue& value = method.get_output(i);
      if (!value.isTensor()) {
        throw std::runtime_error("executorch: output " + graph_.outputs[i].name +
                                 " is not a tensor");
      }
      const ::executorch::aten::Tensor t = value.toTensor();
      HostTensor host{graph_.outputs[i].shape, {}};
      const float* data = t.const_data_ptr<float>();
      host.data.assign(data, data + t.numel());
      out.push_back(std::move(host));
    }
    return out;
  }

  // Points `method`'s inputs at this context's last SetInputs() (the runtime shares the data,
  // copies nothing): this context's method, or Profile's.
  void BindInputs(et::Method& method) {
    for (size_t i = 0; i < views_.size(); ++i) {
      const et::Error error = method.set_input(et::EValue(views_[i]->tensor()), i);
      if (error != et::Error::Ok) {
        throw std::runtime_error("executorch: set_input(" + graph_.inputs[i].name +
                                 ") failed: " + ErrorName(error));
      }
    }
  }

 private:
  // The method's inputs and outputs must be the graph's: count, dtype and shape.
  void CheckSignature(et::Method& method) const {
    const et::MethodMeta meta = method.method_meta();
    if (meta.num_inputs() != graph_.inputs.size() || meta.num_outputs() != graph_.outputs.size()) {
      throw CompileError("executorch: the program takes " + std::to_string(meta.num_inputs()) +
                         " inputs and returns " + std::to_string(meta.num_outputs()) +
                         " outputs; the model has " + std::to_string(graph_.inputs.size()) +
                         " and " + std::to_string(graph_.outputs.size()));
    }
    const auto check = [](et::Result<et::TensorInfo> info, const std::string& what,
                          const std::string& name, const Shape& shape) {
      if (!info.ok()) throw CompileError("executorch: " + what + " " + name + " is not a tensor");
      const auto sizes = info->sizes();
      const Shape got(sizes.begin(), sizes.end());
      if (info->scalar_type() != ::executorch::aten::ScalarType::Float || got != shape) {
        throw CompileError("executorch: " + what + " " + name + " is " + ShapeToString(got) +
                           " of type " + std::to_string(static_cast<int>(info->scalar_type())) +
                           ", expected Float " + ShapeToString(shape));
      }
    };
    for (size_t i = 0; i < graph_.inputs.size(); ++i) {
      check(meta.input_tensor_meta(i), "input", graph_.inputs[i].name, graph_.inputs[i].shape);
    }
    for (size_t i = 0; i < graph_.outputs.size(); ++i) {
      check(meta.output_tensor_meta(i), "output", graph_.outputs[i].name, graph_.outputs[i].shape);
    }
  }

  const Graph& graph_;
  const bool offline_;
  std::unique_ptr<LoadedMethod> loaded_;
  std::vector<HostTensor> inputs_;  // the last SetInputs(), which the method reads
  std::vector<std::unique_ptr<HostView>> views_;  // inputs_ as the runtime's tensors
};

ExecuTorchExecutable::ExecuTorchExecutable(const Graph& graph, const fs::path& pte,
                                           std::map<std::string, std::string> settings,
                                           std::vector<std::string> degraded,
                                           fs::path remove_after, int64_t streams)
    : graph_(graph),
      pte_(pte),
      settings_(std::move(settings)),
      degraded_(std::move(degraded)),
      remove_after_(std::move(remove_after)),
      streams_(streams),
      main_(std::make_unique<MethodContext>(graph, pte, /*offline=*/streams > 0)) {}

ExecuTorchExecutable::~ExecuTorchExecutable() {
  main_.reset();
  if (!remove_after_.empty()) {
    std::error_code ec;
    fs::remove_all(remove_after_, ec);
  }
}

void ExecuTorchExecutable::SetInputs(const std::vector<HostTensor>& inputs) {
  main_->SetInputs(inputs);
}
void ExecuTorchExecutable::Run() { main_->Run(); }
std::vector<HostTensor> ExecuTorchExecutable::GetOutputs() { return main_->GetOutputs(); }

std::unique_ptr<RunContext> ExecuTorchExecutable::NewContext() {
  if (streams_ < 1) return nullptr;  // compiled for one request at a time
  return std::make_unique<MethodContext>(graph_, pte_, /*offline=*/true);
}

std::map<std::string, std::string> ExecuTorchExecutable::EffectiveSettings() const {
  std::map<std::string, std::string> out = settings_;
  // The runtime's pool as it is now (read back, not the setting).
  const size_t pool = ::executorch::extension::threadpool::get_threadpool()->get_thread_count();
  out["threads"] = std::to_string(pool);
  if (streams_ > 0) {
    out["streams"] = std::to_string(streams_);
    out["threads_per_stream"] = std::to_string(pool);
    out["threads"] = std::to_string(static_cast<size_t>(streams_) * pool);
    out["xnnpack_workspace"] = "per_stream";
  }
  return out;
}

std::optional<KernelProfile> ExecuTorchExecutable::Profile(int runs) {
  // ETDumpGen grows its own buffer (malloc) when given none.
  ::executorch::etdump::ETDumpGen tracer;
  tracer.set_event_tracer_profiling_level(et::EventTracerProfilingLevel::kProfileAllEvents);
  LoadedMethod profiled(pte_, &tracer);
  main_->BindInputs(profiled.method());  // the last SetInputs()'s, as the timed method's
  // Two runs to warm up (XNNPACK's setup on the first): recorded too (this wheel's ETDumpGen
  // exports no way to clear its buffer), and dropped by ReadEtdump, the first two executions.
  const int warmup = 2;
  for (int i = 0; i < warmup + runs; ++i) {
    const et::Error error = profiled.method().execute();
    if (error != et::Error::Ok) {
      throw CompileError("executorch: profiled execute() failed: " + ErrorName(error));
    }
  }
  const ::executorch::etdump::ETDumpResult dump = tracer.get_etdump_data();
  if (dump.buf == nullptr || dump.size == 0) {
    throw CompileError("executorch: ETDump recorded nothing");
  }
  const std::unique_ptr<void, decltype(&std::free)> owned(dump.buf, &std::free);
  return ReadEtdump(dump.buf, dump.size, warmup, runs);
}

}  // namespace ngraphbench::executorch_compiler
