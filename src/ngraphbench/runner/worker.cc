// The worker: one process of one run, as its resolved spec (spec.h) says. It runs its phases in
// order (pin, build the model, reference, export for the compiler, load and compile, measure,
// check, verdict, write): loads exactly one compiler module, and writes its part (or, started
// by hand without --process, the run's row) atomically.
#include <fmt/core.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <optional>
#include <sstream>
#include <utility>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/process.h"
#include "ngraphbench/core/random.h"
#include "ngraphbench/graph/intermediate.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/graph/ops.h"
#include "ngraphbench/graph/working_set.h"
#include "ngraphbench/measure/aggregate.h"
#include "ngraphbench/measure/check.h"
#include "ngraphbench/measure/cpuinfo.h"
#include "ngraphbench/measure/quant_check.h"
#include "ngraphbench/measure/harness.h"
#include "ngraphbench/measure/heap.h"
#include "ngraphbench/measure/machine.h"
#include "ngraphbench/measure/offline.h"
#include "ngraphbench/measure/server.h"
#include "ngraphbench/measure/sampler.h"
#include "ngraphbench/measure/stats.h"
#include "ngraphbench/measure/verdict.h"
#include "ngraphbench/models/builder.h"
#include "ngraphbench/models/torch_export.h"
#include "ngraphbench/models/weights_cache.h"
#include "ngraphbench/models/zoo.h"
#include "ngraphbench/profile/pass.h"
#include "ngraphbench/results/csv.h"
#include "ngraphbench/results/server_steps.h"
#include "ngraphbench/runner/launch.h"
#include "ngraphbench/runner/parts.h"
#include "ngraphbench/runner/plan.h"
#include "ngraphbench/runner/run.h"
#include "ngraphbench/runner/spec.h"
#include "ngraphbench/runner/worker.h"

namespace ngraphbench {

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Seconds since this process started: its start in /proc/self/stat (field 22, clock ticks
// since boot) against CLOCK_BOOTTIME. Covers exec, loading the binary and reading the spec;
// 0 when unreadable.
double SecondsSinceProcessStart() {
  std::ifstream in("/proc/self/stat");
  std::string stat;
  std::getline(in, stat);
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 1));
  std::string skipped;
  for (int field = 3; field < 22 && fields >> skipped; ++field) {
  }
  unsigned long long start_ticks = 0;
  timespec now{};
  const long ticks_per_s = ::sysconf(_SC_CLK_TCK);
  if (!(fields >> start_ticks) || ticks_per_s <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &now) != 0) {
    return 0;
  }
  const double since = static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9 -
                       static_cast<double>(start_ticks) / static_cast<double>(ticks_per_s);
  return std::max(0.0, since);
}

// The row's phases_s, phase by phase: Mark(phase) books the time since the last lap to it.
class PhaseTimes {
 public:
  explicit PhaseTimes(ResultRow& row) : row_(row), last_(Clock::now()) {
    Add("start", SecondsSinceProcessStart());
  }
  // The seconds since the last lap (or the start), to be booked by the caller.
  double Lap() {
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return seconds;
  }
  void Mark(const std::string& phase) { Add(phase, Lap()); }
  void Add(const std::string& phase, double seconds) {
    AddPhases({{phase, seconds}}, row_.phases_s);
  }

 private:
  ResultRow& row_;
  Clock::time_point last_;
};

std::string Hostname() {
  char buf[256] = {};
  ::gethostname(buf, sizeof(buf) - 1);
  return buf;
}

// This machine's key in results/<device>/machine.json: handed down by the scheduler, computed
// here when the worker runs on its own (a "reproduce" command line).
std::string MachineId() {
  const char* id = std::getenv(kMachineIdEnv);
  return id && *id ? std::string(id) : DescribeMachine().machine_id;
}

std::string UtcTimestamp() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

std::string JoinSettings(const std::map<std::string, std::string>& settings) {
  std::string out;
  for (const auto& [k, v] : settings) out += (out.empty() ? "" : ";") + k + "=" + v;
  return out;
}

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : sep) + item;
  return out;
}

// The run's inputs: N(0, 1) from the portable generator, seeded by run id and input name, so a
// reference process (or anyone with the documented algorithm) regenerates exactly them.
std::vector<HostTensor> RunInputs(const Graph& graph, const RunSpec& run) {
  std::vector<HostTensor> inputs;
  for (const auto& in : graph.inputs) {
    inputs.push_back(RandomNormal(in.shape, InputSeed(run.run_id, in.name)));
  }
  return inputs;
}

// The output check's second draw of inputs, which the reference alone runs: whether its outputs
// depend on the input at all (measure/check.h, JudgeInputDependence).
std::vector<HostTensor> RedrawnInputs(const Graph& graph, const RunSpec& run) {
  std::vector<HostTensor> inputs;
  for (const auto& in : graph.inputs) {
    inputs.push_back(RandomNormal(in.shape, RedrawSeed(run.run_id, in.name)));
  }
  return inputs;
}

// The intermediate tensors the output check may compare where a model's outputs do not depend
// on its input: the kIntermediateCandidates nearest the outputs (graph/intermediate.h). The
// reference's probe computes them all at once, as the outputs of one graph.
constexpr size_t kIntermediateCandidates = 8;
Graph ProbeGraph(const Graph& graph) {
  return WithOutputs(graph, IntermediateCandidates(graph, kIntermediateCandidates));
}

// A reference: its outputs on the run's inputs, and on the second draw.
struct ReferenceSet {
  std::vector<HostTensor> outputs, redrawn;
};

// The reference's settings: fp32, every default, and the opt_level its description gives as a
// reference (`reference: {opt_level: ...}`; ONNX Runtime's: no graph optimization), so that the
// path shares as little as possible with the compilers it checks.
CompilerConfig ReferenceConfig(const CompilerInfo& info) {
  CompilerConfig c = DefaultCompilerConfig(info);
  c.precision = "fp32";
  if (!info.reference_opt_level.empty()) c.opt_level = info.reference_opt_level;
  return c;
}

// The part of a cache key that names a model and this build (which fixes the model builders and
// the generator): "<version>\n<family>\n<name>\n<variant>\n<width>x<depth>\n".
std::string ModelKey(const ModelSpec& model) {
  return std::string(NGB_VERSION) + "\n" + model.family + "\n" + model.name + "\n" +
         model.variant + "\n" + std::to_string(model.width) + "x" + std::to_string(model.depth) +
         "\n";
}

// The cache file of a run's reference outputs (with `probe`: of its intermediate candidates,
// ProbeGraph), named by its run id and keyed by the reference compiler, the model, the batch
// size, the input seeds and this build (which fixes the model builder and generator).
std::string ReferencePath(const std::string& results_dir, const RunSpec& run, const Graph& graph,
                          const std::string& reference, bool probe) {
  std::string key = std::string(probe ? "probe=1\n" : "reference=2\n") + reference + "\n" +
                    ModelKey(run.model) +
                    run.model.onnx_path + "\n" +
                    (run.model.onnx_path.empty() ? "" : FileDigest(run.model.onnx_path)) +
                    "\nb" + std::to_string(run.batch_size) + "\n";
  for (const auto& in : graph.inputs) {
    key += in.name + "=" + std::to_string(InputSeed(run.run_id, in.name)) + "\n";
  }
  return results_dir + "/.cache/reference/" + run.run_id + "." + reference + "." +
         (probe ? "probe." : "") + Fnv1a64Hex(key) + ".bin";
}

// Runs `argv` with stdout and stderr into `log`; returns its wait status. The child stays in
// the worker's process group, so a timeout of the worker kills it too.
int RunChild(const std::vector<std::string>& argv, const std::string& log) {
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    // It dies with the worker, as the worker dies with the scheduler: a worker killed with its
    // scheduler (SIGKILL, which reaches no process group) leaves no reference child behind.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    const int fd = CreateFreshFile(log);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
    }
    ExecOrExit(argv);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// The size of the reference file of `graph`'s outputs on both draws (FormatTensorFile), its
