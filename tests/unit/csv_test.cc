#include "ngraphbench/results/csv.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "ngraphbench/core/csv_line.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/core/file.h"
#include "ngraphbench/results/layout.h"
#include "ngraphbench/results/row.h"
#include "ngraphbench/results/server_steps.h"
#include "temp_dir.h"

namespace ngraphbench {
namespace {

using test_support::ScratchDir;

std::vector<std::string> Listing(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

bool IsVersion5(const std::string& column) {
  for (const char* c : {"latency_p50_within_ci_low_ms", "latency_p50_within_ci_high_ms", "iqr_rel",
                        "processes", "process_p50s_ms", "processes_reason"}) {
    if (column == c) return true;
  }
  return false;
}

ResultRow SampleRow() {
  ResultRow r;
  r.run_id = "conv_blocks_w16_d2_b8";
  r.experiment = "conv_blocks";
  r.model = "conv_blocks_w16_d2";
  r.family = "conv_block";
  r.width = 16;
  r.depth = 2;
  r.batch_size = 8;
  r.input_shape = "8x16x56x56";
  r.compiler = "onnxruntime";
  r.device = "local";
  r.precision = "fp32";
  r.threads = 2;
  r.opt_level = "all";
  r.timing_boundary = "compute";
  r.params = 4672;
  r.macs = 14450688;
  r.latency_p50_ms = 1.25;
  r.latency_mean_ms = 1.0 / 3.0;
  r.cv = 0.125;
  r.throughput_median_sps = 6400;
  r.status = "crashed";
  r.error = "worker killed: \"SIGABRT\", at a, b\nsecond line";
  r.compiler_settings = "threads=2;mode=seq";
  r.warmup = 10;
  r.repeats = 100;
  r.quick = false;
  r.config_hash = "0123456789abcdef";
  r.check_reference = "onnxruntime";
  r.check_max_rel_err = 2.5e-7;
  r.check_verdict = "pass";
  r.check_tensor = "features";
  r.check_cosine = 0.99975;
  r.check_snr_db = 34.5;
  r.valid = false;
  r.invalid_reason = "cv 0.3 > max_cv 0.25; timed window 0.1 s < min_time_s 0.5";
  r.phases_s = {{"start", 0.25}, {"build", 1.5}, {"timed", 0}};
  return r;
}

// A run folder's rows and the files beside them, as every reader of the tree tells them apart.
TEST(Layout, RowsAndTheFilesBesideThem) {
  EXPECT_TRUE(IsRowFile("conv2d_w16_b1.csv"));
  EXPECT_FALSE(IsRowFile("conv2d_w16_b1.latencies.csv"));
  EXPECT_FALSE(IsRowFile("conv2d_w16_b1.profile.csv"));
  EXPECT_FALSE(IsRowFile("conv2d_w16_b1.server_steps.csv"));
  EXPECT_FALSE(IsRowFile(".parts.csv"));
  EXPECT_FALSE(IsRowFile("machine.json"));
  EXPECT_FALSE(IsRowFile(""));
  EXPECT_EQ(RowPath("d", "r"), "d/r.csv");
  EXPECT_EQ(LatenciesPath("d", "r"), "d/r.latencies.csv");
  EXPECT_EQ(ProfilePath("d", "r"), "d/r.profile.csv");
  EXPECT_EQ(ServerStepsPath("d", "r"), "d/r.server_steps.csv");
}

TEST(Csv, EscapeAndSplitRoundTrip) {
  const std::vector<std::string> fields = {"plain", "with,comma", "with \"quote\"", ""};
  std::string line;
  for (const auto& f : fields) line += (line.empty() ? "" : ",") + CsvEscape(f);
  EXPECT_EQ(line, "plain,\"with,comma\",\"with \"\"quote\"\"\",");
  EXPECT_EQ(CsvSplitLine(line), fields);
  EXPECT_THROW(CsvSplitLine("\"open"), std::invalid_argument);
}

TEST(Csv, RowRoundTripKeepsEveryColumn) {
  const ResultRow in = SampleRow();
  const std::string text = FormatRowCsv(in);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);  // header + one row
  const ResultRow out = ParseRowCsv(text, "mem");
  EXPECT_EQ(FormatRowCsv(out), text);
  EXPECT_EQ(out.width, 16);
  EXPECT_FALSE(out.gpu_util_pct.has_value());  // not measured stays empty, never 0
  EXPECT_FALSE(out.compile_s.has_value());
  EXPECT_NEAR(*out.latency_mean_ms, 1.0 / 3.0, 1e-9);
  EXPECT_EQ(out.error, "worker killed: \"SIGABRT\", at a, b second line");
  EXPECT_EQ(out.schema_version, kSchemaVersion);
  EXPECT_EQ(RowColumns().front(), "schema_version");
  EXPECT_EQ(RowColumns().size(), 107u);
  EXPECT_EQ(out.phases_s, in.phases_s);
  EXPECT_EQ(out.check_verdict, "pass");
  EXPECT_EQ(out.check_tensor, "features");
  EXPECT_EQ(out.quick, false);
  EXPECT_EQ(out.valid, false);
  EXPECT_EQ(out.invalid_reason, in.invalid_reason);
  EXPECT_EQ(out.config_hash, "0123456789abcdef");
  EXPECT_FALSE(out.check_max_abs_err.has_value());
  EXPECT_DOUBLE_EQ(*out.check_max_rel_err, 2.5e-7);
  EXPECT_DOUBLE_EQ(*out.check_cosine, 0.99975);
  EXPECT_DOUBLE_EQ(*out.check_snr_db, 34.5);
  EXPECT_FALSE(out.check_top1_agreement.has_value());
}

TEST(Csv, OtherSchemaVersionsAndBadBooleansAreRefusedByName) {
  std::string text = FormatRowCsv(SampleRow());
  std::string old = text;
  old.replace(old.find("\n13,"), 4, "\n1,");
  try {
    ParseRowCsv(old, "f.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 1; this ngraphbench reads versions 2 to 13"),
              std::string::npos)
        << e.what();
  }
  std::string newer = text;
  newer.replace(newer.find("\n13,"), 4, "\n14,");
  try {
    ParseRowCsv(newer, "f.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a newer ngraphbench wrote it"), std::string::npos)
        << e.what();
  }
  std::string bad = text;
  bad.replace(bad.find(",false,"), 7, ",maybe,");
  EXPECT_THROW(ParseRowCsv(bad, "f.csv"), InputError);
}

