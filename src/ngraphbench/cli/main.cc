// ngraphbench: benchmarks neural graph compilers under one interface. This file only parses the
// command line; the runner's subcommands live in runner/run.h, the others in commands.h.
#include <CLI/CLI.hpp>

#include <iostream>

#include "ngraphbench/analysis/analyze.h"
#include "ngraphbench/analysis/compare.h"
#include "ngraphbench/analysis/report.h"
#include "ngraphbench/cli/commands.h"
#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/terminal.h"
#include "ngraphbench/core/version.h"
#include "ngraphbench/graph/ops.h"
#include "ngraphbench/results/row.h"
#include "ngraphbench/runner/budget.h"
#include "ngraphbench/runner/run.h"

namespace {

void AddGridOptions(CLI::App* cmd, ngraphbench::GridArgs& grid) {
  cmd->add_option("experiment", grid.experiment,
                  "experiment in configs/experiments.yaml, a path to an .onnx model, or a PyTorch "
                  "model: timm:<name> or <file>.py:<function> (with --input-shape)")
      ->required();
  cmd->add_option("--input-shape", grid.input_shape,
                  "a PyTorch model's input without the batch dimension, e.g. 3,224,224");
  cmd->add_flag("--quick", grid.quick, "smoke run: the experiment's quick_batch_sizes (1 and 8) and quick_max_time_s (5 s)");
  cmd->add_option("--configs", grid.configs_dir, "directory with experiments.yaml and "
                  "<compiler>.yaml")->capture_default_str();
  cmd->add_option("--warmup", grid.warmup, "override the warmup runs")->check(CLI::NonNegativeNumber);
  cmd->add_option("--repeats", grid.repeats, "override the timed runs")->check(CLI::PositiveNumber);
  cmd->add_option("--stop", grid.stop,
                  "when a run has enough processes: fixed (the experiment's processes), ci "
                  "(processes are added until the median's 95% interval is within "
                  "ci_rel_target, up to max_processes) or auto (ci for single_stream unless "
                  "--processes is given; fixed otherwise); overrides the experiment's `stop`");
  cmd->add_option("--scenario", grid.scenario,
                  "the load: single_stream (one request at a time), offline (`streams` "
                  "requests in flight, --set streams=N|auto; samples/s) or server (Poisson "
                  "queries at --set target_qps=Q into those streams, a percentile held to "
                  "--set latency_bound_ms=MS; --set find_peak=true searches the highest Q); "
                  "overrides the experiment's `scenario`");
  cmd->add_option("--processes", grid.processes,
                  "worker processes that share each run's timed runs, exactly that many "
                  "unless --stop ci (overrides the experiment's `processes`)");
  cmd->add_flag("--profile", grid.profile,
                "after each run's timed runs, profile it with the compiler's own profiler: "
                "<run_id>.profile.csv and the row's profile_* columns (the experiment's "
                "`profile: on`)");
  cmd->add_option("--set", grid.settings,
                  "KEY=VALUE over the YAML, repeatable: an experiment setting (warmup=5, "
                  "max_time_s=10, batch_sizes=[1,8], validity.max_ci_rel=0.1) or a compiler's "
                  "(threads=1, precision=bf16, options.<key>=...; openvino.precision=bf16 for one "
                  "compiler)")
      ->allow_extra_args(false);
}

void AddRunOptions(CLI::App* cmd, ngraphbench::RunArgs& run) {
  AddGridOptions(cmd, run.grid);
  cmd->add_option("compiler", run.compiler,
                  "compiler name (see `ngraphbench list`), or several as a,b: their runs "
                  "alternate pass by pass")
      ->required();
  cmd->add_option("--device", run.device, "device label that organizes results")
      ->capture_default_str();
  cmd->add_option("--results", run.results_dir, "results root")->capture_default_str();
  cmd->add_option("--sample-ms", run.sample_ms, "system sampler period in ms (0 = off)")
      ->capture_default_str();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ngraphbench;
  // Everything printed goes through one filter: names and messages from the inputs may hold
  // terminal control sequences (core/terminal.h).
  const TerminalFilter safe_out(std::cout), safe_err(std::cerr);
  CLI::App app{"ngraphbench: benchmark neural graph compilers under one uniform interface"};
  app.set_version_flag("--version", BuildVersion());
  app.require_subcommand(1);

  RunArgs run;
  CLI::App* run_cmd = app.add_subcommand("run", "run an experiment with one compiler or several");
  AddRunOptions(run_cmd, run);
  std::optional<double> timeout;
  run_cmd->add_option("--timeout", timeout, "per-run timeout in seconds (overrides the YAML)");
  run_cmd->add_flag("--retry-failed", run.retry_failed, "rerun runs whose row is not ok");
  run_cmd->add_option("--shard", run.shard,
                      "i/N: only part i of N of the grid, balanced by estimated time (the union "
                      "of parts 1..N is the grid)");
  run_cmd->add_option("--runs", run.runs,
                      "ID[,ID...] or @FILE (one id a line): only these runs of the grid "
                      "(`ngraphbench expand` lists them)");
  run_cmd->add_option("--budget", run.budget,
                      "a duration (12h, 90m, 3600s, 1h30m): only the runs left to measure whose "
                      "estimates fit it, the compilers taking turns and each curve's batch sizes "
                      "1 and the largest first; a larger budget later measures the next ones");
  run_cmd->add_flag("--replace-changed", run.replace_changed,
                    "move rows that cannot be resumed (measured with other settings, or "
                    "unreadable) to <dir>/.replaced/<time>/ and measure those runs again");
  run_cmd->add_option("--jobs", run.jobs,
                      "workers at once, each pinned to its own `threads` CPUs of those this "
                      "process may use (threads 0: an equal share)")
      ->capture_default_str();
  run_cmd->add_flag("--oversubscribe", run.oversubscribe,
                    "with --jobs: allow jobs x threads above the CPUs this process may use (the "
                    "workers' CPUs then overlap)");
  run_cmd->add_flag("--check", run.check_only,
                    "check the command line, the configs and the results tree as `run` does, "
                    "then exit (0, or 2 naming what is wrong): nothing is measured and no row "
                    "or machine.json written (sweep.sh --dry-run checks its run options so)");

  WorkerArgs worker;
  CLI::App* worker_cmd = app.add_subcommand(
      "worker", "run one run in this process (internal): --spec FILE, or as a reproduce: line");
  worker_cmd->group("");
  // By hand, the run is named as `run` names it; the scheduler hands its workers a spec instead.
  AddRunOptions(worker_cmd, worker.run);
  worker_cmd->add_option("run_id", worker.run_id, "run id");
  worker_cmd->add_option("--jobs", worker.run.jobs,
                         "as `run --jobs`: threads 0 then means an equal share of the CPUs");
  std::vector<CLI::Option*> by_hand = worker_cmd->get_options();
  for (const char* positional : {"experiment", "compiler"}) {
    worker_cmd->get_option(positional)->required(false);
  }
  CLI::Option* spec_option = worker_cmd->add_option(
      "--spec", worker.spec_path, "the run's resolved specification, written by `run`");
  for (CLI::Option* option : by_hand) {
    if (option != worker_cmd->get_help_ptr()) spec_option->excludes(option);
  }
  worker_cmd->add_option("--process", worker.process,
                         "this worker's index among the run's processes (its part)");
  worker_cmd->add_option("--reference-compiler", worker.reference_compiler,
                         "compute the output check's reference with this compiler");
  worker_cmd->add_option("--reference-out", worker.reference_out,
                         "write the reference outputs here (with --reference-compiler)");
  worker_cmd->add_flag("--reference-probe", worker.reference_probe,
                       "the reference of the intermediate tensors the output check may compare "
                       "instead of the outputs (with --reference-compiler)");

  std::string probe_name;
  CLI::App* probe_cmd = app.add_subcommand("probe", "print a compiler's SDK version (internal)");
  probe_cmd->group("");
  probe_cmd->add_option("compiler", probe_name)->required();
  std::string probe_configs;
  probe_cmd->add_option("--configs", probe_configs,
                        "also say whether this machine can run <configs>/<compiler>.yaml");
  std::vector<std::string> probe_settings;
  probe_cmd->add_option("--set", probe_settings, "with --configs: KEY=VALUE over the YAML")
      ->allow_extra_args(false);

  RunArgs expand_run;
  GridArgs& expand = expand_run.grid;
  CLI::App* expand_cmd =
      app.add_subcommand("expand", "dry run: print the run ids of an experiment, run nothing");
  AddGridOptions(expand_cmd, expand);
  bool expand_estimate = false;
  expand_cmd->add_flag("--estimate", expand_estimate,
                       "with each run's expected wall time and the total, from rows measured on "
                       "this device where they exist (needs --compiler)");
  expand_cmd->add_option("--compiler", expand_run.compiler,
                         "the compiler: its config's precision suffixes the ids (needed by "
                         "--estimate and --shard)");
  expand_cmd->add_option("--device", expand_run.device, "with --estimate: the device label")
      ->capture_default_str();
  expand_cmd->add_option("--results", expand_run.results_dir, "with --estimate: results root")
      ->capture_default_str();
  expand_cmd->add_option("--shard", expand_run.shard,
                         "i/N: only the runs of part i of N, as `run --shard` (needs --compiler)");

  // What sweep.sh --budget measures, and in which waves (runner/budget.h).
  RunArgs plan_budget;
  std::vector<std::string> plan_budget_experiments, plan_budget_compilers;
  int plan_budget_waves = 4;
  CLI::App* plan_budget_cmd = app.add_subcommand(
      "plan-budget", "dry run: the runs of a sweep (experiments x compilers) without a row that "
                     "fit a time budget, printed as waves of `run --runs` (for sweep.sh)");
  AddGridOptions(plan_budget_cmd, plan_budget.grid);
  plan_budget_cmd->remove_option(plan_budget_cmd->get_option("experiment"));
  plan_budget_cmd->add_option("experiments", plan_budget_experiments, "the sweep's experiments")
      ->required();
  plan_budget_cmd->add_option("--compiler", plan_budget_compilers, "the sweep's compilers: a,b,c")
      ->required()
      ->delimiter(',');
  plan_budget_cmd->add_option("--budget", plan_budget.budget, "a duration: 12h, 90m, 1h30m")
      ->required();
  plan_budget_cmd->add_option("--device", plan_budget.device, "device label of the results")
      ->capture_default_str();
  plan_budget_cmd->add_option("--results", plan_budget.results_dir, "results root")
      ->capture_default_str();
  plan_budget_cmd->add_option("--shard", plan_budget.shard, "i/N: only part i of N, as `run`");
  plan_budget_cmd->add_option("--jobs", plan_budget.jobs,
                              "runs at once: the budget holds this many times its time")
      ->capture_default_str();
  plan_budget_cmd->add_flag("--retry-failed", plan_budget.retry_failed,
                            "count runs whose row is not ok as left to measure");
  plan_budget_cmd->add_option("--waves", plan_budget_waves,
                              "slices of every group's runs that fit, measured one after another")
      ->capture_default_str();

  bool list_experiments = false, list_models = false, list_compilers = false;
  std::string list_configs = "configs";
  CLI::App* list_cmd = app.add_subcommand("list", "experiments, models and built compilers");
  list_cmd->add_flag("--experiments", list_experiments, "only the experiments");
  list_cmd->add_flag("--models", list_models, "only the models, with parameters and MACs");
  list_cmd->add_flag("--compilers", list_compilers, "only the compilers, with SDK versions");
  list_cmd->add_option("--configs", list_configs, "configs directory")->capture_default_str();
  bool list_names = false;
  list_cmd->add_flag("--names", list_names, "with --experiments: names only, one per line");
  bool list_ops = false, list_markdown = false;
  list_cmd->add_flag("--ops", list_ops,
                     "only the operator table: what the importer accepts, which compiler runs it");
  list_cmd->add_flag("--markdown", list_markdown, "with --ops: as a markdown table");
  bool list_columns = false;
  list_cmd->add_flag("--columns", list_columns,
                     "only the result row's columns with their meanings (a markdown table)");

  GridArgs export_grid;
  std::string export_run, export_out;
  CLI::App* export_cmd =
      app.add_subcommand("export", "write the exact model of a run as an ONNX file");
  AddGridOptions(export_cmd, export_grid);
  export_cmd->add_option("run_id", export_run, "run id (see `ngraphbench expand`)")->required();
  export_cmd->add_option("-o,--output", export_out, "output .onnx file")->required();
  std::string export_results = "results";
  export_cmd->add_option("--results", export_results,
                         "results root whose .cache/torch/ holds PyTorch models' exports")
      ->capture_default_str();

  std::string profile_experiment, profile_run, profile_compiler, profile_device = "local",
                                                                profile_results = "results";
  size_t profile_top = 20;
  CLI::App* profile_cmd = app.add_subcommand(
      "profile", "print the top kernels of one run's profile (a run measured with --profile)");
  profile_cmd->add_option("experiment", profile_experiment, "the run's experiment")->required();
  profile_cmd->add_option("run_id", profile_run, "run id (see `ngraphbench expand`)")->required();
  profile_cmd->add_option("compiler", profile_compiler, "the compiler")->required();
  profile_cmd->add_option("--device", profile_device, "device label of the results")
      ->capture_default_str();
  profile_cmd->add_option("--results", profile_results, "results root")->capture_default_str();
  profile_cmd->add_option("--top", profile_top, "kernels to print")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();

  std::vector<std::string> analyze_inputs;
  std::string analyze_out = "reports/analysis";
  CLI::App* analyze_cmd = app.add_subcommand(
      "analyze", "derive batch-scaling metrics, speedups and rankings from result rows (and, "
                 "for offline and server runs, batching against concurrency and latency against "
                 "throughput)");
  analyze_cmd->add_option("inputs", analyze_inputs,
                          "results directories (results/<device>/<compiler>/...) or .zip archives")
      ->required();
  analyze_cmd->add_option("-o,--output", analyze_out, "output directory")->capture_default_str();
  bool analyze_include_invalid = false;
  analyze_cmd->add_flag("--include-invalid", analyze_include_invalid,
                        "keep ok runs marked invalid (valid = false) in the derived numbers; "
                        "they are left out by default and listed in invalid.csv either way");

  std::vector<std::string> report_inputs;
  std::string report_out;
  CLI::App* report_cmd = app.add_subcommand(
      "report", "analyze, then write DIR/report.html (interactive, offline) and report.md with "
                "its PNG figures");
  report_cmd->add_option("inputs", report_inputs,
                         "results directories (results/<device>/<compiler>/...) or .zip archives")
      ->required();
  report_cmd->add_option("-o,--output", report_out,
                         "output directory: the analysis CSVs, report.html, report.md, figures/")
      ->required();
  bool report_include_invalid = false, report_html_only = false;
  report_cmd->add_flag("--include-invalid", report_include_invalid,
                       "as analyze --include-invalid: runs marked invalid enter RTR, ASE, "
                       "speedups and rankings (the page's filters can still hide them)");
  report_cmd->add_flag("--html-only", report_html_only,
                       "only report.html, without report.md and its figures");

  std::string compare_base, compare_new;
  CompareOptions compare;
  bool compare_include_invalid = false;
  CLI::App* compare_cmd = app.add_subcommand(
      "compare",
      "compare two results trees run by run: ratio of medians, its interval and Welch's test "
      "on the process medians");
  compare_cmd->add_option("base", compare_base, "the baseline: a results directory or .zip")
      ->required();
  compare_cmd->add_option("new", compare_new, "the new results: a results directory or .zip")
      ->required();
  compare_cmd->add_option("--alpha", compare.alpha, "significance level of the test")
      ->capture_default_str();
  compare_cmd
      ->add_option("--threshold", compare.threshold,
                   "smallest |ratio - 1| that counts as a change (0.05 = 5%)")
      ->capture_default_str();
  compare_cmd->add_option("--csv", compare.csv_path, "also write the per-pair table as CSV");
  compare_cmd->add_flag("--include-invalid", compare_include_invalid,
                        "count pairs with a side marked invalid in the summary and "
                        "--fail-on-regression");
  compare_cmd->add_flag("--fail-on-regression", compare.fail_on_regression,
                        "exit 1 when a pair is significantly slower beyond the threshold");

  // Every argument is text that may be written into the results tree's JSON and CSV files (a
  // path, a label, a model's name): one that is not UTF-8 is refused before anything is read or
  // written.
  for (int i = 1; i < argc; ++i) {
    if (!IsValidUtf8(argv[i])) {
      std::cerr << "error: argument " << i << " ('" << EscapeBytes(argv[i])
                << "') is not valid UTF-8; ngraphbench writes the paths and names it is given "
                   "into UTF-8 files (JSON, CSV): rename it, or give it through a symbolic link "
                   "whose name is UTF-8\n";
      return kExitBadInput;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }

  try {
    if (*run_cmd) {
      run.grid.timeout_s = timeout;
      return CmdRun(run);
    }
    if (*worker_cmd) return CmdWorker(worker);
    if (*probe_cmd) return CmdProbe(probe_name, probe_configs, probe_settings);
    if (*expand_cmd) {
      if (!expand_estimate && expand_run.shard.empty() && expand_run.compiler.empty()) {
        return CmdExpand(expand);
      }
      return CmdExpandPlan(expand_run, expand_estimate);
    }
    if (*plan_budget_cmd) {
      return CmdPlanBudget(plan_budget, plan_budget_experiments, plan_budget_compilers,
                           plan_budget_waves, std::cout, std::cerr);
    }
    if (*list_cmd && list_names) return CmdListExperimentNames(list_configs);
    if (*list_cmd && list_columns) {
      std::cout << ColumnsMarkdown();  // generated from results/csv.cc
      return kExitOk;
    }
    if (*list_cmd && list_ops) {
      // The rows from graph/ops.cc, the columns from the compilers' descriptions.
      std::cout << FormatOpTable(ListedOpColumns(), list_markdown);
      return kExitOk;
    }
    if (*list_cmd) return CmdList(list_experiments, list_models, list_compilers, list_configs);
    if (*export_cmd) return CmdExport(export_grid, export_run, export_out, export_results);
    if (*profile_cmd) {
      return CmdProfile(profile_experiment, profile_run, profile_compiler, profile_device,
                        profile_results, profile_top);
    }
    if (*analyze_cmd) {
      return RunAnalyze(analyze_inputs, analyze_out,
                        analyze_include_invalid ? InvalidRuns::kInclude : InvalidRuns::kExclude);
    }
    if (*report_cmd) {
      return RunReport(report_inputs, report_out,
                       report_include_invalid ? InvalidRuns::kInclude : InvalidRuns::kExclude,
                       report_html_only);
    }
    if (*compare_cmd) {
      if (compare_include_invalid) compare.invalid_runs = InvalidRuns::kInclude;
      return RunCompare(compare_base, compare_new, compare, std::cout);
    }
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const EnvironmentError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitEnvironment;
  } catch (const std::exception& e) {
    std::cerr << "fatal: " << e.what() << "\n";
    return kExitRunsFailed;
  }
  return kExitOk;
}
