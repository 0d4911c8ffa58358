// Cross-compiler conformance: every built compiler module computes the same outputs
// as the reference on the same inputs, and the operator table (graph/ops.cc) is true.
//
// Reference: `identity` (PyTorch eager) when built, else `onnxruntime`, else the first built
// compiler. Model cases: the smallest model (width and depth) of every synthetic experiment in
// configs/experiments.yaml at batch 2; every compiler must run them.
//
// Operator cases (op_cases.h): at least one small graph per row of the operator table. For each
// compiler column (Conformance/OperatorTableColumn.Holds/<compiler>):
//   - a "yes" must compile, run and match identity on every case of that operator;
//   - a "no" must be refused with a CompileError naming the operator by the table's check (which
//     the worker makes before the SDK sees the model), and the SDK itself, given the model
//     without that check, must not run it and agree with identity: else the "no" is stale and
//     the test says to mark it "yes". A crash of the SDK there is recorded, not a failure: the
//     table's check is what keeps it from users.
// The columns are the compilers' descriptions' (`operators:` in compiler.yaml).
// TVM and inductor compile each model in a Python subprocess (seconds each: their
// descriptions' prior_compile_s), so their cases are merged into a few graphs of up to kGroup
// cases each (disjoint subgraphs, one output set per case), compiled once each; a group that
// fails is split in halves until the failing cases are found.
//
// Each compiler runs in forked children that load only its module, and outputs are compared
// within a relative tolerance of 1e-4 (fp32): compare_support.h, shared with
// torch_compilers_test.cc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ngraphbench/compilers/registry.h"
#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/graph/onnx_io.h"
#include "ngraphbench/graph/ops.h"
#include "ngraphbench/models/builder.h"
#include "ngraphbench/models/zoo.h"
#include "compare_support.h"
#include "op_cases.h"
#include "require_compiler.h"