// ceiling when read; where an output's shape is not known here, the ceiling of a model.
uint64_t ReferenceBytes(const Graph& graph) {
  uint64_t bytes = 16;  // magic and tensor count
  for (const TensorSpec& out : graph.outputs) {
    uint64_t elements = 1;
    for (const int64_t d : out.shape) {
      if (d <= 0 || elements > kMaxModelBytes / static_cast<uint64_t>(d)) return kMaxModelBytes;
      elements *= static_cast<uint64_t>(d);
    }
    bytes += 2 * (8 + 8 * out.shape.size() + 4 * elements);
    if (bytes > kMaxModelBytes) return kMaxModelBytes;
  }
  return bytes;
}

// The reference in the cache file `path`: `graph`'s outputs on the run's inputs, then on the
// second draw. InputError when it is not a regular file of at most their size holding a tensor
// file of twice as many tensors as the graph has outputs.
ReferenceSet ReadReference(const std::string& path, const Graph& graph) {
  std::vector<HostTensor> tensors = ParseTensorFile(
      ReadFileCapped(path, ReferenceBytes(graph), "reference cache", Links::kRefuse), path);
  const size_t n = graph.outputs.size();
  if (tensors.size() != 2 * n) {
    throw InputError(fmt::format("reference file '{}' holds {} tensors, expected {} (the {} "
                                 "outputs on each of the two draws of inputs)",
                                 path, tensors.size(), 2 * n, n));
  }
  ReferenceSet set;
  set.redrawn.assign(std::make_move_iterator(tensors.begin() + n),
                     std::make_move_iterator(tensors.end()));
  tensors.resize(n);
  set.outputs = std::move(tensors);
  return set;
}

// The reference outputs of `run` (the spec's run, its model prepared), from the cache or
// computed now by a child process that loads only the reference compiler (SDKs never share a
// process) and reads the spec at `spec_path`, or, for a worker started by hand, a spec file
// written for it now. Throws std::runtime_error saying why when there is none. A cache entry
// that cannot be read (damaged, cut short, a FIFO, a link to a device) is discarded and computed
// again: a bad cache never turns the check off.
// With `probe`, the same for the intermediate candidates (ProbeGraph(graph)'s outputs, which
// `graph` then is).
ReferenceSet ReferenceOutputs(const ResolvedRun& spec, const std::string& spec_path,
                              const RunSpec& run, const Graph& graph,
                              const std::string& reference, bool probe) {
  const std::string path = ReferencePath(spec.results_dir, run, graph, reference, probe);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    try {
      return ReadReference(path, graph);
    } catch (const InputError& e) {
      std::cerr << "discarding the reference cache entry (" << e.what()
                << "); computing it again\n";
      ::unlink(path.c_str());
    }
  }
  if (!IsBuilt(reference)) throw std::runtime_error(reference + " is not built");
  std::optional<SpecFile> own;
  if (spec_path.empty()) own.emplace(spec);
  const std::string log = path + ".log." + std::to_string(::getpid());
  const int status =
      RunChild(ReferenceCommand(own ? own->path() : spec_path, reference, path, probe), log);
  std::string tail = ReadLogTail(log);
  ::unlink(log.c_str());
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (tail.size() > 300) tail = "..." + tail.substr(tail.size() - 300);
  // The child could not write the cache (or its model for its compiler): the storage's
  // failure, which stops the sweep, not a reference that is unavailable for this model.
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitStorageFailed) {
    throw StorageError("the reference child (" + reference + ") could not write" +
                           (tail.empty() ? std::string(" (its log is empty)") : ": " + tail),
                       0);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !FileExists(path)) {
    throw std::runtime_error(reference + " failed on this model" +
                             (tail.empty() ? std::string() : ": " + tail));
  }
  return ReadReference(path, graph);
}

// The model in the form a compiler that consumes ONNX takes it (CompileRequest): bytes, or, when
// its weights are more than one protobuf holds (OnnxNeedsExternalData), an .onnx file with its
// weights as external data beside it. The file gets a folder of its own in the results tree's
// .tmp/ (not the machine's /tmp, which may not have room for the weights), named after this host
// and process (kWorkerModelPrefix) so that the scheduler can remove what a killed worker left;
// the folder goes when this does, which the worker's handling of errors (a row, or an error
// that main() catches) lets happen on failures too.
class OnnxForCompiler {
 public:
  OnnxForCompiler(const Graph& graph, const CompilerInfo& info, const std::string& results_dir) {
    if (!info.consumes_onnx) return;
    if (!OnnxNeedsExternalData(graph)) {
      bytes_ = ExportOnnx(graph);
      return;
    }
    std::string name = TempTemplate(results_dir, kWorkerModelPrefix, "");
    if (::mkdtemp(name.data()) == nullptr) {
      const int error = errno;
      ThrowFileError("cannot create a folder for the ONNX model in " + results_dir + "/.tmp",
                     error);
    }
    dir_ = name;
    remove_on_signal_.emplace(dir_);
    path_ = dir_ + "/model.onnx";
    try {
      ExportOnnxFile(graph, path_);
    } catch (...) {
      // The weights written so far (on a full disk, the room a resume needs) go now: a
      // constructor that throws runs no destructor.
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
      throw;
    }
  }
  ~OnnxForCompiler() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  OnnxForCompiler(OnnxForCompiler&& other) noexcept
      : bytes_(std::move(other.bytes_)),
        dir_(std::exchange(other.dir_, std::string())),
        path_(std::move(other.path_)) {
    if (other.remove_on_signal_) {
      other.remove_on_signal_.reset();
      remove_on_signal_.emplace(dir_);
    }
  }
  OnnxForCompiler(const OnnxForCompiler&) = delete;
  OnnxForCompiler& operator=(const OnnxForCompiler&) = delete;
  OnnxForCompiler& operator=(OnnxForCompiler&&) = delete;

  CompileRequest Request(const Graph& graph, const CompilerConfig& config,
                         const std::string& cache_dir, bool quick) const {
    CompileRequest request{graph, bytes_, config, cache_dir, quick};
    request.onnx_path = path_;
    return request;
  }

 private:
  std::string bytes_, dir_, path_;
  std::optional<RemoveOnSignal> remove_on_signal_;  // dir_, while it is there
};

// The worker's phases, in the order RunWorker runs them; each fills its columns of the row.

// Pin: before the model is built and before any SDK starts a thread, so that the threads the
// runtimes start later inherit the mask (docs/measurement.md, Pinning). Returns the CPUs pinned
// to, none without `affinity`.
std::vector<int> Pin(const CompilerConfig& config, ResultRow& row) {
  const std::vector<int> pinned = AffinityCpus(config.affinity, config.threads, ProcessCpus());
  if (!pinned.empty()) PinCpus(pinned);
  row.affinity_cpus = FormatCpuList(ProcessCpus());
  return pinned;
}

// Limit memory: the worker and every process it starts (the reference child, compile and
// export scripts) run under RLIMIT_DATA of WorkerMemoryLimitBytes() (graph/working_set.h), so
// that what the model's estimate misses ends in an allocation failure, an `error` row naming
// memory, before it can take the machine's memory from everything else. RLIMIT_DATA rather than
// RLIMIT_AS: runtimes reserve far more address space than they use (thread stacks, arenas,
// allocators' reservations), which RLIMIT_DATA leaves alone since it counts only writable
// private memory. Runs on a GPU are left unlimited: a GPU driver maps device and pinned memory
// into the process in ways this limit was never checked against. Returns the limit set, in
// bytes, or 0 for none.
uint64_t LimitMemory(const CompilerConfig& config) {
  if (config.device != "cpu") return 0;
  const uint64_t limit = WorkerMemoryLimitBytes();
  rlimit current{};
  if (::getrlimit(RLIMIT_DATA, &current) != 0) return 0;
  if (current.rlim_max != RLIM_INFINITY && current.rlim_max < limit) return current.rlim_max;
  if (current.rlim_cur != RLIM_INFINITY && current.rlim_cur <= limit) return current.rlim_cur;
  const rlimit lowered{static_cast<rlim_t>(limit), current.rlim_max};
  return ::setrlimit(RLIMIT_DATA, &lowered) == 0 ? limit : 0;
}

