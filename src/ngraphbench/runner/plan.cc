#include "ngraphbench/runner/plan.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstddef>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <set>
#include <utility>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/core/random.h"
#include "ngraphbench/core/version.h"
#include "ngraphbench/experiments/budget.h"
#include "ngraphbench/experiments/fingerprint.h"
#include "ngraphbench/experiments/resolve.h"
#include "ngraphbench/graph/kernels.h"
#include "ngraphbench/measure/machine.h"
#include "ngraphbench/models/zoo.h"
#include "ngraphbench/profile/profile.h"
#include "ngraphbench/results/csv.h"
#include "ngraphbench/results/layout.h"
#include "ngraphbench/results/server_steps.h"
#include "ngraphbench/runner/budget.h"
#include "ngraphbench/runner/launch.h"

namespace ngraphbench {

namespace fs = std::filesystem;

namespace {

// The device label names a directory under --results: one path component that analyze finds,
// never '..' or a hidden or nested directory.
void CheckDeviceLabel(const std::string& label) {
  const bool ok = !label.empty() && label[0] != '.' &&
                  label.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                          "0123456789._-") == std::string::npos;
  if (!ok) {
    throw InputError("--device '" + label +
                     "' is not a valid device label: use letters, digits, '.', '_' and '-' "
                     "([A-Za-z0-9._-]+), not starting with '.'");
  }
}

// What `threads: 0` (every core) and `auto` (every core but one) resolve from: the CPUs this
// process may use, with --jobs N an equal share of them (the workers share them).
int SliceCores(int jobs, const std::vector<int>& allowed) {
  const int cores = static_cast<int>(allowed.size());
  return jobs > 1 ? std::max(1, cores / jobs) : cores;
}

ResolvedRun Resolved(const RunArgs& args, const RunSpec& run, const CompilerConfig& config) {
  ResolvedRun spec;
  spec.run = run;
  spec.config = config;
  spec.results_dir = args.results_dir;
  spec.device = args.device;
  spec.sample_ms = args.sample_ms;
  spec.config_hash = ConfigHash(run, config, args.sample_ms);
  spec.settings = SettingsFor(args.grid.settings, config.compiler);
  return spec;
}

// A row on disk that the run's settings do not reproduce.
struct Changed {
  const RunSpec* run;
  std::string why;
  bool unreadable = false;  // the row could not be read at all (why says how)
  int process = -1;         // a part of the run (runner/parts.h) rather than its row
};

// What differs between an existing row and the run's settings, in the settings a user edits.
std::string Difference(const ResultRow& row, const RunSpec& run, const CompilerConfig& config) {
  std::vector<std::string> diffs;
  auto differs = [&](const std::string& what, const std::string& was, const std::string& now) {
    if (was != now) diffs.push_back(what + " " + (was.empty() ? "(empty)" : was) + " -> " + now);
  };
  differs("quick", row.quick ? (*row.quick ? "true" : "false") : "", run.quick ? "true" : "false");
  differs("precision", row.precision, config.precision);
  differs("threads", row.threads ? std::to_string(*row.threads) : "",
          std::to_string(config.threads));
  differs("affinity", row.affinity, config.affinity);
  differs("opt_level", row.opt_level, config.opt_level);
  differs("timing_boundary", row.timing_boundary, run.timing_boundary);
  if (diffs.empty()) diffs.push_back("other settings");
  std::string out;
  for (const auto& d : diffs) out += (out.empty() ? "" : ", ") + d;
  return out + " (config_hash " + row.config_hash + ")";
}

// "2 measured with other settings, 1 unreadable", for the rows in `changed`.
std::string Kinds(const std::vector<Changed>& changed) {
  size_t unreadable = 0;
  for (const auto& c : changed) unreadable += c.unreadable;
  std::vector<std::string> kinds;
  if (changed.size() > unreadable) {
    kinds.push_back(std::to_string(changed.size() - unreadable) + " measured with other settings");
  }
  if (unreadable) kinds.push_back(std::to_string(unreadable) + " unreadable");
  return kinds.size() == 2 ? kinds[0] + ", " + kinds[1] : kinds[0];
}

std::string UtcStamp() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  return buf;
}

