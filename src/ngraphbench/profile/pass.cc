#include "ngraphbench/profile/pass.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/profile/profile.h"
#include "ngraphbench/results/layout.h"
#include "ngraphbench/results/row.h"

namespace ngraphbench {
namespace {

void AddNote(ResultRow& row, const std::string& note) {
  row.notes += (row.notes.empty() ? "" : "; ") + note;
}

}  // namespace

int ProfiledRuns(double p50_ms) {
  if (!(p50_ms > 0) || !std::isfinite(p50_ms)) return 1;
  const double fit = std::floor(kProfileBudgetS * 1e3 / p50_ms);
  return static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(kMaxProfiledRuns)));
}

void ProfilePass(Executable& executable, const Graph& graph, const std::string& compiler,
                 const std::string& dir, const std::string& run_id, ResultRow& row) {
  std::optional<KernelProfile> profile;
  ProfileTable table;
  try {
    profile = executable.Profile(ProfiledRuns(row.latency_p50_ms.value_or(0)));
    if (!profile) {
      AddNote(row, "profile: " + compiler + " has no profiler");
      return;
    }
    if (profile->kernels.empty()) {
      AddNote(row, "profile: " + profile->profiler + " reported no kernels");
      return;
    }
    table = Tabulate(*profile, graph);
  } catch (const StorageError&) {
    throw;
  } catch (const std::exception& e) {
    AddNote(row, std::string("profile failed: ") + e.what());
    return;
  }
  WriteFileAtomic(ProfilePath(dir, run_id), FormatProfileCsv(table));
  const ProfileSummary s = Summarize(table, graph);
  row.profiler = table.profiler;
  row.profile_kernels = s.kernels_per_inference;
  row.profile_ir_nodes = s.ir_nodes;
  row.profile_ms = s.profiled_ms;
  if (row.latency_p50_ms && *row.latency_p50_ms > 0) {
    row.profile_over_p50 = s.profiled_ms / *row.latency_p50_ms;
  }
  row.profile_top_op = s.top_op_class;
  row.profile_top_share = s.top_share;
  for (const std::string& note : table.notes) AddNote(row, "profile: " + note);
}

}  // namespace ngraphbench