// The run's model, built: the run with its model prepared, its graph and its inputs.
struct BuiltModel {
  RunSpec run;
  Graph graph;
  std::vector<HostTensor> inputs;
};

// The cache file of a model's drawn weights (models/weights_cache.h), keyed by the model and this
// build (which fixes the builders and the generator); the batch size is not in the key, since
// the weights do not depend on it (FillWeights refuses a file that does not fit the graph).
std::string WeightsPath(const std::string& results_dir, const ModelSpec& model) {
  const std::string key = "weights=1\n" + ModelKey(model);
  return results_dir + "/.cache/weights/" + SafeName(model.name) + "." + Fnv1a64Hex(key) + ".bin";
}

// The model's graph: the run's first process (and a worker started by hand) draws its weights,
// the later processes (and the reference child, `process` 1) build the structure only and load
// them from the file the first stored (StoreWeights). A cache file that does not fit the graph
// (another build, a damaged file) is drawn anew.
Graph BuildGraph(const ResolvedRun& spec, const ModelSpec& model, int process) {
  if (!DrawsWeights(model)) return BuildModel(model, spec.run.batch_size);
  const std::string path = WeightsPath(spec.results_dir, model);
  if (process > 0 && FileExists(path)) {
    Graph graph;
    {
      const SkipWeightDraws skip;
      graph = BuildModel(model, spec.run.batch_size);
    }
    try {
      if (FillWeights(ReadFileCapped(path, WeightsBytes(graph), "weights cache", Links::kRefuse),
                      graph)) {
        return graph;
      }
    } catch (const InputError&) {
      // Not a regular file (a FIFO, a link), or larger than the graph's weights: drawn below
      // (a run's first process replaces such a file: StoreWeights).
    }
  }
  return BuildModel(model, spec.run.batch_size);
}

// The run's first process stores the weights it drew for the later ones, once per model.
void StoreWeights(const ResolvedRun& spec, const ModelSpec& model, int process,
                  const Graph& graph) {
  if (process != 0 || !DrawsWeights(model)) return;
  const std::string path = WeightsPath(spec.results_dir, model);
  // What is there already stays, unless it cannot be this graph's weights (BuildGraph).
  struct stat st {};
  const bool stored = ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
                      static_cast<uint64_t>(st.st_size) == WeightsBytes(graph);
  if (!stored) WriteFileAtomic(path, FormatWeights(graph));
}

// Build the model. A model given as PyTorch code is exported first (cached per batch size), as
// part of building it; its rows carry the exact parameter count of the module. `build_s` is the
// first process's, which always draws the weights.
BuiltModel Build(const ResolvedRun& spec, int process, ResultRow& row) {
  const auto start = Clock::now();
  BuiltModel model{spec.run, {}, {}};
  PrepareModel(model.run.model, model.run.batch_size, spec.results_dir + "/.cache");
  model.graph = BuildGraph(spec, model.run.model, process);
  row.build_s = SecondsSince(start);
  StoreWeights(spec, model.run.model, process, model.graph);
  const Graph& graph = model.graph;
  row.params =
      model.run.model.exact_params > 0 ? model.run.model.exact_params : graph.ParameterCount();
  row.macs = CountMacs(graph) / spec.run.batch_size;
  model.inputs = RunInputs(graph, spec.run);
  for (const auto& in : graph.inputs) {
    row.input_shape += (row.input_shape.empty() ? "" : ";") + ShapeToString(in.shape);
  }
  return model;
}

// Reference: the output check's reference outputs, first, in their own process, before this
// worker loads its compiler. None when the check is off or its reference is unavailable (the
// row's check_reference says which).
std::optional<ReferenceSet> Reference(const ResolvedRun& spec, const std::string& spec_path,
                                      const CompilerInfo& info, const BuiltModel& model,
                                      ResultRow& row) {
  if (!spec.run.check.enabled) {
    row.check_reference = "off";
    return std::nullopt;
  }
  // From the compilers' roles (compilers/registry.h): a build without the first reference (a
  // GPU machine's, scripts/gpu_check.sh) checks against the next.
  row.check_reference = ReferenceCompilerFor(info.name, spec.config.device);
  // An int8 row is judged by cosine and SNR (measure/quant_check.h), not by a tolerance.
  if (spec.config.precision != "int8") {
    row.check_tolerance = ToleranceFor(spec.run.check, spec.config.precision);
  }
  if (row.check_reference.empty()) {
    row.check_reference = "unavailable: no compiler description declares `reference:`";
    return std::nullopt;
  }
  try {
    return ReferenceOutputs(spec, spec_path, model.run, model.graph, row.check_reference,
                            /*probe=*/false);
  } catch (const StorageError&) {
    throw;  // the machine's failure, not the reference's: no row (CmdWorker)
  } catch (const std::exception& e) {
    row.check_reference = "unavailable: " + std::string(e.what());
    return std::nullopt;
  }
}

// Export for the compiler, after the reference child has finished: a model written as a file
// with external data is then on disk only once at a time. Its export counts as building the
// model.
OnnxForCompiler ExportForCompiler(const ResolvedRun& spec, const CompilerInfo& info,
                                  const BuiltModel& model, ResultRow& row) {
  const auto start = Clock::now();
  OnnxForCompiler onnx(model.graph, info, spec.results_dir);
  *row.build_s += SecondsSince(start);
  return onnx;
}

// The compiler's module and what it compiled; the module outlives the executable.
struct Compiled {
  std::unique_ptr<Compiler> compiler;
  std::unique_ptr<Executable> executable;
};

// Load and compile: the one compiler module this process loads, asked first whether this
// machine can run the config (UnavailableError: a skipped row). A model with operators outside
// the compiler's column of the operator table is refused before its SDK sees it, every such
// operator named at once (the SDK would name the first, or crash on it).
Compiled LoadAndCompile(const ResolvedRun& spec, const CompilerInfo& info,
                        const BuiltModel& model, const OnnxForCompiler& onnx, int process,
                        ResultRow& row) {
  Compiled compiled;
  compiled.compiler = LoadCompiler(info.name);
  row.compiler_version = compiled.compiler->Version();
  if (const std::string why = compiled.compiler->Unavailable(spec.config); !why.empty()) {
    throw UnavailableError(why);
  }
  if (info.op_column) CheckCompilerSupports(model.graph, *info.op_column);
  const auto start = Clock::now();
  CompileRequest request =
      onnx.Request(model.graph, spec.config, spec.results_dir + "/.cache", spec.run.quick);
  request.torch_program = model.run.model.torch_program;
  request.torch_program_error = model.run.model.torch_program_error;
  // The run's first process (and a worker started by hand) compiles cold, so that the row's
  // compile_s is a compile; the later ones may load what it left in the cache.
  request.cold = process <= 0;
  // Server serves its queries on the offline scenario's contexts.
  request.offline = spec.run.scenario != kScenarioSingleStream;
  request.streams = request.offline ? spec.run.streams : 1;
  compiled.executable = compiled.compiler->Compile(request);
  // A compile's time: what it spent storing its result for the run's later processes is not.
  row.compile_s =
      std::max(0.0, SecondsSince(start) - compiled.executable->CacheStoreSeconds());
  return compiled;
}