// A version-7 row, from before scenarios, was one stream: it reads as single_stream with 1
// stream and no samples_per_s; an offline row keeps its columns.
TEST(Csv, VersionSevenRowsReadAsOneStream) {
  ResultRow offline = SampleRow();
  offline.scenario = "offline";
  offline.streams = 4;
  offline.threads_per_stream = 2;
  offline.samples_per_s = 1234.5;
  const ResultRow back = ParseRowCsv(FormatRowCsv(offline), "f.csv");
  EXPECT_EQ(back.scenario, "offline");
  EXPECT_EQ(back.streams, 4);
  EXPECT_EQ(back.threads_per_stream, 2);
  EXPECT_DOUBLE_EQ(*back.samples_per_s, 1234.5);

  const std::string text = FormatRowCsv(SampleRow());
  std::vector<std::string> header = CsvSplitLine(text.substr(0, text.find('\n')));
  std::vector<std::string> values =
      CsvSplitLine(text.substr(text.find('\n') + 1, text.size() - text.find('\n') - 2));
  std::string h7, v7;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "scenario" || header[i] == "streams" || header[i] == "threads_per_stream" ||
        header[i] == "samples_per_s") {
      continue;
    }
    const std::string value = header[i] == "schema_version" ? "7" : values[i];
    h7 += (h7.empty() ? "" : ",") + CsvEscape(header[i]);
    v7 += std::string(i == 0 ? "" : ",") + CsvEscape(value);
  }
  const ResultRow old = ParseRowCsv(h7 + "\n" + v7 + "\n", "old.csv");
  EXPECT_EQ(old.scenario, "single_stream");
  EXPECT_EQ(old.streams, 1);
  EXPECT_FALSE(old.threads_per_stream.has_value());
  EXPECT_FALSE(old.samples_per_s.has_value());
}

