// Reading what `ngraphbench run` printed, for the tests that drive the real scheduler
// (pipeline_test.cc, pipeline_jobs_test.cc, concurrent_test.cc).
#pragma once

#include <regex>
#include <set>
#include <string>

namespace ngraphbench {

// The processes a scheduler's output reports as measured (by that scheduler), as
// "<run_id> p<i>": its `[k/n] <run_id> <compiler> p<i> ok` lines.
inline std::multiset<std::string> MeasuredProcesses(const std::string& output) {
  static const std::regex kLine(R"((?:^|\n)\[\s*\d+/\d+\]\s+(\S+)\s+\S+\s+p(\d+)\s+ok\s)");
  std::multiset<std::string> processes;
  for (std::sregex_iterator it(output.begin(), output.end(), kLine), end; it != end; ++it) {
    processes.insert((*it)[1].str() + " p" + (*it)[2].str());
  }
  return processes;
}

}  // namespace ngraphbench