// How process `process` of the run measures (-1: the whole run in one process).
MeasureOptions OptionsFor(const ResolvedRun& spec, int process, bool capture_outputs) {
  const RunSpec& run = spec.run;
  MeasureOptions options;
  options.warmup = run.warmup;
  options.boundary = ParseTimingBoundary(run.timing_boundary);
  options.sample_period = std::chrono::milliseconds(spec.sample_ms);
  // Whether to add processes (stop `ci`) is the scheduler's call: each process times a fixed
  // share (measure/aggregate.h).
  RunWork work;
  work.repeats = run.repeats;
  work.max_time_s = run.max_time_s;
  work.min_time_s = run.min_time_s;
  work.max_repeats = run.max_repeats;
  work.processes = run.processes;
  work.sample_period_ms = static_cast<double>(spec.sample_ms);
  const ProcessShare share = ShareOfRun(work, process >= 0);
  options.repeats = share.repeats;
  options.max_time = std::chrono::duration<double>(share.max_time_s);
  options.min_time = std::chrono::duration<double>(share.min_time_s);
  options.max_repeats = share.max_repeats;
  options.min_timed_repeats = share.min_timed_repeats;
  options.stop = process >= 0 ? StopRule::kFixed : ParseStopRule(run.stop);
  options.ci_rel_target = run.ci_rel_target;
  options.ci_min_repeats = run.ci_min_repeats;
  options.capture_first_outputs = capture_outputs;
  // The GPU only where the compiler computes on one: a CPU run's GPU columns stay empty.
  if (spec.config.device == "cuda") options.gpu = GpuMonitorSettingsFromEnvironment();
  return options;
}

// The columns of what the sampler saw over the timed window of `requests` timed requests.
void FillSystemColumns(const ResolvedRun& spec, const SystemStats& system, ResultRow& row) {
  const int64_t requests = row.repeats.value_or(0);
  row.other_cpu_pct = system.other_cpu_pct;
  row.cpu_util_pct = system.cpu_util_pct;
  row.cpu_util_norm_pct = system.cpu_util_norm_pct;
  row.rss_start_mb = system.rss_start_mb;
  row.rss_peak_mb = system.rss_peak_mb;
  if (system.cpu_util_pct && requests > 0) {
    row.cpu_ms_per_inference = *system.cpu_util_pct / 100.0 * system.window_s * 1e3 /
                               static_cast<double>(requests);
  }
  row.notes = system.note;
  if (system.energy_j_total && requests > 0 && system.window_s > 0) {
    row.energy_j = *system.energy_j_total / static_cast<double>(requests);
    row.power_w = *system.energy_j_total / system.window_s;
  } else {
    row.notes += (row.notes.empty() ? "" : "; ") + system.energy_note;
  }
  const GpuStats& gpu = system.gpu;
  row.gpu_util_pct = gpu.gpu_util_pct;
  row.gpu_mem_mb = gpu.gpu_mem_mb;
  row.gpu_power_w = gpu.gpu_power_w;
  if (gpu.gpu_energy_j_total && requests > 0) {
    row.gpu_energy_j = *gpu.gpu_energy_j_total / static_cast<double>(requests);
  }
  if (!gpu.note.empty()) row.notes += (row.notes.empty() ? "" : "; ") + gpu.note;
  if (spec.run.model.family == "onnx") {
    row.notes += std::string(row.notes.empty() ? "" : "; ") + kOnnxParamsNote;
  }
}

// The columns of a process's timed window, any scenario's (measure/harness.h's TimedWindow):
// its latency statistics as a run of one process, its first run and warmup, its window and what
// the sampler saw over it; with streams, theirs and samples/s.
void FillWindowColumns(const ResolvedRun& spec, const TimedWindow& w, ResultRow& row) {
  if (w.streams > 0) {
    row.streams = w.streams;
    row.samples_per_s = w.samples_per_s;
  }
  row.first_run_ms = w.first_run_ms;
  row.warmup = w.warmup_runs;
  FillLatencyColumns(row, w.latencies_ns, spec.run.batch_size);
  row.processes = 1;
  row.process_p50s_ms = {*row.latency_p50_ms};
  row.processes_reason = "fixed";
  row.stop_reason = w.stop_reason;
  row.timed_window_s = w.window_s;
  FillSystemColumns(spec, w.system, row);
}

// What the verdict and the output check need of a measurement, either scenario's.
struct Measured {
  SystemStats system;
  double window_s = 0;
  // Each stream's outputs of its first run (one stream in single_stream), to be checked.
  std::vector<std::vector<HostTensor>> first_outputs;
  // The scenario's own reasons the run is invalid (server: measure/server.h).
  std::vector<std::string> invalid_reasons = {};
  // Server with find_peak: every step of the search, for `<run_id>.server_steps.csv`.
  std::vector<ServerStep> server_steps = {};
  // Single stream: the time stalls took in the timed window (measure/verdict.h).
  double stall_s = 0;
};

// Measure: this process's timed runs (measure/harness.h) and what the sampler saw meanwhile.
// The latencies are moved to `latencies`, the first run's outputs stay in the result.
Measured MeasureProcess(const ResolvedRun& spec, int process, Executable& executable,
                        const BuiltModel& model, bool capture_outputs,
                        std::vector<int64_t>& latencies, ResultRow& row) {
  Measurement m =
      Measure(executable, model.inputs, OptionsFor(spec, process, capture_outputs));
  FillWindowColumns(spec, m, row);
  latencies = std::move(m.latencies_ns);
  Measured measured{m.system, m.window_s, {}};
  if (capture_outputs) measured.first_outputs.push_back(std::move(m.first_outputs));
  // A timed run, or a pause between two, far beyond the median: the process stopped there.
  const Stalls stalls = FindStalls(latencies, m.pauses_ns);
  if (const std::string note = DescribeStalls(stalls, m.window_s); !note.empty()) {
    row.notes += (row.notes.empty() ? "" : "; ") +
                 (process >= 0 ? fmt::format("process {} ", process) : std::string()) + note;
  }
  measured.stall_s = static_cast<double>(stalls.total_ns) / 1e9;
  return measured;
}

// The executable's execution contexts, as many as it was compiled to serve (offline and
// server). A compiler without execution contexts is refused here, naming it: never a single
// stream passed off as several.
struct Contexts {
  std::vector<std::unique_ptr<RunContext>> owned;
  std::vector<RunContext*> raw;
};
Contexts MakeContexts(const ResolvedRun& spec, Executable& executable) {
  const std::string& scenario = spec.run.scenario;
  const int64_t streams = executable.Streams();
  if (streams < 1 || (spec.run.streams > 0 && streams != spec.run.streams)) {
    throw CompileError(fmt::format("{}: asked for {} streams, the compiled model serves {}",
                                   spec.config.compiler, StreamsName(spec.run.streams),
                                   streams));
  }
  Contexts contexts;
  for (int64_t i = 0; i < streams; ++i) {
    contexts.owned.push_back(executable.NewContext());
    if (!contexts.owned.back()) {
      throw CompileError(spec.config.compiler + " cannot run scenario " + scenario +
                         " yet: it has no execution contexts (Executable::NewContext), which " +
                         scenario + " needs to keep several requests of one compiled model in "
                         "flight; run it with scenario single_stream");
    }
    contexts.raw.push_back(contexts.owned.back().get());
  }
  return contexts;
}

// Measure, offline (measure/offline.h): the executable's contexts, as many as it was compiled
// to serve, each looping on its own thread, and samples per second over the window. A compiler
// without execution contexts is refused here, naming it: never a single stream passed off as
// several.
Measured MeasureOfflineProcess(const ResolvedRun& spec, int process, Executable& executable,
                               const BuiltModel& model, bool capture_outputs,
                               std::vector<int64_t>& latencies, ResultRow& row) {
  const Contexts contexts = MakeContexts(spec, executable);
  OfflineMeasurement m = MeasureOffline(contexts.raw, model.inputs, spec.run.batch_size,
                                        OptionsFor(spec, process, capture_outputs));
  FillWindowColumns(spec, m, row);
  latencies = std::move(m.latencies_ns);
  return Measured{m.system, m.window_s, std::move(m.first_outputs)};
}