// A server row keeps its columns; a version-8 row, from before the server scenario, reads them
// empty.
TEST(Csv, ServerColumnsRoundTripAndVersionEightRowsReadThemEmpty) {
  ResultRow server = SampleRow();
  server.scenario = "server";
  server.streams = 2;
  server.target_qps = 27.5;
  server.latency_bound_ms = 50;
  server.latency_percentile = 99;
  server.latency_at_percentile_ms = 41.25;
  server.bound_met = true;
  server.queries_issued = 1100;
  server.queries_completed = 1100;
  server.achieved_qps = 27.25;
  server.issue_delay_p99_ms = 0.5;
  server.peak_qps = 27.5;
  server.peak_steps = 7;
  const ResultRow back = ParseRowCsv(FormatRowCsv(server), "f.csv");
  EXPECT_EQ(back.scenario, "server");
  EXPECT_EQ(back.target_qps, 27.5);
  EXPECT_EQ(back.latency_bound_ms, 50.0);
  EXPECT_EQ(back.latency_percentile, 99.0);
  EXPECT_EQ(back.latency_at_percentile_ms, 41.25);
  EXPECT_EQ(back.bound_met, true);
  EXPECT_EQ(back.queries_issued, 1100);
  EXPECT_EQ(back.queries_completed, 1100);
  EXPECT_EQ(back.achieved_qps, 27.25);
  EXPECT_EQ(back.issue_delay_p99_ms, 0.5);
  EXPECT_EQ(back.peak_qps, 27.5);
  EXPECT_EQ(back.peak_steps, 7);

  const std::string text = FormatRowCsv(SampleRow());
  std::vector<std::string> header = CsvSplitLine(text.substr(0, text.find('\n')));
  std::vector<std::string> values =
      CsvSplitLine(text.substr(text.find('\n') + 1, text.size() - text.find('\n') - 2));
  const std::set<std::string> added = {
      "target_qps",      "latency_bound_ms",  "latency_percentile", "latency_at_percentile_ms",
      "bound_met",       "queries_issued",    "queries_completed",  "achieved_qps",
      "issue_delay_p99_ms", "peak_qps",       "peak_steps"};
  std::string h8, v8;
  for (size_t i = 0; i < header.size(); ++i) {
    if (added.count(header[i])) continue;
    const std::string value = header[i] == "schema_version" ? "8" : values[i];
    h8 += (h8.empty() ? "" : ",") + CsvEscape(header[i]);
    v8 += std::string(i == 0 ? "" : ",") + CsvEscape(value);
  }
  EXPECT_EQ(header.size() - added.size(), static_cast<size_t>(std::count(h8.begin(), h8.end(), ',') + 1));
  const ResultRow old = ParseRowCsv(h8 + "\n" + v8 + "\n", "old.csv");
  EXPECT_EQ(old.schema_version, 8);
  EXPECT_FALSE(old.target_qps.has_value());
  EXPECT_FALSE(old.bound_met.has_value());
  EXPECT_FALSE(old.peak_qps.has_value());
}

// A version-2 row (the released traces' schema) lacks the version-3 columns: they read empty.
TEST(Csv, VersionTwoRowsReadWithTheNewerColumnsEmpty) {
  ResultRow in = SampleRow();
  const std::string text = FormatRowCsv(in);
  std::vector<std::string> header = CsvSplitLine(text.substr(0, text.find('\n')));
  std::vector<std::string> values =
      CsvSplitLine(text.substr(text.find('\n') + 1, text.size() - text.find('\n') - 2));
  std::string h2, v2;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "stop_reason" || header[i] == "machine_id" || header[i] == "energy_j" ||
        header[i] == "latency_p50_ci_low_ms" || header[i] == "latency_p50_ci_high_ms" ||
        header[i] == "cpu_ms_per_inference" || header[i] == "power_w" ||
        header[i] == "affinity" || header[i] == "affinity_cpus" ||
        header[i] == "gpu_power_w" || header[i] == "gpu_energy_j" || IsVersion5(header[i])) {
      continue;
    }
    h2 += (h2.empty() ? "" : ",") + header[i];
    v2 += (v2.empty() ? "" : ",") + CsvEscape(i == 0 ? "2" : values[i]);
  }
  const ResultRow out = ParseRowCsv(h2 + "\n" + v2 + "\n", "v2.csv");
  EXPECT_EQ(out.schema_version, kSchemaVersion);  // read as a row of this version
  EXPECT_EQ(out.run_id, in.run_id);
  EXPECT_FALSE(out.latency_p50_ci_low_ms.has_value());
  EXPECT_EQ(out.machine_id, "");
  // A version-3 row must have them all.
  std::string v3 = h2 + "\n3" + v2.substr(1) + "\n";
  EXPECT_THROW(ParseRowCsv(v3, "v3.csv"), InputError);
}