namespace ngraphbench {
namespace {

using test_support::Case;
using test_support::Compare;
using test_support::kRelativeTolerance;
using test_support::Outcome;
using test_support::RandomInputs;
using test_support::RunCompiler;

constexpr int64_t kBatch = 2;

// ---- Cases ----------------------------------------------------------------------------------

std::vector<Case> ModelCases() {
  const ExperimentsFile file = LoadExperiments(NGB_SOURCE_DIR "/configs/experiments.yaml");
  std::vector<Case> cases;
  for (const auto& e : file.experiments) {
    const ModelFamily& family = FindFamily(e.family);
    if (family.uses_models || !family.uses_width) continue;  // only the synthetic families
    const ModelSpec spec =
        SyntheticSpec(e.family, e.name, *std::min_element(e.widths.begin(), e.widths.end()),
                      e.depths.empty() ? 1 : *std::min_element(e.depths.begin(), e.depths.end()));
    cases.push_back({spec.name, BuildModel(spec, kBatch), /*model=*/true, {}, {}});
  }
  return cases;
}

// One graph per operator of the table (op_cases.h), small enough to run in milliseconds.
std::vector<Case> OperatorCases() {
  std::vector<Case> cases;
  for (auto& c : test_support::OperatorCases()) {
    cases.push_back({c.name, std::move(c.graph), false, {}, {}, c.op});
  }
  return cases;
}

// Every built compiler but the test double (null) and those that run on a GPU only (tensorrt:
// this suite runs on the CPU); a test failure for each one this build requires but lacks.
std::vector<std::string> BuiltCompilers() {
  std::vector<std::string> names;
  for (const auto& info : AllCompilers()) {
    if (!info.test_double && info.devices.front() == "cpu") names.push_back(info.name);
  }
  return test_support::BuiltAmong(names);
}

std::string PickReference(const std::vector<std::string>& built) {
  for (const char* preferred : {"identity", "onnxruntime"}) {
    if (std::find(built.begin(), built.end(), preferred) != built.end()) return preferred;
  }
  return built.front();
}

uint64_t InputSeed() {
  uint64_t seed = 20240601;
  if (const char* env = std::getenv("NGB_CONFORMANCE_SEED")) seed = std::stoull(env);
  return seed;
}

// Gives every case its inputs (seeded per case) and, when `need_onnx`, its ONNX bytes.
void PrepareCases(std::vector<Case>& cases, bool need_onnx) {
  const uint64_t seed = InputSeed();
  for (size_t i = 0; i < cases.size(); ++i) {
    Case& c = cases[i];
    c.inputs = RandomInputs(c.graph, seed + 1000 * i);
    if (need_onnx) {
      try {
        c.onnx = ExportOnnx(c.graph);
      } catch (const std::exception& e) {
        ADD_FAILURE() << c.name << ": ExportOnnx failed: " << e.what();
      }
    }
  }
}

// One graph holding `parts` side by side: every value of part k is renamed "c<k>_<name>", so the
// subgraphs stay disjoint; inputs and outputs are concatenated in order.
Case Merge(const std::vector<const Case*>& parts, const std::string& name) {
  Case merged;
  merged.name = name;
  merged.graph.name = name;
  for (size_t k = 0; k < parts.size(); ++k) {
    const Graph& g = parts[k]->graph;
    const std::string prefix = "c" + std::to_string(k) + "_";
    auto rename = [&](const std::string& v) { return v.empty() ? v : prefix + v; };
    for (const auto& in : g.inputs) merged.graph.inputs.push_back({rename(in.name), in.shape});
    for (const auto& out : g.outputs) merged.graph.outputs.push_back({rename(out.name), out.shape});
    for (Node n : g.nodes) {
      n.name = rename(n.name);
      for (auto& v : n.inputs) v = rename(v);
      for (auto& v : n.outputs) v = rename(v);
      merged.graph.nodes.push_back(std::move(n));
    }
    for (Initializer init : g.initializers) {
      init.name = rename(init.name);
      merged.graph.initializers.push_back(std::move(init));
    }
    for (const auto& [v, shape] : g.value_shapes) merged.graph.value_shapes[rename(v)] = shape;
    merged.inputs.insert(merged.inputs.end(), parts[k]->inputs.begin(), parts[k]->inputs.end());
  }
  merged.onnx = ExportOnnx(merged.graph);
  return merged;
}

// Runs `cases` on `name` in merged graphs of up to `group` cases; a group that fails to compile
// or run is split in halves until each failure is pinned to its case. Returns one outcome per
// case, and counts the graphs compiled in `compiles`.
std::vector<Outcome> RunGrouped(const std::string& name, const std::vector<Case>& cases,
                                size_t group, int& compiles) {
  std::vector<Outcome> result(cases.size());
  std::vector<std::vector<size_t>> pending;
  for (size_t i = 0; i < cases.size(); i += group) {
    std::vector<size_t> g;
    for (size_t j = i; j < std::min(cases.size(), i + group); ++j) g.push_back(j);
    pending.push_back(std::move(g));
  }
  while (!pending.empty()) {
    std::vector<Case> merged;
    for (const auto& g : pending) {
      std::vector<const Case*> parts;
      for (size_t i : g) parts.push_back(&cases[i]);
      merged.push_back(g.size() == 1 ? cases[g[0]]
                                     : Merge(parts, name + "_group_" + std::to_string(g.front())));
    }
    compiles += static_cast<int>(merged.size());
    const std::vector<Outcome> got = RunCompiler(name, merged);
    std::vector<std::vector<size_t>> next;
    for (size_t k = 0; k < pending.size(); ++k) {
      const auto& g = pending[k];
      size_t expected = 0;
      for (size_t i : g) expected += cases[i].graph.outputs.size();
      if (got[k].status == Outcome::kOk && got[k].outputs.size() == expected) {
        size_t offset = 0;
        for (size_t i : g) {
          const size_t n = cases[i].graph.outputs.size();
          result[i].status = Outcome::kOk;
          result[i].outputs.assign(got[k].outputs.begin() + offset,
                                   got[k].outputs.begin() + offset + n);
          offset += n;
        }
      } else if (g.size() == 1) {
        result[g[0]] = got[k];
      } else {
        next.emplace_back(g.begin(), g.begin() + g.size() / 2);
        next.emplace_back(g.begin() + g.size() / 2, g.end());
      }
    }
    pending = std::move(next);
  }
  return result;
}

// Cases are compiled this many to a graph by compilers that compile slowly (see the top).
constexpr size_t kGroup = 256;

bool CompilesSlowly(const std::string& name) {
  return FindCompiler(name).prior_compile_s >= 2.5;
}

// `cases` on `name`: merged into groups when it compiles slowly, else one graph per case.
std::vector<Outcome> RunCases(const std::string& name, const std::vector<Case>& cases,
                              int& compiles) {
  if (CompilesSlowly(name)) return RunGrouped(name, cases, kGroup, compiles);
  compiles += static_cast<int>(cases.size());
  return RunCompiler(name, cases);
}

// Runs `cases` on `reference` and on every other compiler in `compilers`, each in its own
// process, and expects every output to match the reference's within the tolerance. Returns the
// reference's outcomes.
std::vector<Outcome> ExpectAgreement(std::vector<Case> cases,
                                     const std::vector<std::string>& compilers,
                                     const std::string& reference) {
  const bool need_onnx = std::any_of(compilers.begin(), compilers.end(), [](const std::string& n) {
    return FindCompiler(n).consumes_onnx;
  });
  PrepareCases(cases, need_onnx);
  std::printf(
      "reference: %s; compilers: %zu; cases: %zu; inputs seed %llu "
      "(NGB_CONFORMANCE_SEED)\n",
      reference.c_str(), compilers.size(), cases.size(),
      static_cast<unsigned long long>(InputSeed()));

  const std::vector<Outcome> ref = RunCompiler(reference, cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(ref[i].status, Outcome::kOk)
        << "reference " << reference << " failed on " << cases[i].name << ": " << ref[i].error;
  }
  for (const std::string& name : compilers) {
    if (name == reference) continue;
    int compiles = 0;
    const std::vector<Outcome> got = RunCases(name, cases, compiles);
    double worst = 0;
    int compared = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      if (ref[i].status != Outcome::kOk) continue;
      SCOPED_TRACE(name + " on " + c.name);
      if (got[i].status != Outcome::kOk) {
        ADD_FAILURE() << "failed: " << got[i].error;
        continue;
      }
      ++compared;
      const std::string diff = Compare(ref[i].outputs, got[i].outputs, c.graph, worst);
      EXPECT_TRUE(diff.empty()) << diff;
    }
    std::printf("%s vs %s: %d cases compared (%d compiles); largest relative difference %.3g "
                "(tolerance %.0e)\n",
                name.c_str(), reference.c_str(), compared, compiles, worst, kRelativeTolerance);
    ::testing::Test::RecordProperty(name + "_max_rel_diff", std::to_string(worst));
  }
  return ref;
}

TEST(Conformance, EveryBuiltCompilerMatchesTheReference) {
  const std::vector<std::string> built = BuiltCompilers();
  if (HasFailure()) return;  // a required compiler is missing
  if (built.size() < 2) {
    GTEST_SKIP() << "needs two built compilers besides null; built: " << built.size()
                 << ", required: " << NGB_REQUIRED_COMPILERS;
  }
  std::vector<Case> cases = ModelCases();
  ASSERT_FALSE(cases.empty()) << "no synthetic experiment in configs/experiments.yaml";
  // The operator cases run per table column below (OperatorTable).
  ExpectAgreement(std::move(cases), built, PickReference(built));
}

// Table IV: every architecture at batch 1, onnxruntime and openvino (where built) against
// identity. Other compilers are covered by the synthetic cases above; these graphs are large
// (TVM alone would spend minutes compiling them), so they are kept to these two. The seeded
// weights must also give logits that are finite and not collapsed to a constant, or the
// benchmark would time a numerically degenerate model.
TEST(Conformance, ArchitecturesMatchIdentity) {
  const std::vector<std::string> compilers =
      test_support::BuiltAmong({"identity", "onnxruntime", "openvino"});
  if (HasFailure()) return;  // a required compiler is missing
  if (compilers.size() < 2 || compilers.front() != "identity") {
    GTEST_SKIP() << "needs identity and onnxruntime or openvino built; required: "
                 << NGB_REQUIRED_COMPILERS;
  }
  const std::vector<std::string>& names = FindFamily("architecture").variants;
  std::vector<Case> cases;
  for (const std::string& name : names) {
    ModelSpec spec;
    spec.family = "architecture";
    spec.name = spec.variant = name;
    cases.push_back({name, BuildModel(spec, 1), /*model=*/true, {}, {}});
  }
  const std::vector<Outcome> logits = ExpectAgreement(std::move(cases), compilers, "identity");
  for (size_t i = 0; i < logits.size(); ++i) {
    SCOPED_TRACE(names[i] + "'s logits on identity");
    if (logits[i].status != Outcome::kOk) continue;  // a failure ExpectAgreement reported
    ASSERT_EQ(logits[i].outputs.size(), 1u);
    const HostTensor& t = logits[i].outputs[0];
    ASSERT_EQ(t.shape, (Shape{1, 1000}));
    double sum = 0, sum_sq = 0;
    for (float v : t.data) {
      ASSERT_TRUE(std::isfinite(v));
      sum += v;
      sum_sq += double(v) * v;
    }
    const double n = static_cast<double>(t.data.size());
    const double stddev = std::sqrt(std::max(0.0, sum_sq / n - (sum / n) * (sum / n)));
    EXPECT_GT(stddev, 1e-3);
    EXPECT_LT(stddev, 1e4);
  }
}

// ---- The operator table -----------------------------------------------------------------------

std::set<std::string> OpsOf(const Graph& g) {
  std::set<std::string> ops;
  for (const auto& n : g.nodes) ops.insert(n.op_type);
  return ops;
}

// The operator cases with inputs and ONNX bytes, and identity's outcomes on them: computed once
// per test process, shared by every column.
struct OperatorRun {
  std::vector<Case> cases;
  std::vector<Outcome> identity;
};

const OperatorRun& IdentityOnOperatorCases() {
  static const OperatorRun run = [] {
    OperatorRun r;
    r.cases = OperatorCases();
    PrepareCases(r.cases, /*need_onnx=*/true);
    r.identity = RunCompiler("identity", r.cases);
    return r;
  }();
  return run;
}

std::vector<Case> Subset(const std::vector<Case>& cases, const std::vector<size_t>& indices) {
  std::vector<Case> out;
  for (size_t i : indices) out.push_back(cases[i]);
  return out;
}

// Every row has a case, every case's operators are rows: the table and the cases move together.
TEST(OperatorTable, EveryRowHasACaseAndEveryCaseOnlyRows) {
  std::map<std::string, int> cases_of;
  for (const auto& c : OperatorCases()) {
    ASSERT_NE(FindOp(c.op), nullptr) << c.name << " verifies '" << c.op << "', not in the table";
    for (const auto& op : OpsOf(c.graph)) {
      EXPECT_NE(FindOp(op), nullptr) << c.name << " uses '" << op << "', not in the table";
    }
    EXPECT_TRUE(OpsOf(c.graph).count(c.op)) << c.name << " has no " << c.op << " node";
    ++cases_of[c.op];
  }
  for (const auto& row : OperatorTable()) {
    EXPECT_GT(cases_of[row.name], 0) << "no case in op_cases.h verifies " << row.name;
  }
  for (size_t i = 1; i < OperatorTable().size(); ++i) {
    EXPECT_LT(OperatorTable()[i - 1].name, OperatorTable()[i].name) << "table not sorted";
  }
}

// The importer column: every ONNX row's case survives export -> import -> CheckImportable, and
// identity computes the same on the imported graph (whatever import folded) as on the original.
// IR rows are lowered by the exporter, so the importer never meets them.
TEST(OperatorTable, ImporterColumnHolds) {
  NGB_REQUIRE_BUILT("identity");
  const OperatorRun& run = IdentityOnOperatorCases();
  std::vector<Case> imported;
  std::vector<size_t> origin;
  for (size_t i = 0; i < run.cases.size(); ++i) {
    const Case& c = run.cases[i];
    const OpInfo* row = FindOp(c.op);
    ASSERT_NE(row, nullptr);
    SCOPED_TRACE(c.name);
    Graph back;
    try {
      back = ImportOnnx(c.onnx, c.name);
      CheckImportable(back, c.name);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "the importer refuses it: " << e.what();
      continue;
    }
    if (!row->onnx) {
      EXPECT_FALSE(OpsOf(back).count(c.op)) << c.op << " is an IR op, yet survives ONNX export";
      continue;
    }
    Case copy = c;
    copy.graph = std::move(back);
    imported.push_back(std::move(copy));
    origin.push_back(i);
  }
  const std::vector<Outcome> got = RunCompiler("identity", imported);
  double worst = 0;
  for (size_t k = 0; k < imported.size(); ++k) {
    SCOPED_TRACE(imported[k].name + " (imported)");
    const Outcome& ref = run.identity[origin[k]];
    ASSERT_EQ(ref.status, Outcome::kOk) << ref.error;
    ASSERT_EQ(got[k].status, Outcome::kOk) << got[k].error;
    const std::string diff = Compare(ref.outputs, got[k].outputs, imported[k].graph, worst);
    EXPECT_TRUE(diff.empty()) << diff;
  }
  std::printf("importer: %zu ONNX cases imported and run on identity as before; largest relative "
              "difference %.3g\n",
              imported.size(), worst);
}

// One compiler's column: see the top of this file.
class OperatorTableColumn : public ::testing::TestWithParam<std::string> {};

// The compilers with a column, read from the descriptions beside the test binary when gtest
// instantiates the suite.
std::vector<std::string> ColumnNames() {
  std::vector<std::string> names;
  for (const OpColumn& column : OpTableColumns()) names.push_back(column.compiler);
  return names;
}

TEST_P(OperatorTableColumn, Holds) {
  const std::string name = GetParam();
  NGB_REQUIRE_BUILT("identity");
  NGB_REQUIRE_BUILT(name);
  const OpColumn& column = *FindCompiler(name).op_column;
  const OperatorRun& run = IdentityOnOperatorCases();
  const std::vector<Case>& cases = run.cases;
  // A case is a "no" case when the table refuses its operator's node (the whole operator, or
  // the form a limit names); its helper nodes must all be ones the compiler runs.
  std::vector<size_t> yes, no;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    ASSERT_NE(FindOp(c.op), nullptr) << c.name;
    bool refused = false, helpers_run = true;
    for (const Node& node : c.graph.nodes) {
      const std::string why = RefusalOf(node, c.graph, column);
      if (why.empty()) continue;
      if (node.op_type == c.op) {
        refused = true;
      } else {
        ADD_FAILURE() << c.name << " verifies " << c.op << " with the help of " << node.op_type
                      << ", which " << name << " does not run (" << why
                      << "): build the case from other operators";
        helpers_run = false;
      }
    }
    if (refused) {
      no.push_back(i);
    } else if (helpers_run) {
      yes.push_back(i);
    }
  }