// Moves the rows of `changed` and the files beside them (trace, profile, server steps) into
// <dir>/.replaced/<UTC time>/; nothing is deleted.
std::string MoveAside(const std::string& dir, const std::vector<Changed>& changed) {
  const fs::path to = fs::path(dir) / ".replaced" / UtcStamp();
  fs::create_directories(to);
  for (const auto& c : changed) {
    const std::vector<std::string> paths =
        c.process < 0 ? std::vector<std::string>{RowPath(dir, c.run->run_id),
                                                 LatenciesPath(dir, c.run->run_id),
                                                 ProfilePath(dir, c.run->run_id),
                                                 ServerStepsPath(dir, c.run->run_id)}
                      : std::vector<std::string>{PartRowPath(dir, c.run->run_id, c.process),
                                                 PartLatenciesPath(dir, c.run->run_id, c.process)};
    for (const std::string& path : paths) {
      if (fs::exists(path)) fs::rename(path, to / fs::path(path).filename());
    }
  }
  return to.string();
}

// Resume: a row whose config_hash is the run's is kept (rerun with --retry-failed when not ok);
// a row or a part with another config_hash, or unreadable, goes to `changed`. Every other run
// gets a RunState; the ok parts of an interrupted sweep stay and count as measured.
void Scan(Plan& plan, std::vector<Changed>& changed, std::deque<RunState>& states) {
  const RunArgs& args = plan.args;
  for (const RunSpec& run : plan.runs) {
    const std::string path = RowPath(plan.dir, run.run_id);
    RunState state;
    state.plan = &plan;
    state.run = &run;
    state.spec = Resolved(args, run, plan.config);
    state.seen = VersionOf(path);
    if (FileExists(path)) {
      ResultRow row;
      bool measure = true;
      try {
        row = ReadRow(path);
        if (row.config_hash != state.spec.config_hash) {
          changed.push_back({&run, Difference(row, run, plan.config)});
        } else if (row.status != kStatusSkipped) {
          // Skipped: the machine lacked something (a GPU, a provider); asked again every sweep.
          const bool ok = row.status == kStatusOk;
          if (ok || !args.retry_failed) {
            (ok ? plan.kept_ok : plan.kept_failed)++;
            measure = false;
            // Parts the row was merged from, left by a scheduler killed right after writing it:
            // a later measurement of the run must not take them up again.
            // Their rows alone are read: a scheduler killed between removing a part's trace
            // and its row (RemovePart) left the row without its trace.
            for (int process : PartIndices(plan.dir, run.run_id)) {
              try {
                const std::string part = PartRowPath(plan.dir, run.run_id, process);
                if (ParseRowCsv(ReadFileCapped(part, kMaxRowBytes, "result file"), part)
                        .config_hash != state.spec.config_hash) {
                  continue;
                }
              } catch (const InputError&) {
                continue;  // not the row's: a later scan reports it when the run is measured
              }
              RemovePart(plan.dir, run.run_id, process);
            }
            // And the claims it held then, its row's and its processes'.
            ReleaseStaleClaims(plan.dir, run, /*keep_row_claim=*/false);
          } else {
            RemoveParts(plan.dir, run.run_id);  // measured anew from its first process
          }
        }
      } catch (const InputError& e) {
        changed.push_back({&run, std::string("unreadable: ") + e.what(), /*unreadable=*/true});
      }
      if (!measure) continue;
    }
    for (int process : PartIndices(plan.dir, run.run_id)) {
      try {
        const Part part = ReadPart(plan.dir, run.run_id, process);
        if (part.row.config_hash != state.spec.config_hash) {
          changed.push_back({&run,
                             fmt::format("process {}: {}", process,
                                         Difference(part.row, run, plan.config)),
                             false, process});
        }
      } catch (const InputError& e) {
        changed.push_back({&run, fmt::format("process {}: unreadable: {}", process, e.what()),
                           /*unreadable=*/true, process});
      }
    }
    states.push_back(std::move(state));
  }
}