// A version-3 row lacks gpu_power_w and gpu_energy_j: they read empty.
TEST(Csv, VersionThreeRowsReadWithTheGpuPowerColumnsEmpty) {
  ResultRow in = SampleRow();
  in.gpu_util_pct = 87.5;
  in.gpu_mem_mb = 1234;
  in.gpu_power_w = 250;
  in.gpu_energy_j = 0.125;
  const std::string text = FormatRowCsv(in);
  const ResultRow round = ParseRowCsv(text, "v4.csv");
  EXPECT_DOUBLE_EQ(*round.gpu_power_w, 250.0);
  EXPECT_DOUBLE_EQ(*round.gpu_energy_j, 0.125);
  std::vector<std::string> header = CsvSplitLine(text.substr(0, text.find('\n')));
  std::vector<std::string> values =
      CsvSplitLine(text.substr(text.find('\n') + 1, text.size() - text.find('\n') - 2));
  std::string h3, v3;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "gpu_power_w" || header[i] == "gpu_energy_j" || IsVersion5(header[i])) {
      continue;
    }
    h3 += (h3.empty() ? "" : ",") + header[i];
    v3 += (v3.empty() ? "" : ",") + CsvEscape(i == 0 ? "3" : values[i]);
  }
  const ResultRow out = ParseRowCsv(h3 + "\n" + v3 + "\n", "v3.csv");
  EXPECT_EQ(out.schema_version, kSchemaVersion);
  EXPECT_DOUBLE_EQ(*out.gpu_util_pct, 87.5);
  EXPECT_DOUBLE_EQ(*out.gpu_mem_mb, 1234.0);
  EXPECT_FALSE(out.gpu_power_w.has_value());
  EXPECT_FALSE(out.gpu_energy_j.has_value());
  // A version-4 row must have them.
  EXPECT_THROW(ParseRowCsv(h3 + "\n4" + v3.substr(1) + "\n", "v4.csv"), InputError);
}

// A version-4 row was one process: read with processes 1, its median as that process's, and
// its order-statistic interval as the within-process one (no between-process interval).
TEST(Csv, VersionFourRowsReadAsOneProcess) {
  ResultRow in = SampleRow();
  in.latency_p50_ci_low_ms = 1.2;
  in.latency_p50_ci_high_ms = 1.3;
  const std::string text = FormatRowCsv(in);
  std::vector<std::string> header = CsvSplitLine(text.substr(0, text.find('\n')));
  std::vector<std::string> values =
      CsvSplitLine(text.substr(text.find('\n') + 1, text.size() - text.find('\n') - 2));
  std::string h4, v4;
  for (size_t i = 0; i < header.size(); ++i) {
    if (IsVersion5(header[i])) continue;
    h4 += (h4.empty() ? "" : ",") + header[i];
    v4 += (v4.empty() ? "" : ",") + CsvEscape(i == 0 ? "4" : values[i]);
  }
  const ResultRow out = ParseRowCsv(h4 + "\n" + v4 + "\n", "v4.csv");
  EXPECT_EQ(out.processes, 1);
  EXPECT_EQ(out.process_p50s_ms, std::vector<double>{1.25});
  EXPECT_DOUBLE_EQ(*out.latency_p50_within_ci_low_ms, 1.2);
  EXPECT_DOUBLE_EQ(*out.latency_p50_within_ci_high_ms, 1.3);
  EXPECT_FALSE(out.latency_p50_ci_low_ms.has_value());
  EXPECT_FALSE(out.latency_p50_ci_high_ms.has_value());
  // Written again, it reads back the same.
  EXPECT_EQ(FormatRowCsv(ParseRowCsv(FormatRowCsv(out), "again.csv")), FormatRowCsv(out));
  // A version-5 row must have the new columns; process medians must be positive numbers.
  EXPECT_THROW(ParseRowCsv(h4 + "\n5" + v4.substr(1) + "\n", "v5.csv"), InputError);
  ResultRow many = SampleRow();
  many.process_p50s_ms = {1.5, 0.25, 3};
  EXPECT_EQ(ParseRowCsv(FormatRowCsv(many), "m.csv").process_p50s_ms, many.process_p50s_ms);
  std::string bad = FormatRowCsv(many);
  bad.replace(bad.find("1.5;0.25;3"), 10, "1.5;-1;3");
  EXPECT_THROW(ParseRowCsv(bad, "bad.csv"), InputError);
  // When the processes' timed runs ended: whole Unix milliseconds, read back exactly.
  many.process_ends_unix_ms = {1796543210123, 1796543270456, 1796543330789};
  const std::string timed = FormatRowCsv(many);
  EXPECT_NE(timed.find(",1796543210123;1796543270456;1796543330789,"), std::string::npos);
  EXPECT_EQ(ParseRowCsv(timed, "t.csv").process_ends_unix_ms, many.process_ends_unix_ms);
  for (const char* wrong : {"1796543210123.5", "-5", "soon"}) {
    std::string t = timed;
    t.replace(t.find("1796543270456"), 13, wrong);
    EXPECT_THROW(ParseRowCsv(t, "t.csv"), InputError) << wrong;
  }
}

