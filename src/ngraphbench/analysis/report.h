// `ngraphbench report <results-dir or .zip>... -o DIR`: analyze into DIR, then the report over
// it (python/report_html.py): DIR/report.html, one self-contained interactive page, and unless
// html_only DIR/report.md with its PNG figures (python/report.py).
#pragma once

#include <string>
#include <vector>

#include "ngraphbench/analysis/metrics.h"

namespace ngraphbench {

// Runs RunAnalyze(inputs, out_dir, invalid_runs), then the report script with the project's
// python (NGRAPHBENCH_PYTHON overrides it), its output going to this process's stdout and
// stderr. Returns kExitOk. Throws InputError as RunAnalyze does, and EnvironmentError when the
// python cannot be started or the script fails (e.g. plotly not installed: ./setup.sh).
int RunReport(const std::vector<std::string>& inputs, const std::string& out_dir,
              InvalidRuns invalid_runs, bool html_only);

}  // namespace ngraphbench