// Rows of a precision other than fp32 measured before run ids carried the precision sit under the
// bare id: measured again under the suffixed id, the tree would hold the run twice (analyze
// refuses that). Refused before anything is written, naming them and what to do.
void CheckRowsWithoutPrecisionInTheirId(const Plan& plan) {
  if (plan.config.precision == "fp32") return;
  std::vector<std::string> old;
  for (const RunSpec& run : plan.runs) {
    const std::string path = RowPath(plan.dir, SeedRunId(run.run_id));
    if (path == RowPath(plan.dir, run.run_id) || !FileExists(path)) continue;
    try {
      if (ReadRow(path).precision == plan.config.precision) old.push_back(path);
    } catch (const InputError&) {
      // The fp32 run's row, damaged: its own scan reports it.
    }
  }
  if (old.empty()) return;
  throw InputError(fmt::format(
      "{} row(s) of precision {} sit under run ids without the precision, as versions before "
      "run ids carried it wrote them (run ids now end in _{}), e.g. {}; nothing was run. Move "
      "them (and the files beside them, <id>.latencies.csv ...) out of {}, or run into another "
      "--results, so that the tree does not hold those runs twice",
      old.size(), plan.config.precision, plan.config.precision, old.front(), plan.dir));
}

}  // namespace

std::string RunDirectory(const std::string& results_dir, const std::string& device,
                         const std::string& compiler) {
  CheckDeviceLabel(device);
  return results_dir + "/" + device + "/" + compiler;
}

SweepSettings ResolveSweepSettings(const RunArgs& args, const std::string& compiler,
                                   const std::vector<int>& allowed) {
  SweepSettings out;
  out.info = &FindCompiler(compiler);
  const CompilerInfo& info = *out.info;
  out.config = ResolveCompilerConfig(args.grid.configs_dir, info, SliceCores(args.jobs, allowed),
                                     args.grid.settings);
  RunArgs grid_args = args;
  grid_args.compiler = compiler;
  out.runs = ResolveGrid(grid_args.grid);
  // The compiler's precision (which --set may give per compiler) enters the run ids here, so
  // that --runs, --shard, budgets, resume, claims and reproduce lines all see the same ids.
  SetRunPrecision(out.runs, out.config.precision);
  // A run that tunes (not --quick, a trial budget) may spend up to the tuning's own cap before it
  // compiles: its worker's timeout covers that too, so the experiment's timeout_s keeps meaning
  // the build, compile and timed runs.
  if (!info.tuning_timeout_option.empty() &&
      out.config.options.Int(info.tuning_trials_option) > 0) {
    const double tuning_cap_s =
        static_cast<double>(out.config.options.Int(info.tuning_timeout_option));
    for (RunSpec& run : out.runs) {
      if (!run.quick) run.timeout_s += tuning_cap_s;
    }
  }
  return out;
}

std::vector<std::string> PinnedSettings(const std::vector<std::string>& settings,
                                        const CompilerConfig& config) {
  std::vector<std::string> out;
  for (const std::string& s : settings) {
    const std::string key = s.substr(0, s.find('='));
    if (key != "threads" && key != config.compiler + ".threads") out.push_back(s);
  }
  out.push_back(config.compiler + ".threads=" + std::to_string(config.threads));
  return out;
}

std::vector<RunSpec> ShardRuns(const std::vector<RunSpec>& runs, const RunArgs& args,
                               const CompilerConfig& config, double* shard_s, double* total_s) {
  EstimateInputs in = LoadEstimateInputs(runs, args, config, /*use_measured=*/false);
  // Weighed as at one thread: `threads: auto` resolves from the cores of the machine computing
  // the partition, and shards computed on nodes of different sizes must partition the same grid.
  in.threads = 1;
  return SelectShard(runs, ParseShard(args.shard), in, shard_s, total_s);
}