TEST(Csv, MalformedRowsNameTheProblem) {
  EXPECT_THROW(ParseRowCsv("run_id\n", "f.csv"), InputError);
  std::string text = FormatRowCsv(SampleRow());
  const std::string bad = text.substr(0, text.rfind(',')) + ",x,y\n";
  EXPECT_THROW(ParseRowCsv(bad, "f.csv"), InputError);
  std::string not_number = text;
  not_number.replace(not_number.find("4672"), 4, "many");
  try {
    ParseRowCsv(not_number, "f.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("column 'params' holds 'many'"), std::string::npos);
  }
  for (const std::string phases : {"start=-1", "start", "=1", "Start=1", "start=1;;", "a=nan"}) {
    std::string bad_phases = text;
    bad_phases.replace(bad_phases.find("start=0.25;build=1.5;timed=0"), 28, phases);
    try {
      ParseRowCsv(bad_phases, "f.csv");
      ADD_FAILURE() << phases;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("column 'phases_s'"), std::string::npos) << e.what();
    }
  }
}

TEST(Csv, AtomicWritesLeaveOnlyFinalFiles) {
  const ScratchDir scratch("csv_atomic_");
  const std::string dir = scratch.path().string();
  const std::string run = "conv_blocks_w16_d2_b8";
  const std::string path = RowPath(dir + "/local/onnxruntime", run);
  WriteRow(path, SampleRow());
  WriteLatencies(LatenciesPath(dir + "/local/onnxruntime", run), {5, 7, 11});
  EXPECT_EQ(Listing(dir + "/local/onnxruntime"),
            (std::vector<std::string>{run + ".csv", run + ".latencies.csv"}));
  EXPECT_EQ(ReadRow(path).run_id, run);
  EXPECT_EQ(ReadLatencies(LatenciesPath(dir + "/local/onnxruntime", run)),
            (std::vector<int64_t>{5, 7, 11}));
}

// A row cut short, even inside its last field, or carrying anything after its one data line is
// refused, as is a row copied under another run's name or a header naming a column twice.
TEST(Csv, TruncatedCopiedOrDoubledRowsAreRefused) {
  const std::string text = FormatRowCsv(SampleRow());
  ASSERT_EQ(text.back(), '\n');
  EXPECT_NO_THROW(ParseRowCsv(text, "f.csv"));
  for (size_t cut : {size_t{1}, size_t{2}, size_t{5}}) {
    EXPECT_THROW(ParseRowCsv(text.substr(0, text.size() - cut), "f.csv"), InputError) << cut;
  }
  EXPECT_THROW(ParseRowCsv(text + "extra\n", "f.csv"), InputError);
  const size_t newline = text.find('\n');
  const std::string header = text.substr(0, newline), values = text.substr(newline + 1);
  const std::string doubled = header + ",run_id\n" +
                              values.substr(0, values.size() - 1) + ",other\n";
  try {
    ParseRowCsv(doubled, "f.csv");
    ADD_FAILURE() << "a doubled column was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'run_id' twice"), std::string::npos) << e.what();
  }

  const ScratchDir scratch("csv_renamed_");
  const std::string dir = scratch.path().string();
  const std::string copy = RowPath(dir, "resnet_s_b1");
  WriteFileAtomic(copy, text);  // the row of conv_blocks_w16_d2_b8 under another run's name
  try {
    ReadRow(copy);
    ADD_FAILURE() << "a row under another run's name was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("holds run 'conv_blocks_w16_d2_b8'"), std::string::npos)
        << e.what();
  }
}