// The seed of a server run's arrivals: the experiment's arrival_seed, else one from the run id,
// as the inputs' seeds are (docs/measurement.md, Server).
uint64_t ArrivalSeed(const RunSpec& run) {
  return run.server.arrival_seed ? *run.server.arrival_seed : Fnv1a64("arrivals:" + run.run_id);
}

// One step of a find_peak search, as the row's notes tell it; an invalid step says why in a
// word or two (the row's invalid_reason has the whole reason for the step it reports).
std::string StepNote(const ServerMeasurement& m, double percentile) {
  std::string verdict = m.bound_met ? "met" : "broken";
  if (!m.invalid_rules.empty()) {
    std::string why;
    for (const ServerRule rule : m.invalid_rules) {
      const char* word = rule == ServerRule::kGeneratorBehind ? "generator behind"
                         : rule == ServerRule::kQueries       ? "too few queries"
                                                              : "too short";
      why += (why.empty() ? "" : ", ") + std::string(word);
    }
    verdict = "invalid: " + why;
  }
  return fmt::format("{:.4g} QPS {} (p{:g} {:.3g} ms{})", m.target_qps, verdict,
                     percentile, m.percentile_ms,
                     m.completed < m.issued
                         ? fmt::format(", {} of {} left queued", m.issued - m.completed, m.issued)
                         : std::string());
}

// One step of a find_peak search as `<run_id>.server_steps.csv` holds it.
ServerStep StepOf(const ServerMeasurement& m, int64_t number) {
  ServerStep step;
  step.step = number;
  step.target_qps = m.target_qps;
  step.achieved_qps = m.achieved_qps;
  if (!m.latencies_ns.empty()) {
    std::vector<double> ms;
    ms.reserve(m.latencies_ns.size());
    for (const int64_t ns : m.latencies_ns) ms.push_back(static_cast<double>(ns) / 1e6);
    std::sort(ms.begin(), ms.end());
    step.latency_p50_ms = Percentile(ms, 50);
  }
  step.latency_at_percentile_ms = m.percentile_ms;
  step.bound_met = m.bound_met;
  step.valid = m.invalid_reasons.empty();
  step.invalid_reason = Join(m.invalid_reasons, "; ");
  step.queries_issued = m.issued;
  step.queries_completed = m.completed;
  return step;
}

// Measure, server (measure/server.h): Poisson queries at target_qps into the executable's
// contexts, the latency percentile against the bound; with find_peak, a search over rates
// (FindPeak), each step a measured run, the row the peak's step (or, when none met the bound,
// the last step), every step in the row's notes and in Measured::server_steps.
Measured MeasureServerProcess(const ResolvedRun& spec, int process, Executable& executable,
                              const BuiltModel& model, bool capture_outputs,
                              std::vector<int64_t>& latencies, ResultRow& row) {
  const RunSpec& run = spec.run;
  const Contexts contexts = MakeContexts(spec, executable);
  MeasureOptions options = OptionsFor(spec, process, capture_outputs);
  ServerOptions server;
  server.target_qps = run.server.target_qps;
  server.latency_bound_ms = run.server.latency_bound_ms;
  server.percentile = run.server.latency_percentile;
  server.seed = ArrivalSeed(run);
  server.min_duration = std::chrono::duration<double>(run.server.min_duration_s);
  server.min_queries = MinServerQueries(server.percentile);
  server.max_duration = std::chrono::duration<double>(run.max_time_s);

  std::optional<ServerMeasurement> reported;
  std::vector<std::vector<HostTensor>> first_outputs;
  double first_run_ms = 0;
  std::vector<std::string> steps;
  std::vector<ServerStep> server_steps;
  auto measure = [&](double qps) {
    server.target_qps = qps;
    ServerMeasurement m =
        MeasureServer(contexts.raw, model.inputs, run.batch_size, options, server);
    if (!reported) {  // the first step's first runs: the cold one, and the outputs to check
      first_run_ms = m.first_run_ms;
      first_outputs = std::move(m.first_outputs);
      options.capture_first_outputs = false;
    }
    steps.push_back(StepNote(m, server.percentile));
    server_steps.push_back(StepOf(m, static_cast<int64_t>(server_steps.size()) + 1));
    const bool met = m.bound_met && m.invalid_reasons.empty();
    // The row is the peak's step: the highest rate that met the bound so far; until one has,
    // the latest.
    const bool reported_met =
        reported && reported->bound_met && reported->invalid_reasons.empty();
    if (!reported || (met && (!reported_met || m.target_qps > reported->target_qps)) ||
        (!met && !reported_met)) {
      reported = std::move(m);
    }
    return met;
  };
  std::vector<std::string> search_reasons;
  if (!run.server.find_peak) {
    measure(run.server.target_qps);
  } else {
    // No rate below the one whose expected queries over the time cap are the percentile's
    // minimum: a step there is invalid (too few queries) whatever the system does, and halving
    // on would only measure more of them, each as long as the cap.
    const double min_qps = server.max_duration.count() > 0
                               ? static_cast<double>(server.min_queries) /
                                     server.max_duration.count()
                               : 0.01;
    const PeakSearch search = FindPeak(run.server.target_qps, measure, kPeakRelTolerance,
                                       kPeakMaxSteps, min_qps);
    row.peak_qps = search.peak_qps;
    row.peak_steps = static_cast<int64_t>(search.steps.size());
    std::string note = fmt::format("find_peak (p{:g} <= {:g} ms): ", server.percentile,
                                   server.latency_bound_ms);
    for (size_t i = 0; i < steps.size(); ++i) note += (i ? ", " : "") + steps[i];
    note += search.peak_qps ? fmt::format("; peak {:.4g} QPS ({})", *search.peak_qps,
                                          search.stop_reason)
                            : fmt::format("; no peak ({})", search.stop_reason);
    steps = {note};
    if (!search.peak_qps) {
      search_reasons.push_back(fmt::format(
          "server: find_peak found no rate that met the bound, down to {:.4g} QPS",
          search.steps.back().qps));
    }
  }
  ServerMeasurement& m = *reported;
  m.first_run_ms = first_run_ms;  // the first step's: the cold run
  FillWindowColumns(spec, m, row);
  latencies = m.latencies_ns;
  row.target_qps = m.target_qps;
  row.latency_bound_ms = server.latency_bound_ms;
  row.latency_percentile = server.percentile;
  row.latency_at_percentile_ms = m.percentile_ms;
  row.bound_met = m.bound_met;
  row.queries_issued = m.issued;
  row.queries_completed = m.completed;
  row.achieved_qps = m.achieved_qps;
  row.issue_delay_p99_ms = m.issue_delay_p99_ms;
  if (m.completed < m.issued) {
    steps.push_back(fmt::format("{} of {} queries were still queued when the drain ended; "
                                "their latencies are the time they had waited",
                                m.issued - m.completed, m.issued));
  }
  for (const std::string& note : steps) {
    row.notes += (row.notes.empty() ? "" : "; ") + note;
  }
  Measured measured{m.system, m.window_s, std::move(first_outputs)};
  measured.invalid_reasons = m.invalid_reasons;
  measured.invalid_reasons.insert(measured.invalid_reasons.end(), search_reasons.begin(),
                                  search_reasons.end());
  if (run.server.find_peak) measured.server_steps = std::move(server_steps);
  return measured;
}