Plan MakePlan(const RunArgs& given, const std::string& compiler, const std::vector<int>& allowed) {
  Plan plan;
  plan.args = given;
  plan.args.compiler = compiler;
  RunArgs& args = plan.args;
  SweepSettings settings = ResolveSweepSettings(args, compiler, allowed);
  plan.info = settings.info;
  const CompilerInfo& info = *plan.info;
  plan.config = std::move(settings.config);
  const CompilerConfig& config = plan.config;
  if (!IsBuilt(info.name)) {
    throw InputError("compiler '" + info.name + "' is not built (no " + ModulePath(info.name) +
                     "); " + info.enable_hint);
  }
  if (args.jobs > 1) {
    if (config.affinity != "none" && config.affinity != "compact") {
      // A CPU list pins every worker to the same CPUs: the workers would share them after all.
      throw InputError(fmt::format(
          "{} pins workers to CPUs {} (affinity), which cannot be split among --jobs {} "
          "workers; remove `affinity` (or set it to compact or none) to let --jobs give each "
          "worker its own CPUs, or run without --jobs",
          config.source, config.affinity, args.jobs));
    }
    const int64_t needed = int64_t{args.jobs} * config.threads;
    plan.overlapping = needed > static_cast<int64_t>(allowed.size());
    if (plan.overlapping && !args.oversubscribe) {
      throw InputError(fmt::format(
          "--jobs {} with threads {} ({}) needs {} CPUs, but this process may use {} ({}); "
          "lower --jobs or threads, or add --oversubscribe to run them anyway on overlapping "
          "CPUs",
          args.jobs, config.threads, config.source, needed, allowed.size(),
          FormatCpuList(allowed)));
    }
    plan.slices = CpuSlices(allowed, args.jobs, config.threads);
  }
  plan.runs = std::move(settings.runs);
  // Server serves its queries on the offline scenario's execution contexts: a compiler that
  // runs offline runs server.
  const auto contexts_scenario = [](const std::string& scenario) {
    return scenario == kScenarioServer ? std::string(kScenarioOffline) : scenario;
  };
  if (!plan.runs.empty() && plan.runs.front().scenario != kScenarioSingleStream &&
      std::find(info.scenarios.begin(), info.scenarios.end(),
                contexts_scenario(plan.runs.front().scenario)) == info.scenarios.end()) {
    std::vector<std::string> able;
    for (const CompilerInfo& other : AllCompilers()) {
      if (std::find(other.scenarios.begin(), other.scenarios.end(),
                    contexts_scenario(plan.runs.front().scenario)) != other.scenarios.end()) {
        able.push_back(other.name);
      }
    }
    std::string names;
    for (const std::string& name : able) names += (names.empty() ? "" : ", ") + name;
    throw InputError(fmt::format(
        "{} cannot run scenario {} yet: {} keeps several requests of one compiled model in "
        "flight, each on an execution context of its own (Executable::NewContext), and its "
        "module has none (its compiler.yaml does not list offline under scenarios); the "
        "compilers that can: {}. Run {} with scenario single_stream",
        info.name, plan.runs.front().scenario, plan.runs.front().scenario,
        names.empty() ? "none" : names, info.name));
  }
  // --runs names runs of the whole grid, of which a shard keeps those in its part; --budget is
  // checked before anything is written and applied once resume knows what is left to measure.
  const std::set<std::string> named = NamedRuns(plan.runs, args);
  if (!args.budget.empty()) ParseDuration(args.budget);
  if (!args.shard.empty()) {
    const size_t grid_size = plan.runs.size();
    double shard_s = 0, total_s = 0;
    plan.runs = ShardRuns(plan.runs, args, config, &shard_s, &total_s);
    plan.shard_note =
        fmt::format(" (shard {}: {} of the grid's {} runs, about {} of {})", args.shard,
                    plan.runs.size(), grid_size, FormatHours(shard_s), FormatHours(total_s));
  }
  KeepNamedRuns(plan.runs, named);
  plan.dir = RunDirectory(args);
  CheckRowsWithoutPrecisionInTheirId(plan);
  return plan;
}

ResolvedRun ResolveRunFromYaml(const RunArgs& args, const std::string& run_id) {
  const SweepSettings settings = ResolveSweepSettings(args, args.compiler, ProcessCpus());
  for (const RunSpec& run : settings.runs) {
    if (run.run_id == run_id) return Resolved(args, run, settings.config);
  }
  std::string other;  // the id of another precision: ids carry the precision when not fp32
  for (const RunSpec& run : settings.runs) {
    if (SeedRunId(run.run_id) == SeedRunId(run_id)) {
      other = "; at precision " + settings.config.precision + " it is run '" + run.run_id + "'";
    }
  }
  throw InputError("run '" + run_id + "' is not in experiment '" + args.grid.experiment + "'" +
                   (args.grid.quick ? " (--quick)" : "") + other);
}