// Found by fuzzing: an unterminated quote ended the process (std::invalid_argument escaped);
// junk after a number, negative latencies and iterations out of order were read as latencies.
TEST(Csv, MalformedTracesAreInputErrors) {
  const std::string head = "iteration,latency_ns\n";
  EXPECT_EQ(ParseLatencies(head + "0,5\n1,7\n", "t"), (std::vector<int64_t>{5, 7}));
  for (const std::string bad : {"0,5\n1,8\"2\n", "0,5\n1,-3\n", "0,5\n1,12abc\n", "0,5\n3,7\n",
                                "0,5,9\n"}) {
    EXPECT_THROW(ParseLatencies(head + bad, "t"), InputError) << bad;
  }
}

// A run's trace of several processes: processes count up from 0, iterations from 0 in each.
TEST(Csv, ProcessTracesRoundTripAndRefuseDisorder) {
  const ScratchDir scratch("csv_ptrace_");
  const std::string dir = scratch.path().string();
  const std::vector<std::vector<int64_t>> traces = {{5, 7}, {11}, {13, 17, 19}};
  WriteProcessLatencies(dir + "/t.csv", traces);
  EXPECT_EQ(ReadProcessLatencies(dir + "/t.csv"), traces);
  EXPECT_EQ(ReadLatencies(dir + "/t.csv"), (std::vector<int64_t>{5, 7, 11, 13, 17, 19}));
  EXPECT_EQ(ParseProcessLatencies("iteration,latency_ns\n0,5\n", "t").size(), 1u);
  const std::string head = "process,iteration,latency_ns\n";
  for (const std::string bad : {"1,0,5\n", "0,0,5\n2,0,7\n", "0,0,5\n1,1,7\n",
                                "0,0,5\n0,1,7\n1,0,3\n0,2,9\n", "0,0\n", "0,0,-1\n"}) {
    EXPECT_THROW(ParseProcessLatencies(head + bad, "t"), InputError) << bad;
  }
}

// Only the temporary files of writers that are gone: another sweep's live write is kept.
TEST(Csv, StaleTempFilesAreRemoved) {
  const ScratchDir scratch("csv_stale_");
  const std::string dir = scratch.path().string();
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  std::ofstream(dir + "/r1.csv.tmp." + std::to_string(gone)) << "half a row";
  std::ofstream(dir + "/r3.csv.tmp." + std::to_string(::getpid())) << "being written";
  std::ofstream(dir + "/r2.csv") << "kept";
  EXPECT_EQ(RemoveStaleTempFiles(dir), 1);
  EXPECT_EQ(Listing(dir), (std::vector<std::string>{
                              "r2.csv", "r3.csv.tmp." + std::to_string(::getpid())}));
}

// An SDK's coloured error text ends up in a row as plain text.
TEST(Csv, TerminalColourCodesAndControlCharactersAreDropped) {
  ResultRow row = SampleRow();
  row.error = "\x1b[1;31m2026 [E:onnxruntime] Non-zero status\x1b[m\tcode\x07 here";
  const ResultRow out = ParseRowCsv(FormatRowCsv(row), "mem");
  EXPECT_EQ(out.error, "2026 [E:onnxruntime] Non-zero status code here");
}