  // "yes": runs and matches identity.
  std::vector<Outcome> got;
  int compiles = 0;
  if (name == "identity") {
    for (size_t i : yes) got.push_back(run.identity[i]);
    compiles = static_cast<int>(yes.size());
  } else {
    got = RunCases(name, Subset(cases, yes), compiles);
  }
  std::set<std::string> verified, failed;
  double worst = 0;
  for (size_t k = 0; k < yes.size(); ++k) {
    const Case& c = cases[yes[k]];
    const Outcome& ref = run.identity[yes[k]];
    SCOPED_TRACE(name + " on " + c.name);
    if (ref.status != Outcome::kOk) {
      ADD_FAILURE() << "identity (the reference) fails: " << ref.error;
      failed.insert(c.op);
      continue;
    }
    if (got[k].status != Outcome::kOk) {
      ADD_FAILURE() << "the table says " << name << " runs " << c.op << ", but it "
                    << (got[k].status == Outcome::kCompileError ? "refuses" : "fails") << ": "
                    << got[k].error;
      failed.insert(c.op);
      continue;
    }
    const std::string diff = Compare(ref.outputs, got[k].outputs, c.graph, worst);
    EXPECT_TRUE(diff.empty()) << "the table says " << name << " runs " << c.op
                              << ", but it disagrees with identity: " << diff;
    (diff.empty() ? verified : failed).insert(c.op);
  }
  for (const auto& op : failed) verified.erase(op);