// The check of an int8 row: cosine and SNR against the FP32 reference within the int8 bounds
// (measure/quant_check.h), with the max errors beside them; the row's figures are the worst
// stream's (lowest SNR).
void CheckInt8(const std::vector<std::vector<HostTensor>>& streams_outputs,
               const std::vector<HostTensor>& reference, ResultRow& row) {
  std::optional<QuantAccuracy> worst;
  std::optional<CheckResult> worst_errors;
  size_t worst_stream = 0;
  for (size_t i = 0; i < streams_outputs.size(); ++i) {
    QuantAccuracy accuracy = CompareQuantized(streams_outputs[i], reference);
    const bool worse = !worst || (!accuracy.mismatch.empty() && worst->mismatch.empty()) ||
                       (worst->mismatch.empty() && !(accuracy.snr_db >= worst->snr_db));
    if (worse) {
      worst = std::move(accuracy);
      worst_errors = CompareOutputs(streams_outputs[i], reference);
      worst_stream = i;
    }
  }
  if (!worst) return;
  const QuantAccuracy& a = *worst;
  const std::string stream =
      streams_outputs.size() > 1 ? fmt::format("stream {}: ", worst_stream) : std::string();
  if (!a.mismatch.empty()) {
    row.status = kStatusWrong;
    row.error = stream + "outputs do not match " + row.check_reference + "'s: " + a.mismatch;
    return;
  }
  if (worst_errors && worst_errors->mismatch.empty()) {
    row.check_max_abs_err = worst_errors->max_abs_err;
    row.check_max_rel_err = worst_errors->max_rel_err;
  }
  row.check_cosine = a.cosine;
  row.check_snr_db = a.snr_db;
  row.check_top1_agreement = a.top1_agreement;
  row.check_top5_agreement = a.top5_agreement;
  if (!WithinInt8Bounds(a)) {
    row.status = kStatusWrong;
    row.error = stream + fmt::format("int8 outputs differ from {}'s fp32 outputs: cosine {:.4f} "
                                     "(bound >= {}), SNR {:.1f} dB (bound >= {} dB)",
                                     row.check_reference, a.cosine, kInt8MinCosine, a.snr_db,
                                     kInt8MinSnrDb);
  }
}

// Check: the first run's outputs against the reference (measure/check.h), each stream's in
// offline; beyond the precision's tolerance the row is `wrong`. The row's errors are the worst
// stream's.
void Check(const std::vector<std::vector<HostTensor>>& streams_outputs,
           const std::vector<HostTensor>& reference, const std::string& precision,
           ResultRow& row) {
  if (precision == "int8") {
    CheckInt8(streams_outputs, reference, row);
    return;
  }
  std::optional<CheckResult> worst;
  size_t worst_stream = 0;
  for (size_t i = 0; i < streams_outputs.size(); ++i) {
    CheckResult check = CompareOutputs(streams_outputs[i], reference);
    const bool worse = !worst || (!check.mismatch.empty() && worst->mismatch.empty()) ||
                       (worst->mismatch.empty() && check.max_rel_err > worst->max_rel_err);
    if (worse) {
      worst = std::move(check);
      worst_stream = i;
    }
  }
  if (!worst) return;
  const CheckResult& check = *worst;
  if (check.mismatch.empty()) {
    row.check_max_abs_err = check.max_abs_err;
    row.check_max_rel_err = check.max_rel_err;
  }
  if (!WithinTolerance(check, *row.check_tolerance)) {
    const std::string stream = streams_outputs.size() > 1
                                   ? fmt::format("stream {}: ", worst_stream)
                                   : std::string();
    row.status = kStatusWrong;
    row.error = stream +
                (!check.mismatch.empty()
                     ? "outputs do not match " + row.check_reference + "'s: " + check.mismatch
                     : fmt::format("outputs differ from {}'s: max abs err {:.3g}, max rel err "
                                   "{:.3g} > tolerance {:.3g} ({})",
                                   row.check_reference, check.max_abs_err, check.max_rel_err,
                                   *row.check_tolerance, precision));
  }
}

// How the check judges `outputs` against `reference` at `precision`: within the tolerance (int8:
// the cosine and SNR bounds), and its figures as the row's error or notes quote them.
std::pair<bool, std::string> Judge(const std::vector<HostTensor>& outputs,
                                   const std::vector<HostTensor>& reference,
                                   const std::string& precision, const ResultRow& row) {
  if (precision == "int8") {
    const QuantAccuracy a = CompareQuantized(outputs, reference);
    if (!a.mismatch.empty()) return {false, a.mismatch};
    return {WithinInt8Bounds(a),
            fmt::format("cosine {:.4f} (bound >= {}), SNR {:.1f} dB (bound >= {} dB)", a.cosine,
                        kInt8MinCosine, a.snr_db, kInt8MinSnrDb)};
  }
  const CheckResult c = CompareOutputs(outputs, reference);
  if (!c.mismatch.empty()) return {false, c.mismatch};
  const bool ok = WithinTolerance(c, *row.check_tolerance);
  return {ok, fmt::format("max abs err {:.3g}, max rel err {:.3g} {} tolerance {:.3g} ({})",
                          c.max_abs_err, c.max_rel_err, ok ? "<=" : ">", *row.check_tolerance,
                          precision)};
}

void AddNote(ResultRow& row, const std::string& note) {
  row.notes += (row.notes.empty() ? "" : "; ") + note;
}

// Whether the check could fail (measure/check.h, JudgeInputDependence): the row's
// check_verdict. Where the model's outputs do not depend on its input, the run's first process
// (and a worker started by hand) checks an intermediate tensor in their place: the nearest of the
// graph's candidates whose reference does (graph/intermediate.h, computed by the reference's
// probe child), in a second compile of the graph cut there, made as --quick makes it (no
// autotuning) and run once on the run's inputs. Beyond the tolerance the row is `wrong`; with no
// such tensor, or no second compile, the check is inconclusive. The row's notes say which. The
// later processes leave the verdict to the first (MergeParts).
void JudgeCheck(const ResolvedRun& spec, const std::string& spec_path, const CompilerInfo& info,
                const BuiltModel& model, const ReferenceSet& reference, Compiler& compiler,
                int process, ResultRow& row) {
  if (row.status != kStatusOk) {
    if (row.status == kStatusWrong) row.check_verdict = "fail";
    return;
  }
  const std::string& precision = spec.config.precision;
  const InputDependence outputs =
      JudgeInputDependence(reference.outputs, reference.redrawn, spec.run.check, precision);
  if (outputs.discriminates) {
    row.check_verdict = "pass";
    return;
  }
  if (process > 0) return;
  const std::string why =
      "the model's outputs do not depend on its input (" +
      (outputs.all_zero
           ? std::string("the reference's are all 0 on two draws of inputs)")
           : fmt::format("the reference's change by at most {:.3g}, relative, between two draws "
                         "of inputs, which the check at {} passes)",
                         outputs.max_rel_change, precision));
  auto inconclusive = [&](const std::string& rest) {
    row.check_verdict = "inconclusive";
    AddNote(row, "output check inconclusive: " + why + ", " + rest +
                     ": a compile that ignored its input would pass it");
  };
  const std::vector<std::string> candidates =
      IntermediateCandidates(model.graph, kIntermediateCandidates);
  if (candidates.empty()) return inconclusive("and the graph computes no other tensor to check");
  ReferenceSet probe;
  try {
    probe = ReferenceOutputs(spec, spec_path, model.run, ProbeGraph(model.graph),
                             row.check_reference, /*probe=*/true);
  } catch (const StorageError&) {
    throw;
  } catch (const std::exception& e) {
    return inconclusive(std::string("and the reference could not compute the tensors nearest "
                                    "them (") + e.what() + ")");
  }
  size_t chosen = candidates.size();
  for (size_t i = 0; i < candidates.size() && chosen == candidates.size(); ++i) {
    if (JudgeInputDependence({probe.outputs.at(i)}, {probe.redrawn.at(i)}, spec.run.check,
                             precision)
            .discriminates) {
      chosen = i;
    }
  }
  if (chosen == candidates.size()) {
    std::string names;
    for (const std::string& c : candidates) names += (names.empty() ? "'" : ", '") + c + "'";
    return inconclusive(fmt::format("nor does any of the {} tensors nearest them ({})",
                                    candidates.size(), names));
  }
  const std::string& tensor = candidates[chosen];
  row.check_tensor = tensor;
  std::vector<HostTensor> cut_outputs;
  try {
    const Graph cut = WithOutputs(model.graph, {tensor});
    const OnnxForCompiler onnx(cut, info, spec.results_dir);
    CompileRequest request =
        onnx.Request(cut, spec.config, spec.results_dir + "/.cache", /*quick=*/true);
    const std::unique_ptr<Executable> executable = compiler.Compile(request);
    executable->SetInputs(model.inputs);
    executable->Run();
    cut_outputs = executable->GetOutputs();
  } catch (const StorageError&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    return inconclusive(fmt::format("and the tensor '{}', which does, could not be checked: "
                                    "compiling the graph cut there failed ({})",
                                    tensor, e.what()));
  }
  const auto [ok, figures] = Judge(cut_outputs, {probe.outputs.at(chosen)}, precision, row);
  const std::string where = fmt::format(
      "the intermediate tensor '{}', in a second compile of the graph cut there, since {}",
      tensor, why);
  if (ok) {
    row.check_verdict = "pass";
    AddNote(row, "output check on " + where + ": " + figures);
    return;
  }
  row.check_verdict = "fail";
  row.status = kStatusWrong;
  row.error = "outputs differ from " + row.check_reference + "'s at " + where + ": " + figures;
}