PartsOnDisk ReadParts(const RunState& st) {
  PartsOnDisk out;
  for (int process : PartIndices(st.plan->dir, st.run->run_id)) {
    Part part;
    try {
      part = ReadPart(st.plan->dir, st.run->run_id, process);
    } catch (const InputError&) {
      continue;  // being replaced by its writer, or damaged: the scan of a later sweep says so
    }
    if (part.row.config_hash != st.spec.config_hash) continue;
    if (part.row.status == kStatusOk) {
      ++out.ok;
    } else {
      out.failed = true;
    }
    out.parts.push_back(std::move(part));
  }
  return out;
}

void Resume(std::deque<Plan>& plans, bool replace_changed, std::deque<RunState>& states) {
  std::vector<Changed> changed;
  std::map<const Plan*, std::vector<Changed>> changed_by_plan;
  size_t grid_runs = 0;
  for (Plan& plan : plans) {
    std::vector<Changed> mine;
    Scan(plan, mine, states);
    grid_runs += plan.runs.size();
    changed.insert(changed.end(), mine.begin(), mine.end());
    changed_by_plan[&plan] = std::move(mine);
  }
  if (!changed.empty() && !replace_changed) {
    std::string list;
    for (size_t i = 0; i < changed.size() && i < 5; ++i) {
      list += "\n  " + changed[i].run->run_id + ": " + changed[i].why;
    }
    if (changed.size() > 5) list += fmt::format("\n  ... and {} more", changed.size() - 5);
    std::string where;
    for (const Plan& plan : plans) {
      if (!changed_by_plan[&plan].empty()) where += (where.empty() ? "" : " and ") + plan.dir;
    }
    std::set<const RunSpec*> runs_changed;
    for (const auto& c : changed) runs_changed.insert(c.run);
    throw InputError(fmt::format(
        "{} of the {} runs already have rows in {} that cannot be resumed ({}):{}\n"
        "Nothing was run. Add --replace-changed to move those rows (and their traces) to "
        "<dir>/.replaced/<time>/ and measure them again with these settings, or write to "
        "another --results or --device to keep both.{}",
        runs_changed.size(), grid_runs, where, Kinds(changed), list,
        list.find(": threads ") == std::string::npos
            ? ""
            : "\n`threads: auto` (or unset) means every core the run may use but one, `threads: "
              "0` every core, and with --jobs N of an equal share of them: rows measured with "
              "another --jobs, or on a machine with another core count, resume with that "
              "--jobs or on such a machine."));
  }
  for (Plan& plan : plans) {
    const std::vector<Changed>& mine = changed_by_plan[&plan];
    if (mine.empty()) continue;
    const std::string to = MoveAside(plan.dir, mine);
    for (RunState& st : states) {
      for (const auto& c : mine) {
        if (c.run == st.run && c.process < 0) st.seen.reset();
      }
    }
    std::cerr << fmt::format("moved {} row(s) that could not be resumed ({}) to {}\n",
                             mine.size(), Kinds(mine), to);
  }
}

size_t QueueWindow(int jobs) { return 8 * static_cast<size_t>(std::max(jobs, 1)); }

void QueueAnotherProcess(std::deque<Task>& queue, const Task& task, size_t window) {
  size_t ahead = std::min(queue.size(), window > 0 ? window - 1 : 0);
  // Not before an earlier process of the model's runs that is still queued: analyze pairs those
  // runs process by process, which needs each one's process i to end before any starts i + 1.
  const std::string& model = task.state->run->model.name;
  for (size_t j = queue.size(); j > ahead; --j) {
    const Task& queued = queue[j - 1];
    if (queued.process < task.process && queued.state->run->model.name == model) {
      ahead = j;
      break;
    }
  }
  queue.insert(queue.begin() + static_cast<std::ptrdiff_t>(ahead), task);
}