// A name that a spreadsheet would evaluate as a formula is written with a single quote in
// front (text columns only: numbers stay numbers) and reads back as it was.
TEST(Csv, FormulaLikeTextIsGuardedAndReadsBack) {
  EXPECT_EQ(CsvGuardText("=cmd|' -C calc'!A0"), "'=cmd|' -C calc'!A0");
  for (const std::string text : {"+1", "-5", "@SUM(A1)", "\t=x", "\r=x", "'=x", "''-x"}) {
    EXPECT_EQ(CsvGuardText(text), "'" + text) << text;
    EXPECT_EQ(CsvUnguardText(CsvGuardText(text)), text) << text;
  }
  for (const std::string text : {"resnet18", "'quoted'", "'", "", "a=b", "1e-5"}) {
    EXPECT_EQ(CsvGuardText(text), text) << text;
    EXPECT_EQ(CsvUnguardText(text), text) << text;
  }

  ResultRow row = SampleRow();
  row.model = "=cmd|' -C calc'!A0";
  row.family = "'=already quoted";
  row.error = "-1 is not a shape";
  row.notes = "@note";
  row.width = -5;  // a number column: never guarded
  const std::string text = FormatRowCsv(row);
  const std::string values = text.substr(text.find('\n') + 1);
  const std::vector<std::string> cells = CsvSplitLine(values.substr(0, values.size() - 1));
  const auto cell = [&](const std::string& column) {
    const auto at = std::find(RowColumns().begin(), RowColumns().end(), column);
    return cells.at(static_cast<size_t>(at - RowColumns().begin()));
  };
  EXPECT_EQ(cell("model"), "'=cmd|' -C calc'!A0");
  EXPECT_EQ(cell("family"), "''=already quoted");
  EXPECT_EQ(cell("error"), "'-1 is not a shape");
  EXPECT_EQ(cell("notes"), "'@note");
  EXPECT_EQ(cell("width"), "-5");
  for (const std::string& c : cells) {  // only the number may start with '-'
    EXPECT_EQ(std::string("=+@").find(c.empty() ? 'x' : c[0]), std::string::npos) << c;
    EXPECT_TRUE(c.empty() || c[0] != '-' || c == "-5") << c;
  }
  const ResultRow back = ParseRowCsv(text, "mem");
  EXPECT_EQ(back.model, row.model);
  EXPECT_EQ(back.family, row.family);
  EXPECT_EQ(back.error, row.error);
  EXPECT_EQ(back.notes, row.notes);
  EXPECT_EQ(back.width, -5);
  EXPECT_EQ(FormatRowCsv(back), text);

  std::vector<ServerStep> steps(1);
  steps[0] = {1, 20, 19.5, 4.25, 9.5, true, false, "-generator behind", 200, 200};
  const std::string steps_text = FormatServerStepsCsv(steps);
  EXPECT_NE(steps_text.find(",'-generator behind,"), std::string::npos) << steps_text;
  EXPECT_EQ(ParseServerStepsCsv(steps_text, "s")[0].invalid_reason, "-generator behind");
}

// A column's meaning is written once, in Columns() (results/csv.cc): every column has one, so a
// column added without it fails here, by name.
TEST(Csv, EveryColumnHasAMeaning) {
  const std::vector<ColumnMeaning> meanings = RowColumnMeanings();
  ASSERT_EQ(meanings.size(), RowColumns().size());
  for (size_t i = 0; i < meanings.size(); ++i) {
    const ColumnMeaning& c = meanings[i];
    EXPECT_EQ(c.name, RowColumns()[i]);
    if (c.meaning.find_first_not_of(" \t\n") != std::string::npos) continue;
    ADD_FAILURE() << "column '" << c.name << "' has no meaning: write what it holds and its unit "
                  << "in Columns() (src/ngraphbench/results/csv.cc), then regenerate "
                  << "docs/results.md's table with `build/ngraphbench list --columns`";
  }
  for (const ColumnMeaning& c : meanings) {
    EXPECT_GE(c.since, kOldestReadableSchemaVersion) << c.name;
    EXPECT_LE(c.since, kSchemaVersion) << c.name;
  }
}