// Verdict: what the SDK says it ran with (its settings, what it did less of than asked), the
// CPUs its threads may run on, and the measurement of process `process` against the run's
// validity thresholds (measure/aggregate.h's JudgeRun over this one process: a part's verdict is
// judged again once the run's parts are merged). `heap` is PinHeapThresholds()'s setting.
// Returns what the merge needs of the process beyond its row (its part's summary file).
ProcessSummary Verdict(const RunSpec& run, const CompilerConfig& config, int process,
                       const Measured& m, const Executable& executable, const std::string& heap,
                       const std::vector<int>& pinned, ResultRow& row) {
  auto settings = executable.EffectiveSettings();
  settings["heap"] = heap;
  row.compiler_settings = JoinSettings(settings);
  ProcessSummary summary;
  summary.process = process;
  summary.window_s = m.window_s;
  summary.stall_s = m.stall_s;
  summary.degraded = executable.Degraded();
  // Under an emulator every timing is the emulator's: the row is kept, never quoted.
  if (const std::string emulator = Emulator(); !emulator.empty()) {
    summary.degraded.push_back(EmulatedReason(emulator));
  }
  summary.scenario_reasons = m.invalid_reasons;
  // Read back over every thread after the timed runs: a runtime may re-pin its own threads.
  const std::vector<int> ran_on = ThreadsCpus();
  row.affinity_cpus = FormatCpuList(ran_on);
  if (!pinned.empty() &&
      !std::includes(pinned.begin(), pinned.end(), ran_on.begin(), ran_on.end())) {
    summary.degraded.push_back("affinity: pinned to CPUs " + FormatCpuList(pinned) +
                               ", but threads may run on " + row.affinity_cpus);
  }
  if (auto it = settings.find("threads"); it != settings.end()) {
    row.threads = std::stoll(it->second);
    if (*row.threads != config.threads) {
      summary.degraded.push_back(
          fmt::format("threads: {} asked, the SDK runs {}", config.threads, *row.threads));
    }
  }
  if (run.scenario != kScenarioSingleStream && row.streams && *row.streams > 0) {
    const auto it = settings.find("threads_per_stream");
    row.threads_per_stream = it != settings.end()
                                 ? std::stoll(it->second)
                                 : std::max<int64_t>(1, row.threads.value_or(config.threads) /
                                                            *row.streams);
  }
  RunFigures figures;
  figures.window_s = m.window_s;
  figures.repeats = row.repeats.value_or(0);
  figures.cv = row.cv;
  figures.other_cpu_pct = m.system.other_cpu_pct;
  const RunVerdict verdict =
      JudgeRun({summary}, figures, run.validity, run.min_time_s, run.max_repeats);
  row.valid = verdict.valid();
  row.invalid_reason = verdict.Reasons();
  return summary;
}

// Write: the trace first (and a part's summary), the row last, so that a row on disk means the
// run (or the part) is complete; then what went wrong, if anything, on stderr (the scheduler's
// log tail). A part's trace and summary whose row cannot be written go again: they would only
// take the room a resume needs (a run's trace, written by hand, may have replaced an older row's
// and stays with it).
void Write(const std::string& dir, const std::string& run_id, int process, const ResultRow& row,
           const std::vector<int64_t>& latencies, const ProcessSummary& summary) {
  const std::string trace = process >= 0 ? PartLatenciesPath(dir, run_id, process)
                                         : LatenciesPath(dir, run_id);
  const bool part_measured = process >= 0 && !latencies.empty();
  try {
    if (!latencies.empty()) WriteLatencies(trace, latencies);
    if (part_measured) WritePartSummary(dir, run_id, process, summary);
    WriteRow(process >= 0 ? PartRowPath(dir, run_id, process) : RowPath(dir, run_id), row);
  } catch (const EnvironmentError&) {
    if (part_measured) {
      ::unlink(trace.c_str());
      ::unlink(PartSummaryPath(dir, run_id, process).c_str());
    }
    throw;
  }
  if (row.status == kStatusSkipped) {
    std::cerr << "skipped: " << row.error << "\n";
  } else if (row.status != kStatusOk) {
    std::cerr << "error: " << row.error << "\n";
  }
}