std::deque<Task> QueueProcesses(std::deque<RunState>& states, size_t window, Resumed* resumed) {
  std::vector<std::vector<int>> missing(states.size());
  for (size_t i = 0; i < states.size(); ++i) {
    RunState& st = states[i];
    st.plan->todo++;
    const PartsOnDisk on_disk = ReadParts(st);
    std::set<int> have;
    for (const Part& p : on_disk.parts) {
      have.insert(p.process);
      st.next_process = std::max(st.next_process, p.process + 1);
    }
    st.next_process = std::max<int>(st.next_process, static_cast<int>(st.run->processes));
    if (!have.empty()) {
      ++resumed->runs;
      resumed->parts += have.size();
    }
    if (on_disk.failed) continue;  // decided already: merged once the sweep starts
    for (int p = 0; p < st.run->processes; ++p) {
      if (!have.count(p)) missing[i].push_back(p);
    }
  }
  // Within a round, the compilers alternate run by run (the same model's runs side by side).
  std::vector<size_t> order(states.size());
  {
    std::map<const Plan*, size_t> seen_of_plan, plan_index;
    std::vector<std::pair<size_t, size_t>> key(states.size());
    for (size_t i = 0; i < states.size(); ++i) {
      const Plan* plan = states[i].plan;
      if (!plan_index.count(plan)) plan_index[plan] = plan_index.size();
      key[i] = {seen_of_plan[plan]++, plan_index[plan]};
      order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return key[x] < key[y]; });
  }
  // The windows: whole models (each compiler's runs of the model at every batch size and
  // scenario), in the order of their first run, joined until a window has `window` runs; a
  // shorter last window joins the one before, so that no run's processes come back to back.
  std::vector<std::string> models;  // in the order of their first run
  std::map<std::string, std::vector<size_t>> runs_of_model;
  for (const size_t i : order) {
    if (missing[i].empty()) continue;
    std::vector<size_t>& runs = runs_of_model[states[i].run->model.name];
    if (runs.empty()) models.push_back(states[i].run->model.name);
    runs.push_back(i);
  }
  std::vector<std::vector<size_t>> windows(1);
  for (const std::string& model : models) {
    if (windows.back().size() >= window) windows.emplace_back();
    const std::vector<size_t>& runs = runs_of_model[model];
    windows.back().insert(windows.back().end(), runs.begin(), runs.end());
  }
  if (windows.size() > 1 && windows.back().size() < window) {
    std::vector<size_t> last = std::move(windows.back());
    windows.pop_back();
    windows.back().insert(windows.back().end(), last.begin(), last.end());
  }
  std::deque<Task> queue;
  for (const std::vector<size_t>& in_window : windows) {
    for (size_t round = 0;; ++round) {
      bool any = false;
      for (const size_t i : in_window) {
        if (round < missing[i].size()) {
          queue.push_back({&states[i], missing[i][round]});
          states[i].queued++;
          any = true;
        }
      }
      if (!any) break;
    }
  }
  return queue;
}

namespace {

// A model facts cache entry's value, as ModelFacts writes it: the MAC count (a non-negative
// whole number) on the first line, the kernels' keys (16 hex digits each, space-separated) on
// the second, the node count (a whole number) on the third; nullopt for anything else.
std::optional<ModelFacts> ParseFactsEntry(const std::string& text) {
  auto whole = [](const std::string& digits) -> std::optional<double> {
    if (digits.empty() || digits.size() > 30 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    return std::stod(digits);
  };
  if (text.empty() || text.back() != '\n') return std::nullopt;
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at);
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  if (lines.size() != 3) return std::nullopt;
  const std::optional<double> macs = whole(lines[0]), nodes = whole(lines[2]);
  if (!macs || !nodes || *nodes > 1e9) return std::nullopt;
  ModelFacts facts;
  facts.macs = *macs;
  facts.nodes = static_cast<int64_t>(*nodes);
  const std::string& keys = lines[1];
  if (keys.find_first_not_of("0123456789abcdef ") != std::string::npos) return std::nullopt;
  for (size_t at = 0; at < keys.size(); at += 17) {
    if (keys.size() - at < 16 || (at + 16 < keys.size() && keys[at + 16] != ' ')) {
      return std::nullopt;
    }
    facts.kernels.push_back(std::stoull(keys.substr(at, 16), nullptr, 16));
  }
  return facts;
}

}  // namespace

