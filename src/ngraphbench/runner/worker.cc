// The worker: one process of one run, as its resolved spec (spec.h) says. It runs its phases in
// order (pin, build the model, reference, export for the compiler, load and compile, measure,
// check, verdict, write): loads exactly one compiler module, and writes its part (or, started
// by hand without --process, the run's row) atomically. The phases are here; what they use is
// in the files of its concepts: model.h (the model and its inputs), reference.h (the output
// check's reference and its child process), scenarios.h (the measurement, one scenario each),
// output_check.h (the check) and rows.h (the row's columns).
#include <fmt/core.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <cstdlib>
#include <ctime>
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
#include "ngraphbench/graph/ops.h"
#include "ngraphbench/graph/working_set.h"
#include "ngraphbench/measure/aggregate.h"
#include "ngraphbench/measure/check.h"
#include "ngraphbench/measure/cpuinfo.h"
#include "ngraphbench/measure/heap.h"
#include "ngraphbench/measure/machine.h"
#include "ngraphbench/models/torch_export.h"
#include "ngraphbench/models/zoo.h"
#include "ngraphbench/profile/pass.h"
#include "ngraphbench/results/csv.h"
#include "ngraphbench/results/server_steps.h"
#include "ngraphbench/runner/launch.h"
#include "ngraphbench/runner/model.h"
#include "ngraphbench/runner/output_check.h"
#include "ngraphbench/runner/parts.h"
#include "ngraphbench/runner/plan.h"
#include "ngraphbench/runner/reference.h"
#include "ngraphbench/runner/rows.h"
#include "ngraphbench/runner/run.h"
#include "ngraphbench/runner/scenarios.h"
#include "ngraphbench/runner/spec.h"
#include "ngraphbench/runner/worker.h"

namespace ngraphbench {

namespace worker {
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
  summary.timed_end_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
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
}  // namespace worker

int CmdWorker(const WorkerArgs& args) {
  const worker::ChildrenDieWithWorker children_die_with_worker;
  if (args.spec_path.empty() &&
      (args.run.grid.experiment.empty() || args.run.compiler.empty() || args.run_id.empty())) {
    throw InputError("worker needs --spec FILE (as `ngraphbench run` starts it), or "
                     "<experiment> <compiler> <run_id> (as its reproduce: lines do)");
  }
  const ResolvedRun spec = args.spec_path.empty() ? ResolveRunFromYaml(args.run, args.run_id)
                                                  : ReadResolvedRun(args.spec_path);
  try {
    if (!args.reference_out.empty()) {
      return worker::RunReference(spec, args.reference_compiler, args.reference_out,
                          args.reference_probe);
    }
    return worker::RunWorker(spec, args.spec_path, args.process);
  } catch (const StorageError& e) {
    // No row: the scheduler sees the exit code, writes none either, stops the sweep and says
    // what to free. The message may not reach the log on a full disk; the exit code does.
    std::cerr << "error: " << e.what() << "\n";
    return kExitStorageFailed;
  }
}

}  // namespace ngraphbench
