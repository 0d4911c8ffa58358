#include "ngraphbench/analysis/profiles.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "ngraphbench/analysis/csv_line.h"

namespace ngraphbench {
namespace {

// Profiles are compared between compilers at one precision.
using RunKey = std::tuple<std::string, std::string, std::string, int64_t, std::string>;

RunKey KeyOf(const ResultRow& r) {
  return {r.device, r.experiment, r.model, r.batch_size, r.precision};
}

Line& AddRun(Line& line, const ResultRow& r) {
  return line.Add(r.device).Add(r.compiler).Add(r.experiment).Add(r.model).Add(r.batch_size);
}

// "12.3 ms" / "0.0421 ms": enough digits for a kernel of microseconds.
std::string Ms(double ms) { return fmt::format("{:.3g}", ms); }

std::string Shorten(const std::string& text, size_t width) {
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

}  // namespace

std::vector<ProfiledRun> LoadProfiles(const std::vector<LoadedRun>& runs) {
  std::vector<ProfiledRun> profiled;
  for (const LoadedRun& run : runs) {
    if (std::optional<ProfileTable> table = ReadRunProfile(run)) {
      profiled.push_back({&run.row, std::move(*table)});
    }
  }
  return profiled;
}

std::string FormatProfileRunsCsv(const std::vector<ProfiledRun>& runs) {
  std::string out = Header({"device", "compiler", "experiment", "model", "batch_size", "profiler",
                            "kernels_per_inference", "ir_nodes", "fusion_ratio", "profile_ms",
                            "latency_p50_ms", "profile_over_p50", "top_op_class",
                            "top_op_share"});
  for (const ProfiledRun& p : runs) {
    const ResultRow& r = *p.row;
    const double kernels = KernelsPerInference(p.table);
    Line line;
    AddRun(line, r).Add(r.profiler).Add(kernels).Add(r.profile_ir_nodes);
    if (r.profile_ir_nodes && kernels > 0) {
      line.Add(static_cast<double>(*r.profile_ir_nodes) / kernels);
    } else {
      line.Add(std::string());
    }
    line.Add(ProfiledMs(p.table)).Add(r.latency_p50_ms).Add(r.profile_over_p50).Add(r.profile_top_op)
        .Add(r.profile_top_share);
    out += line.End();
  }
  return out;
}

std::string FormatProfileOpsCsv(const std::vector<ProfiledRun>& runs) {
  std::string out = Header({"device", "compiler", "experiment", "model", "batch_size", "op_class",
                            "ms_per_inference", "share"});
  for (const ProfiledRun& p : runs) {
    const double total = ProfiledMs(p.table);
    for (const auto& [cls, ms] : TimeByOpClass(p.table)) {
      Line line;
      AddRun(line, *p.row).Add(cls).Add(ms).Add(total > 0 ? ms / total : 0.0);
      out += line.End();
    }
  }
  return out;
}

std::string FormatProfileSpeedupCsv(const std::vector<ProfiledRun>& runs) {
  std::string out = Header({"device", "experiment", "model", "batch_size", "baseline",
                            "compiler", "op_class", "baseline_ms", "compiler_ms", "saved_ms",
                            "fraction_of_saved", "total_saved_ms"});
  std::map<RunKey, std::vector<const ProfiledRun*>> by_run;
  for (const ProfiledRun& p : runs) by_run[KeyOf(*p.row)].push_back(&p);
  for (auto& [key, group] : by_run) {
    std::sort(group.begin(), group.end(), [](const ProfiledRun* a, const ProfiledRun* b) {
      return a->row->compiler < b->row->compiler;
    });
    for (size_t i = 0; i < group.size(); ++i) {
      for (size_t j = i + 1; j < group.size(); ++j) {
        const ProfiledRun& base = *group[i];
        const ProfiledRun& other = *group[j];
        const std::map<std::string, double> a = TimeByOpClass(base.table);
        const std::map<std::string, double> b = TimeByOpClass(other.table);
        const double saved = ProfiledMs(base.table) - ProfiledMs(other.table);
        for (const std::string& cls : OpClasses()) {
          const auto ia = a.find(cls);
          const auto ib = b.find(cls);
          if (ia == a.end() && ib == b.end()) continue;
          const double ms_a = ia == a.end() ? 0 : ia->second;
          const double ms_b = ib == b.end() ? 0 : ib->second;
          Line line;
          line.Add(base.row->device).Add(base.row->experiment).Add(base.row->model)
              .Add(base.row->batch_size).Add(base.row->compiler).Add(other.row->compiler)
              .Add(cls).Add(ms_a).Add(ms_b).Add(ms_a - ms_b);
          if (saved != 0) {
            line.Add((ms_a - ms_b) / saved);
          } else {
            line.Add(std::string());
          }
          line.Add(saved);
          out += line.End();
        }
      }
    }
  }
  return out;
}

std::string FormatTopKernels(const ResultRow& row, const ProfileTable& table, size_t top) {
  const double total = ProfiledMs(table);
  const double kernels = KernelsPerInference(table);
  std::string out = fmt::format("{} {} on {}: {} (batch {})\n", row.experiment, row.run_id,
                                row.device, row.compiler, row.batch_size);
  out += fmt::format("profiler: {}\n", row.profiler.empty() ? "(unnamed)" : row.profiler);
  out += fmt::format("kernels per inference {:.4g}", kernels);
  if (row.profile_ir_nodes && kernels > 0) {
    out += fmt::format(", graph nodes {}, fusion ratio {:.3g}", *row.profile_ir_nodes,
                       static_cast<double>(*row.profile_ir_nodes) / kernels);
  }
  out += fmt::format("; profiled {} ms per inference", Ms(total));
  if (row.latency_p50_ms) {
    out += fmt::format(", timed p50 {} ms (profiled / p50 = {:.3g})", Ms(*row.latency_p50_ms),
                       total / *row.latency_p50_ms);
  }
  out += "\n\n";
  out += fmt::format("{:>4} {:>10} {:>6} {:>6}  {:<13} {:<30} {}\n", "#", "ms/inf", "share",
                     "calls", "class", "op types", "kernel (nodes)");
  for (size_t i = 0; i < table.lines.size() && i < top; ++i) {
    const ProfileLine& l = table.lines[i];
    std::string nodes = "nodes unknown";
    if (l.nodes_known) {
      nodes = l.nodes.front() + (l.nodes.size() > 1
                                     ? fmt::format(" +{} more", l.nodes.size() - 1)
                                     : std::string());
    }
    out += fmt::format("{:>4} {:>10} {:>5.1f}% {:>6.3g}  {:<13} {:<30} {} ({})\n", i + 1,
                       Ms(l.ms_per_inference), 100 * l.share, l.calls_per_inference, l.op_class,
                       Shorten(l.op_types, 30), Shorten(l.kernel, 60), nodes);
  }
  if (table.lines.size() > top) {
    out += fmt::format("     ... {} more kernels\n", table.lines.size() - top);
  }
  out += "\nby operator class:\n";
  std::vector<std::pair<std::string, double>> classes;
  for (const auto& entry : TimeByOpClass(table)) classes.push_back(entry);
  std::sort(classes.begin(), classes.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [cls, ms] : classes) {
    out += fmt::format("  {:<13} {:>10} ms  {:>5.1f}%\n", cls, Ms(ms),
                       total > 0 ? 100 * ms / total : 0.0);
  }
  return out;
}

}  // namespace ngraphbench