std::map<std::string, ModelFacts> LoadModelFacts(const std::vector<RunSpec>& runs,
                                                 const std::string& results_dir) {
  std::map<std::string, ModelFacts> facts;
  const fs::path cache = fs::path(results_dir) / ".cache" / "macs";
  for (const RunSpec& run : runs) {
    const ModelSpec& m = run.model;
    if (facts.count(m.name)) continue;
    // A model given as PyTorch code is only built once exported, which is a worker's job (in
    // Python, seconds to minutes): unknown here, so its estimate uses the priors.
    if (m.family == "torch") continue;
    // Building a large architecture takes seconds (its weights are generated): the facts are
    // kept per model and build, so every shard of a sweep pays it once per results tree.
    const std::string key = fmt::format(
        "facts=3\n{}\n{}\n{}\n{}\n{}x{}\n{}\n{}\n", BuildVersion(), m.family, m.name, m.variant,
        m.width, m.depth, m.onnx_path, m.onnx_path.empty() ? "" : FileDigest(m.onnx_path));
    const fs::path file = cache / (m.name + "." + Fnv1a64Hex(key) + ".txt");
    // An entry that is not what ModelFacts writes (damaged, a FIFO, a link to a device) is
    // computed again and replaced.
    std::optional<ModelFacts> cached;
    try {
      cached = ParseFactsEntry(ReadFileCapped(file.string(), kMaxCacheBytes, "model facts cache",
                                              Links::kRefuse));
    } catch (const InputError&) {
    }
    if (!cached) {
      const Graph graph = BuildModel(m, 1);
      cached = ModelFacts{static_cast<double>(CountMacs(graph)), DistinctKernels(graph),
                          static_cast<int64_t>(graph.nodes.size())};
      std::string text = fmt::format("{:.0f}\n", cached->macs);
      for (size_t i = 0; i < cached->kernels.size(); ++i) {
        text += fmt::format("{}{:016x}", i ? " " : "", cached->kernels[i]);
      }
      text += fmt::format("\n{}\n", cached->nodes);
      std::error_code error;
      fs::create_directories(cache, error);
      if (!error) {
        try {
          WriteFileAtomic(file.string(), text);
        } catch (const std::exception&) {
          // A read-only results tree: the facts are computed again next time.
        }
      }
    }
    facts[m.name] = std::move(*cached);
  }
  return facts;
}

EstimateInputs LoadEstimateInputs(const std::vector<RunSpec>& runs, const RunArgs& args,
                                  const CompilerConfig& config, bool use_measured) {
  EstimateInputs in;
  in.compiler = args.compiler;
  in.threads = config.threads;
  in.precision = config.precision;
  for (auto& [name, model] : LoadModelFacts(runs, args.results_dir)) {
    in.macs[name] = model.macs;
    in.nodes[name] = model.nodes;
    in.kernels[name] = std::move(model.kernels);
  }
  if (const CompilerInfo& info = FindCompiler(args.compiler); !info.tuning_trials_option.empty()) {
    in.tuning_trials = config.options.Int(info.tuning_trials_option);
    in.tuning_s = static_cast<double>(in.tuning_trials) * info.prior_tuning_s_per_trial;
    in.tuning_s_per_kernel = info.prior_tuning_s_per_task;
    // No tuning outlives its own timeout: past it the untuned build is used.
    if (!info.tuning_timeout_option.empty()) {
      in.tuning_s = std::min(
          in.tuning_s, static_cast<double>(config.options.Int(info.tuning_timeout_option)));
    }
  }
  if (!use_measured) return in;
  // A row that the run's settings would not keep (another config_hash: a --quick row met by a
  // full run, other threads, ...) is not the run's own: the run would measure again (after
  // --replace-changed). It stays a row to scale from, under a key of its own.
  std::map<std::string, std::string> hash_of;
  for (const RunSpec& run : runs) hash_of[run.run_id] = ConfigHash(run, config, args.sample_ms);
  std::error_code error;
  for (fs::directory_iterator it(RunDirectory(args), error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!IsRowFile(name)) continue;
    try {
      ResultRow row = ReadRow(it->path().string());
      const auto planned = hash_of.find(row.run_id);
      std::string key = row.run_id;
      if (planned != hash_of.end() && planned->second != row.config_hash) {
        key += " (config_hash " + row.config_hash + ")";
      }
      in.measured.emplace(std::move(key), std::move(row));
    } catch (const InputError&) {
      // An unreadable row tells nothing about time; resume reports it.
    }
  }
  return in;
}

std::string FormatHours(double seconds) {
  const auto s = static_cast<int64_t>(seconds + 0.5);
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

}  // namespace ngraphbench