  // "no" (and the refused form of a "part" cell): refused by the table's check, with the
  // operator named; and the SDK itself, without the check, does not run it correctly.
  std::map<std::string, std::string> sdk_says;  // refused case -> what the SDK did
  if (!no.empty()) {
    const std::vector<Case> refused_cases = Subset(cases, no);
    const std::vector<Outcome> unchecked = RunCompiler(name, refused_cases);
    for (size_t k = 0; k < no.size(); ++k) {
      const Case& c = cases[no[k]];
      SCOPED_TRACE(name + " on " + c.name + " (refused by the table)");
      try {
        CheckCompilerSupports(c.graph, column);
        ADD_FAILURE() << "the table's check accepted it";
      } catch (const CompileError& e) {
        const std::string error = e.what();
        EXPECT_NE(error.find("unsupported operators for " + name + ": "), std::string::npos)
            << error;
        EXPECT_NE(error.find(c.op + " ("), std::string::npos) << error;
      }
      const Outcome& sdk = unchecked[k];
      std::string what;
      if (sdk.status == Outcome::kOk) {
        double ignored = 0;
        const std::string diff = run.identity[no[k]].status == Outcome::kOk
                                     ? Compare(run.identity[no[k]].outputs, sdk.outputs,
                                               c.graph, ignored)
                                     : "identity failed";
        EXPECT_FALSE(diff.empty())
            << "the table refuses " << c.name << " for " << name
            << ", but without the table's check it runs and agrees with identity: mark it "
               "supported in src/ngraphbench/compilers/" + name + "/compiler.yaml";
        what = "runs but disagrees: " + diff;
      } else {
        what = std::string(sdk.status == Outcome::kCrashed ? "crashes: " : "fails: ") +
               sdk.error.substr(0, 160);
      }
      sdk_says[c.name] = what;
    }
  }

