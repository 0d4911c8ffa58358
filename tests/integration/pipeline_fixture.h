// The fixture of the end-to-end tests through the real scheduler and worker processes with the
// `null` compiler (pipeline_test.cc: sweeps, resume, verdicts, signals; pipeline_input_test.cc:
// bad input and environments; pipeline_jobs_test.cc: --jobs): a configs folder and a results
// tree per test, the binary run as a user runs it, and readers of what it wrote.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ngraphbench/results/csv.h"
#include "temp_dir.h"

namespace ngraphbench {

namespace fs = std::filesystem;

// `ngraphbench <args>`: its exit code and its stdout and stderr together.
struct Result {
  int code;
  std::string output;
};

inline Result Ngb(const std::string& args) {
  const std::string cmd = std::string(NGB_BINARY_DIR) + "/ngraphbench " + args + " 2>&1";
  Result r{-1, ""};
  FILE* pipe = ::popen(cmd.c_str(), "r");
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), pipe)) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The runs whose row a scheduler's output reports as written: its `  = <run_id> ...` lines.
inline std::multiset<std::string> WrittenRows(const std::string& output) {
  static const std::regex kLine(R"((?:^|\n)  = (\S+))");
  std::multiset<std::string> rows;
  for (std::sregex_iterator it(output.begin(), output.end(), kLine), end; it != end; ++it) {
    rows.insert((*it)[1].str());
  }
  return rows;
}

// Every file under `dir` with its contents: what "nothing changed" compares.
inline std::map<std::string, std::string> Snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path());
    std::stringstream s;
    s << in.rdbuf();
    files[e.path().string()] = s.str();
  }
  return files;
}

class Pipeline : public test_support::TempDirTest {
 protected:
  Pipeline() : TempDirTest("pipeline_") {}

  void SetUp() override {
    TempDirTest::SetUp();
    fs::create_directories(dir_ / "configs");
    WriteExperiments(20, 5);
    WriteNull("");
  }

  void WriteExperiments(double timeout_s, int repeats) {
    std::ofstream(dir_ / "configs" / "experiments.yaml")
        << "defaults:\n  batch_sizes: [1, 2, 4]\n  quick_batch_sizes: [1]\n  warmup: 2\n"
        << "  repeats: " << repeats << "\n  timeout_s: " << timeout_s << "\n"
        << "  min_time_s: " << min_time_s_ << "\n"
        // The pipeline's tests measure a fixed count of processes (5 unless a test says);
        // the adaptive rule (stop auto) has tests of its own.
        << (extra_defaults_.find("  processes:") == std::string::npos ? "  processes: 5\n" : "")
        << (extra_defaults_.find("  stop:") == std::string::npos ? "  stop: fixed\n" : "")
        << extra_defaults_ << "experiments:\n  tiny:\n    family: linear\n    widths: [8, 16]\n"
        << "  many:\n    family: linear\n    widths: [4, 5, 6, 7, 8, 9, 10, 11]\n";
  }
  void WriteNull(const std::string& options) {
    std::ofstream(dir_ / "configs" / "null.yaml") << "options:\n" << options << "  sleep_us: 0\n";
  }
  std::string Common() const {
    return "--configs " + (dir_ / "configs").string() + " --results " +
           (dir_ / "results").string();
  }
  fs::path RunDir() const { return dir_ / "results" / "local" / "null"; }
  ResultRow Row(const std::string& run_id) const { return ReadRow(RowPath(RunDir(), run_id)); }
  size_t CountFiles(const std::string& suffix) const {
    size_t n = 0;
    if (!fs::exists(RunDir())) return 0;
    for (const auto& e : fs::directory_iterator(RunDir())) {
      const std::string name = e.path().filename().string();
      if (name.size() >= suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        ++n;
      }
    }
    return n;
  }

  // The runs with a row in RunDir().
  std::set<std::string> Rows() const {
    std::set<std::string> ids;
    if (!fs::exists(RunDir())) return ids;
    for (const auto& e : fs::directory_iterator(RunDir())) {
      const std::string name = e.path().filename().string();
      if (!e.is_regular_file() || name.size() <= 4 ||
          name.compare(name.size() - 4, 4, ".csv") != 0 ||
          name.find(".latencies.") != std::string::npos ||
          name.find(".profile.") != std::string::npos ||
          name.find(".server_steps.") != std::string::npos) {
        continue;
      }
      ids.insert(name.substr(0, name.size() - 4));
    }
    return ids;
  }
  // A run's process's part, `<dir>/.parts/<run_id>.p<i>.csv`, and its trace.
  fs::path PartPath(const std::string& run_id, int process) const {
    return RunDir() / ".parts" / (run_id + ".p" + std::to_string(process) + ".csv");
  }
  fs::path PartLatenciesPath(const std::string& run_id, int process) const {
    return RunDir() / ".parts" / (run_id + ".p" + std::to_string(process) + ".latencies.csv");
  }
  // The parts in RunDir()/.parts, as "<run_id> p<i>".
  std::set<std::string> Parts() const {
    static const std::regex kPart(R"((.+)\.p(\d+)\.csv)");
    std::set<std::string> parts;
    if (!fs::exists(RunDir() / ".parts")) return parts;
    for (const auto& e : fs::directory_iterator(RunDir() / ".parts")) {
      const std::string name = e.path().filename().string();
      std::smatch m;
      if (std::regex_match(name, m, kPart)) parts.insert(m[1].str() + " p" + m[2].str());
    }
    return parts;
  }
  // The run ids of `experiment`, as `expand` lists them.
  std::vector<std::string> AllRunIds(const std::string& experiment) const {
    const Result r = Ngb("expand " + experiment + " --configs " + (dir_ / "configs").string());
    EXPECT_EQ(r.code, 0) << r.output;
    std::vector<std::string> ids;
    std::stringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) ids.push_back(line);
    }
    return ids;
  }

  std::string extra_defaults_;  // more lines for the `defaults` section
  double min_time_s_ = 0;       // 0: exactly `repeats` timed runs
};

}  // namespace ngraphbench