// docs/results.md holds ColumnsMarkdown() between two marker lines, as `ngraphbench list
// --columns` prints it: a column added, removed or reworded in the code without regenerating
// the docs fails here.
TEST(Csv, DocsColumnTableIsTheCodes) {
  const std::string path = std::string(NGB_SOURCE_DIR) + "/docs/results.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << path;
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string begin = "<!-- columns: generated by build/ngraphbench list --columns";
  const std::string end = "<!-- end of columns -->";
  const size_t b = doc.find(begin);
  ASSERT_NE(b, std::string::npos) << path << " lacks the marker line '" << begin << " ...'";
  const size_t from = doc.find('\n', b);
  ASSERT_NE(from, std::string::npos);
  const size_t to = doc.find(end, from);
  ASSERT_NE(to, std::string::npos) << path << " lacks the marker line '" << end << "'";
  // The table, without the blank lines that set it off from the markers.
  std::string block = doc.substr(from + 1, to - from - 1);
  while (block.compare(0, 1, "\n") == 0) block.erase(0, 1);
  while (block.size() >= 2 && block.compare(block.size() - 2, 2, "\n\n") == 0) block.pop_back();
  const std::string expected = ColumnsMarkdown();
  if (block == expected) return;
  // Name the first line that differs rather than print two 70-line tables.
  std::istringstream have(block), want(expected);
  std::string h, w;
  int line = 0;
  while (true) {
    const bool more_h = static_cast<bool>(std::getline(have, h));
    const bool more_w = static_cast<bool>(std::getline(want, w));
    ++line;
    if (!more_h && !more_w) break;
    if (more_h != more_w || h != w) {
      ADD_FAILURE() << "docs/results.md's column table is stale (line " << line
                    << " of the table)\n  docs: " << (more_h ? h : "(table ends)")
                    << "\n  code: " << (more_w ? w : "(table ends)")
                    << "\nregenerate it: replace the lines between the marker lines with the "
                    << "output of `build/ngraphbench list --columns`";
      return;
    }
  }
  ADD_FAILURE() << "docs/results.md's column table differs from ColumnsMarkdown() in its line "
                << "endings; regenerate it with `build/ngraphbench list --columns`";
}

// A find_peak run's steps file: what the worker writes reads back the same, and a file that is
// not one is refused naming the file, the line and what was expected.
TEST(ServerSteps, RoundTripAndBadFilesNameTheProblem) {
  std::vector<ServerStep> steps(2);
  steps[0] = {1, 20, 19.5, 4.25, 9.5, true, true, "", 200, 200};
  steps[1] = {2, 80, 60, 30, 120, false, false, "server: queries 90 < 100, the p99's minimum",
              800, 700};
  const std::string text = FormatServerStepsCsv(steps);
  EXPECT_EQ(text,
            "step,target_qps,achieved_qps,latency_p50_ms,latency_at_percentile_ms,bound_met,"
            "valid,invalid_reason,queries_issued,queries_completed\n"
            "1,20,19.5,4.25,9.5,true,true,,200,200\n"
            "2,80,60,30,120,false,false,\"server: queries 90 < 100, the p99's minimum\",800,700\n");
  const std::vector<ServerStep> back = ParseServerStepsCsv(text, "r.server_steps.csv");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].invalid_reason, steps[1].invalid_reason);
  EXPECT_EQ(back[1].queries_completed, 700);
  EXPECT_FALSE(back[1].valid);
  EXPECT_DOUBLE_EQ(back[0].latency_p50_ms, 4.25);
  EXPECT_EQ(ServerStepsPath("d", "m_b1_server_s2_peak"), "d/m_b1_server_s2_peak.server_steps.csv");

  const std::string header = text.substr(0, text.find('\n') + 1);
  auto error = [](const std::string& bad) {
    try {
      ParseServerStepsCsv(bad, "x.server_steps.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no InputError");
  };
  EXPECT_NE(error("").find("'x.server_steps.csv' is empty"), std::string::npos) << error("");
  EXPECT_NE(error("step,qps\n1,2\n").find("has the header 'step,qps'; expected step,"),
            std::string::npos);
  EXPECT_NE(error(header).find("holds no step"), std::string::npos);
  EXPECT_NE(error(header + "1,20,19.5,4,9,true,true,,200\n").find("line 2 has 9 fields"),
            std::string::npos);
  EXPECT_NE(error(header + "1,20,-3,4,9,true,true,,200,200\n")
                .find("line 2: achieved_qps is '-3'; expected a number >= 0"),
            std::string::npos);
  EXPECT_NE(error(header + "1,20,3,4,9,yes,true,,200,200\n")
                .find("bound_met is 'yes'; expected true or false"),
            std::string::npos);
  EXPECT_NE(error(header + "2,20,3,4,9,true,true,,200,200\n").find("step is 2; expected 1"),
            std::string::npos);
  EXPECT_NE(error(header + "1,20,3,4,9,true,true,,200,201\n")
                .find("queries_completed 201 is more than queries_issued 200"),
            std::string::npos);
  EXPECT_NE(error(header + "1,20,3,4,9,true,true,\"open,200,200\n").find("not valid CSV"),
            std::string::npos);
}

}  // namespace
}  // namespace ngraphbench