  std::printf("%s: %zu operators run and match identity (%zu cases%s); largest relative "
              "difference %.3g (tolerance %.0e)\n",
              name.c_str(), verified.size(), yes.size(),
              CompilesSlowly(name) ? (", " + std::to_string(compiles) + " compiles").c_str()
                                   : "",
              worst, kRelativeTolerance);
  std::printf("%s: %zu cases refused by the table's check, as it says%s\n", name.c_str(),
              sdk_says.size(), sdk_says.empty() ? "" : "; without the check the SDK itself:");
  for (const auto& [c, what] : sdk_says) std::printf("  %s: %s\n", c.c_str(), what.c_str());
}

INSTANTIATE_TEST_SUITE_P(Conformance, OperatorTableColumn,
                         ::testing::ValuesIn(ColumnNames()),
                         [](const auto& info) { return info.param; });

// Several operators missing: one error names them all, with counts, at every level.
TEST(OperatorTable, AllMissingOperatorsInOneError) {
  GraphBuilder g("missing_ops");
  std::string x = g.Input("input", {2, 3, 4});
  std::string h = g.Unary("Hardmax", x);
  h = g.Unary("Relu", h);
  h = g.Unary("Hardmax", h);
  g.Output(g.AddNode("LpNormalization", {h}, {2, 3, 4}));
  const Graph graph = g.Finish();
  try {
    CheckImportable(graph, "m.onnx");
    ADD_FAILURE() << "CheckImportable accepted Hardmax and LpNormalization";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'m.onnx': operators unknown to ngraphbench: "
                                         "Hardmax (2), LpNormalization (1)"),
              std::string::npos)
        << e.what();
  }
  for (const OpColumn& column : OpTableColumns()) {
    const std::string& compiler = column.compiler;
    try {
      CheckCompilerSupports(graph, column);
      ADD_FAILURE() << compiler << " accepted Hardmax and LpNormalization";
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find("unsupported operators for " + compiler +
                                           ": Hardmax (2), LpNormalization (1)"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(FindCompiler("null").op_column.has_value());  // null computes nothing

  // A user's file: the importer accepts the ONNX ops, the zoo refuses them all at once.
  const std::string path = ::testing::TempDir() + "ngb_missing_ops_" +
                           std::to_string(::getpid()) + ".onnx";
  ExportOnnxFile(graph, path);
  ModelSpec spec;
  spec.family = "onnx";
  spec.name = spec.onnx_path = path;
  try {
    BuildModel(spec, 2);
    ADD_FAILURE() << "BuildModel accepted an external model with unknown operators";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Hardmax (2), LpNormalization (1)"), std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
}

TEST(OperatorTable, ListsEveryRowInTextAndMarkdown) {
  const std::vector<OpColumn> columns = OpTableColumns();
  const std::string text = FormatOpTable(columns, false), markdown = FormatOpTable(columns, true);
  for (const auto& row : OperatorTable()) {
    EXPECT_NE(text.find("\n" + row.name + " "), std::string::npos) << row.name;
    EXPECT_NE(markdown.find("| " + row.name + " |"), std::string::npos) << row.name;
  }
  // A column for each description that has one, in the descriptions' order, with why each
  // operator it lacks is missing in that operator's notes.
  std::string header = "| operator | importer |";
  for (const OpColumn& column : columns) {
    header += " " + column.compiler + " |";
    for (const auto& [op, why] : column.unsupported) {
      const size_t row = markdown.find("| " + op + " |");
      ASSERT_NE(row, std::string::npos) << op;
      EXPECT_NE(markdown.substr(row, markdown.find('\n', row) - row).find(column.compiler + ": " + why),
                std::string::npos)
          << op << " for " << column.compiler;
    }
  }
  EXPECT_NE(markdown.find(header + " notes |"), std::string::npos) << header;
}

// The tolerance must be able to fail: a perturbation just above it is caught.
TEST(Conformance, CompareCatchesAPerturbationAboveTolerance) {
  Graph g;
  g.outputs = {{"y", {4}}};
  const std::vector<HostTensor> ref = {{{4}, {0.5f, -2.0f, 3.0f, 0.0f}}};
  std::vector<HostTensor> out = ref;
  double worst = 0;
  EXPECT_EQ(Compare(ref, out, g, worst), "");
  out[0].data[1] += static_cast<float>(2.5 * kRelativeTolerance * 3.0);
  EXPECT_NE(Compare(ref, out, g, worst), "");
  out = ref;
  out[0].data[3] = NAN;
  EXPECT_NE(Compare(ref, out, g, worst), "");
}

}  // namespace
}  // namespace ngraphbench