// One process of the run `spec` specifies (the whole run when `process` is -1), phase by phase;
// `spec_path` is its file, empty for a worker started by hand. What the compiler refuses, or this
// machine cannot run, ends the phases early and is the row's status and error.
int RunWorker(const ResolvedRun& spec, const std::string& spec_path, int process) {
  const CompilerInfo& info = FindCompiler(spec.config.compiler);
  const std::string dir = RunDirectory(spec.results_dir, spec.device, spec.config.compiler);
  ResultRow row = BaseRow(spec);
  const uint64_t memory_limit = LimitMemory(spec.config);
  // Before anything is allocated for the run: every run's heap behaves the same (heap.h).
  const std::string heap = PinHeapThresholds();
  std::vector<int64_t> latencies;
  ProcessSummary summary;
  PhaseTimes phases(row);
  try {
    const std::vector<int> pinned = Pin(spec.config, row);
    const BuiltModel model = Build(spec, process, row);
    phases.Mark("build");
    const std::optional<ReferenceSet> reference = Reference(spec, spec_path, info, model, row);
    phases.Mark("reference");
    const OnnxForCompiler onnx = ExportForCompiler(spec, info, model, row);
    phases.Mark("build");
    Compiled compiled = LoadAndCompile(spec, info, model, onnx, process, row);
    // Loading the module and asking it about this machine, then its compile call.
    const double load_and_compile = phases.Lap();
    phases.Add("load", std::max(0.0, load_and_compile - row.compile_s.value_or(0)));
    phases.Add("compile", row.compile_s.value_or(0));
    const Measured m =
        spec.run.scenario == kScenarioServer
            ? MeasureServerProcess(spec, process, *compiled.executable, model,
                                   reference.has_value(), latencies, row)
        : spec.run.scenario == kScenarioOffline
            ? MeasureOfflineProcess(spec, process, *compiled.executable, model,
                                    reference.has_value(), latencies, row)
            : MeasureProcess(spec, process, *compiled.executable, model, reference.has_value(),
                             latencies, row);
    // The first run and the warmup, then the timed window (the server's drain counts with it).
    const double measured_s = phases.Lap();
    phases.Add("warmup", std::max(0.0, measured_s - m.window_s));
    phases.Add("timed", m.window_s);
    row.status = kStatusOk;
    if (reference) Check(m.first_outputs, reference->outputs, spec.config.precision, row);
    summary = Verdict(spec.run, spec.config, process, m, *compiled.executable, heap, pinned, row);
    // Before the row, as the trace: a row on disk means its steps are written too.
    if (!m.server_steps.empty()) {
      WriteFileAtomic(ServerStepsPath(dir, spec.run.run_id), FormatServerStepsCsv(m.server_steps));
    }
    // One process profiles, after its timed runs: the first (or the only one).
    if (spec.run.profile && process <= 0 && row.status == kStatusOk) {
      ProfilePass(*compiled.executable, model.graph, spec.config.compiler, dir,
                  spec.run.run_id, row);
    }
    if (reference) {
      // A second compile (JudgeCheck) never runs beside the measured executable: an SDK may
      // hold process-wide state that its executables share (ExecuTorch's thread pool).
      compiled.executable.reset();
      JudgeCheck(spec, spec_path, info, model, *reference, *compiled.compiler, process, row);
    }
    phases.Mark("check");
  } catch (const UnavailableError& e) {
    row.status = kStatusSkipped;
    row.error = e.what();
  } catch (const CompileError& e) {
    row.status = kStatusError;
    row.error = e.what();
  } catch (const InputError& e) {
    row.status = kStatusError;
    row.error = e.what();
  } catch (const std::bad_alloc&) {
    // What the model's estimate did not foresee: the SDK's own copies and workspaces. By now
    // the unwinding has freed what the run held, so the row can still be written.
    row.status = kStatusError;
    row.error =
        memory_limit > 0
            ? fmt::format("out of memory: the worker reached its memory limit of {} MiB "
                          "(RLIMIT_DATA, three times NGRAPHBENCH_MAX_WORKING_SET_MB or three "
                          "quarters of this machine's memory); the model, batch size or "
                          "compiler needs more than that",
                          memory_limit >> 20)
            : "out of memory: an allocation failed; the model, batch size or compiler needs "
              "more memory than this machine could give";
  }
  Write(dir, spec.run.run_id, process, row, latencies, summary);
  return kExitOk;
}

// The reference child: the spec's model (with `probe`, ProbeGraph's cut of it) through the
// compiler `reference` on the run's inputs and on the check's second draw, both outputs written
// atomically to `out` (ReadReference).
int RunReference(const ResolvedRun& spec, const std::string& reference, const std::string& out,
                 bool probe) {
  const CompilerInfo& info = FindCompiler(reference);
  RunSpec run = spec.run;
  PrepareModel(run.model, run.batch_size, spec.results_dir + "/.cache");  // cached by now
  // The weights the worker that started it drew and stored, where it did (BuildGraph).
  Graph graph = BuildGraph(spec, run.model, /*process=*/1);
  if (probe) graph = ProbeGraph(graph);
  const OnnxForCompiler onnx(graph, info, spec.results_dir);
  const CompilerConfig config = ReferenceConfig(info);
  std::unique_ptr<Compiler> compiler = LoadCompiler(info.name);
  std::unique_ptr<Executable> executable = compiler->Compile(
      onnx.Request(graph, config, spec.results_dir + "/.cache", /*quick=*/true));
  executable->SetInputs(RunInputs(graph, run));
  executable->Run();
  std::vector<HostTensor> outputs = executable->GetOutputs();
  executable->SetInputs(RedrawnInputs(graph, run));
  executable->Run();
  for (HostTensor& t : executable->GetOutputs()) outputs.push_back(std::move(t));
  WriteFileAtomic(out, FormatTensorFile(outputs));
  return kExitOk;
}

// A worker that is stopped (the scheduler's SIGTERM on an interrupt; Ctrl-C, a hang-up or a
// kill of a worker started by hand) first ends what it started, which may have left the
// worker's process group and session, then removes the folders it was writing (an export, a
// compiler's cache entry, a large model), which nothing writes to any more, and dies of the
// signal as it would have.
void EndChildrenAndDie(int signal) {
  KillChildren(nullptr, 0);
  RemoveFoldersOnSignal();
  ::signal(signal, SIG_DFL);
  ::raise(signal);  // delivered once this handler returns
}

// What a worker started dies with it, however it ends: it is the subreaper of its descendants
// (so those whose parent died come back to it), ends them when it returns or throws, and, on the
// signals that stop it, in a handler. A SIGKILL (the scheduler's timeout) leaves them to the
// scheduler, which is their subreaper next (CleanUpAfterWorkers).
class ChildrenDieWithWorker {
 public:
  ChildrenDieWithWorker() {
    BecomeSubreaper();
    struct sigaction action {};
    action.sa_handler = EndChildrenAndDie;
    sigemptyset(&action.sa_mask);
    for (const int signal : {SIGTERM, SIGINT, SIGHUP, SIGQUIT}) {
      ::sigaction(signal, &action, nullptr);
    }
  }
  ~ChildrenDieWithWorker() { KillChildren(nullptr, 0); }
  ChildrenDieWithWorker(const ChildrenDieWithWorker&) = delete;
  ChildrenDieWithWorker& operator=(const ChildrenDieWithWorker&) = delete;
};

}  // namespace

ResultRow BaseRow(const ResolvedRun& spec) {
  const RunSpec& run = spec.run;
  const CompilerConfig& config = spec.config;
  ResultRow row;
  row.run_id = run.run_id;
  row.experiment = run.experiment;
  row.model = run.model.name;
  row.family = run.model.network.empty() ? run.model.family : run.model.network;
  row.size = run.model.size;
  if (run.model.width > 0) row.width = run.model.width;
  if (run.model.depth > 0) row.depth = run.model.depth;
  row.batch_size = run.batch_size;
  row.compiler = config.compiler;
  row.device = spec.device;
  row.precision = config.precision;
  row.threads = config.threads;
  row.affinity = config.affinity;
  row.opt_level = config.opt_level;
  row.timing_boundary = run.timing_boundary;
  row.scenario = run.scenario;
  // Offline, server: the count asked for until the compiled model says how many it serves
  // (auto).
  if (run.scenario == kScenarioSingleStream) {
    row.streams = 1;
  } else if (run.streams > 0) {
    row.streams = run.streams;
  }
  row.compute_device = config.device;
  row.quick = run.quick;
  row.config_hash = spec.config_hash;  // the scheduler's, which resume compares against
  row.settings = Join(spec.settings, ";");
  row.warmup = run.warmup;
  row.repeats = run.repeats;
  row.timestamp = UtcTimestamp();
  row.host = Hostname();
  row.machine_id = MachineId();
  row.ngraphbench_version = NGB_VERSION;
  return row;
}

int CmdWorker(const WorkerArgs& args) {
  const ChildrenDieWithWorker children_die_with_worker;
  if (args.spec_path.empty() &&
      (args.run.grid.experiment.empty() || args.run.compiler.empty() || args.run_id.empty())) {
    throw InputError("worker needs --spec FILE (as `ngraphbench run` starts it), or "
                     "<experiment> <compiler> <run_id> (as its reproduce: lines do)");
  }
  const ResolvedRun spec = args.spec_path.empty() ? ResolveRunFromYaml(args.run, args.run_id)
                                                  : ReadResolvedRun(args.spec_path);
  try {
    if (!args.reference_out.empty()) {
      return RunReference(spec, args.reference_compiler, args.reference_out,
                          args.reference_probe);
    }
    return RunWorker(spec, args.spec_path, args.process);
  } catch (const StorageError& e) {
    // No row: the scheduler sees the exit code, writes none either, stops the sweep and says
    // what to free. The message may not reach the log on a full disk; the exit code does.
    std::cerr << "error: " << e.what() << "\n";
    return kExitStorageFailed;
  }
}

}  // namespace ngraphbench
