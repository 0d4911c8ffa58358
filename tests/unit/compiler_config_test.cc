// A compiler's config, configs/<compiler>.yaml (experiments/compiler_config.cc), and --set over
// it and over the experiment (experiments/settings.cc); experiments.yaml is config_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ngraphbench/core/error.h"
#include "ngraphbench/experiments/config.h"
#include "ngraphbench/measure/machine.h"
#include "unit/config_fixture.h"

namespace ngraphbench {
namespace {

// --set KEY=VALUE: over the file, validated by the file's rules with the file's messages, which
// name --set instead of the file; compiler keys for every compiler or one named.
std::string SetError(const std::vector<std::string>& settings, const std::string& yaml,
                     const std::string& compiler, const std::string& path) {
  try {
    ParseCompilerConfig(yaml, path, FindCompiler(compiler), 2, settings);
    ExperimentConfig e;
    ApplyExperimentSettings(settings, e);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_F(ConfigTest, CompilerConfigValidatesCommonAndSpecificKeys) {
  const CompilerConfig c = LoadCompilerConfig(
      Write("threads: 3\nopt_level: basic\noptions:\n  execution_mode: parallel\n"),
      FindCompiler("onnxruntime"));
  EXPECT_EQ(c.threads, 3);
  EXPECT_EQ(c.opt_level, "basic");
  EXPECT_EQ(c.options.String("execution_mode"), "parallel");
  EXPECT_EQ(c.options.Int("inter_op_threads"), 1);  // the schema default

  EXPECT_EQ(LoadCompilerConfig(Write("threads: 0\n"), FindCompiler("onnxruntime")).threads,
            AvailableCores());

  std::string m = CompilerError("opt_level: max\n");
  EXPECT_NE(m.find("'opt_level' is 'max'; allowed values: all, extended, basic, disable"),
            std::string::npos)
      << m;
  m = CompilerError("options:\n  intra_threads: 2\n");
  EXPECT_NE(m.find("options.intra_threads' is not a known key"), std::string::npos) << m;
  m = CompilerError("threads: -2\n");
  EXPECT_NE(m.find("'threads' must be >= 0, got -2"), std::string::npos) << m;
  m = CompilerError("options:\n  execution_mode: 3d\n");
  EXPECT_NE(m.find("allowed values: sequential, parallel"), std::string::npos) << m;
  m = CompilerError("precision: fp8\n");
  EXPECT_NE(m.find("allowed values: fp32, int8"), std::string::npos) << m;
  EXPECT_EQ(LoadCompilerConfig(Write("precision: int8\n"), FindCompiler("onnxruntime")).precision,
            "int8");
}

// int8 where a compiler has no quantization path is refused with the reason, never run as fp32.
TEST_F(ConfigTest, Int8IsRefusedWhereTheCompilerCannotQuantize) {
  const std::string m = CompilerError("precision: int8\n", "torchscript");
  EXPECT_NE(m.find("'precision' is 'int8', but torchscript has no quantization path"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("(torchscript traces identity's program of ATen calls, which has no "
                   "quantized operators; "),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("run at precision int8); its precisions: fp32, bf16, fp16"),
            std::string::npos)
      << m;
  EXPECT_EQ(SetError({"precision=int8"}, "", "identity", "id.yaml").rfind(
                "--set: 'precision' is 'int8', but identity has no quantization path", 0),
            0u);
  // tvm and tensorrt take int8 (the QDQ model of ONNX Runtime's quantizer), whether or not this
  // machine can run them.
  for (const char* name : {"tvm", "tensorrt"}) {
    EXPECT_EQ(LoadCompilerConfig(Write("precision: int8\n"), FindCompiler(name)).precision,
              "int8")
        << name;
  }
}

// One synchronous request per timed run cannot measure OpenVINO's throughput mode: asking for it
// is bad input, refused before anything runs, with the reason and what to use instead.
TEST_F(ConfigTest, OpenVinoThroughputSettingsAreRefusedWithTheReason) {
  std::string m = CompilerError("options:\n  performance_hint: THROUGHPUT\n", "openvino");
  EXPECT_NE(m.find("'options.performance_hint' is 'THROUGHPUT', refused: "), std::string::npos)
      << m;
  EXPECT_NE(m.find("one synchronous infer request per run"), std::string::npos) << m;
  EXPECT_NE(m.find("several requests in flight"), std::string::npos) << m;
  EXPECT_NE(m.find("scenario offline"), std::string::npos) << m;
  EXPECT_NE(m.find("allowed values: LATENCY"), std::string::npos) << m;

  m = CompilerError("options:\n  num_streams: 4\n", "openvino");
  EXPECT_NE(m.find("'options.num_streams' must be <= 1, got 4; refused: "), std::string::npos) << m;
  EXPECT_NE(m.find("several requests in flight"), std::string::npos) << m;
  EXPECT_NE(m.find("num_streams 0 or 1"), std::string::npos) << m;

  // Neither a value outside both lists nor one within the limits is affected.
  m = CompilerError("options:\n  performance_hint: FAST\n", "openvino");
  EXPECT_NE(m.find("'options.performance_hint' is 'FAST'; allowed values: LATENCY"),
            std::string::npos)
      << m;
  const CompilerConfig c = LoadCompilerConfig(
      Write("options:\n  performance_hint: LATENCY\n  num_streams: 1\n"), FindCompiler("openvino"));
  EXPECT_EQ(c.options.String("performance_hint"), "LATENCY");
  EXPECT_EQ(c.options.Int("num_streams"), 1);
}

// tensorrt's options are validated before any run, on any machine (with or without a GPU).
TEST_F(ConfigTest, TensorRtOptionsAreValidated) {
  const CompilerConfig c = LoadCompilerConfig(
      Write("precision: fp16\noptions:\n  workspace_mb: 1024\n  builder_optimization_level: 5\n"
            "  engine_cache: false\n"),
      FindCompiler("tensorrt"));
  EXPECT_EQ(c.device, "cuda");  // the schema default: the only device
  EXPECT_EQ(c.precision, "fp16");
  EXPECT_EQ(c.options.Int("workspace_mb"), 1024);
  EXPECT_EQ(c.options.Int("builder_optimization_level"), 5);
  EXPECT_FALSE(c.options.Bool("engine_cache"));
  const CompilerConfig defaults = LoadCompilerConfig(Write("threads: 1\n"), FindCompiler("tensorrt"));
  EXPECT_EQ(defaults.precision, "fp32");
  EXPECT_EQ(defaults.options.Int("workspace_mb"), 4096);
  EXPECT_EQ(defaults.options.Int("builder_optimization_level"), 3);
  EXPECT_TRUE(defaults.options.Bool("engine_cache"));

  std::string m = CompilerError("device: cpu\n", "tensorrt");
  EXPECT_NE(m.find("'device' is 'cpu'; allowed values: cuda"), std::string::npos) << m;
  m = CompilerError("precision: bf16\n", "tensorrt");
  EXPECT_NE(m.find("allowed values: fp32, fp16, int8"), std::string::npos) << m;
  m = CompilerError("options:\n  builder_optimization_level: 6\n", "tensorrt");
  EXPECT_NE(m.find("'options.builder_optimization_level' must be <= 5, got 6"), std::string::npos)
      << m;
  m = CompilerError("options:\n  workspace_mb: 0\n", "tensorrt");
  EXPECT_NE(m.find("'options.workspace_mb' must be >= 1, got 0"), std::string::npos) << m;
  m = CompilerError("options:\n  int8: true\n", "tensorrt");
  EXPECT_NE(m.find("options.int8' is not a known key"), std::string::npos) << m;
  // onnxruntime and the torch compilers take device cuda; tvm does not (yet).
  EXPECT_EQ(LoadCompilerConfig(Write("device: cuda\n"), FindCompiler("onnxruntime")).device, "cuda");
  EXPECT_EQ(LoadCompilerConfig(Write("device: cuda\n"), FindCompiler("identity")).device, "cuda");
  m = CompilerError("device: cuda\n", "tvm");
  EXPECT_NE(m.find("'device' is 'cuda'; allowed values: cpu"), std::string::npos) << m;
}

TEST(Registry, UnknownCompilerNamesTheKnownOnes) {
  try {
    FindCompiler("tensorflow");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("known compilers: null, onnxruntime"), std::string::npos)
        << e.what();
  }
}

TEST_F(ConfigTest, AffinityIsReadValidatedAndSetsThreadsForACpuList) {
  const std::vector<int> allowed = ProcessCpus();
  ASSERT_FALSE(allowed.empty());
  const CompilerInfo& info = FindCompiler("null");
  EXPECT_EQ(LoadCompilerConfig(Write("threads: 1\n"), info).affinity, "none");
  CompilerConfig c = LoadCompilerConfig(Write("threads: 1\naffinity: compact\n"), info);
  EXPECT_EQ(c.affinity, "compact");
  EXPECT_EQ(c.threads, 1);
  // threads 0 (or unset) with a CPU list: one thread per listed CPU; an explicit count stays.
  const std::string first = std::to_string(allowed.front());
  c = LoadCompilerConfig(Write("affinity: \"" + first + "\"\n"), info);
  EXPECT_EQ(c.affinity, first);
  EXPECT_EQ(c.threads, 1);
  EXPECT_EQ(LoadCompilerConfig(Write("threads: 3\naffinity: \"" + first + "\"\n"), info).threads,
            3);

  const std::string too_many =
      "threads: " + std::to_string(allowed.size() + 1) + "\naffinity: compact\n";
  EXPECT_NE(CompilerError(too_many, "null").find("affinity 'compact' pins threads"),
            std::string::npos);
  const std::string outside = std::to_string(allowed.back() + 1);
  const std::string not_available = "names CPUs " + outside +
                                    " that are not available: this process may use CPUs " +
                                    FormatCpuList(allowed);
  EXPECT_NE(CompilerError("affinity: \"" + outside + "\"\n", "null").find(not_available),
            std::string::npos);
  EXPECT_NE(CompilerError("affinity: spread\n", "null").find("none, compact, or a CPU list"),
            std::string::npos);
  EXPECT_NE(CompilerError("affinity: [0, 1]\n", "null").find("'affinity' must be a string"),
            std::string::npos);
}

TEST_F(ConfigTest, ThreadsAutoLeavesOneCoreAndZeroIsEveryCore) {
  const CompilerInfo& info = FindCompiler("onnxruntime");
  EXPECT_EQ(ParseCompilerConfig("threads: auto\n", "a.yaml", info, 4).threads, 3);
  EXPECT_EQ(ParseCompilerConfig("precision: fp32\n", "a.yaml", info, 4).threads, 3);  // unset
  EXPECT_EQ(ParseCompilerConfig("threads: auto\n", "a.yaml", info, 1).threads, 1);
  EXPECT_EQ(ParseCompilerConfig("threads: auto\n", "a.yaml", info, 2).threads, 1);
  EXPECT_EQ(ParseCompilerConfig("threads: 0\n", "a.yaml", info, 4).threads, 4);
  EXPECT_EQ(ParseCompilerConfig("threads: 2\n", "a.yaml", info, 4).threads, 2);
  EXPECT_EQ(ParseCompilerConfig("threads: 2\n", "a.yaml", info, 4, {"threads=auto"}).threads, 3);
  EXPECT_EQ(DefaultCompilerConfig(info, 8).threads, 7);
  EXPECT_EQ(AutoThreads(0), std::max(1, AvailableCores() - 1));
}

TEST_F(ConfigTest, ThreadsAboveTheMaximumAreRefusedNotWrapped) {
  // 3000000000 wrapped to a negative int and 2^40 to 0 (every core) before the ceiling.
  for (const std::string v : {"3000000000", "1099511627776", "4097"}) {
    const std::string m = CompilerError("threads: " + v + "\n");
    EXPECT_NE(m.find("'threads' must be <= 4096 (or auto: every core but one; 0: every core), "
                     "got " + v),
              std::string::npos)
        << m;
  }
  EXPECT_EQ(LoadCompilerConfig(Write("threads: 4096\n"), FindCompiler("onnxruntime")).threads,
            4096);
}

TEST_F(ConfigTest, SettingsOnTheCommandLineGoOverTheFilesByTheirRules) {
  const std::string yaml = "threads: 2\noptions:\n  execution_mode: parallel\n";
  const CompilerConfig c = ParseCompilerConfig(
      yaml, "ort.yaml", FindCompiler("onnxruntime"), 2,
      {"threads=1", "onnxruntime.options.inter_op_threads=3", "openvino.precision=bf16"});
  EXPECT_EQ(c.threads, 1);
  EXPECT_EQ(c.options.Int("inter_op_threads"), 3);
  EXPECT_EQ(c.options.String("execution_mode"), "parallel");  // the file's, kept
  EXPECT_EQ(c.precision, "fp32");  // openvino's setting is not onnxruntime's

  ExperimentConfig e;
  ApplyExperimentSettings({"warmup=5", "batch_sizes=[1, 8]", "validity.max_ci_rel=0.1",
                           "threads=1"},
                          e);
  EXPECT_EQ(e.warmup, 5);
  EXPECT_EQ(e.batch_sizes, (std::vector<int64_t>{1, 8}));
  EXPECT_DOUBLE_EQ(e.validity.max_ci_rel, 0.1);
  EXPECT_EQ(SettingsFor({"warmup=5", "openvino.precision=bf16", "tvm.threads=1", "threads=2"},
                        "tvm"),
            (std::vector<std::string>{"warmup=5", "tvm.threads=1", "threads=2"}));

  // The same messages as the file's, naming --set.
  EXPECT_EQ(SetError({"threads=many"}, yaml, "onnxruntime", "ort.yaml"),
            "--set: 'threads' must be an integer, got 'many'");
  EXPECT_EQ(SetError({"threads=many"}, "threads: many\n", "onnxruntime", "ort.yaml"),
            "--set: 'threads' must be an integer, got 'many'");
  EXPECT_EQ(SetError({}, "threads: many\n", "onnxruntime", "ort.yaml"),
            "ort.yaml: 'threads' must be an integer, got 'many'");
  EXPECT_EQ(SetError({"warmup=-1"}, "", "onnxruntime", "ort.yaml"),
            "--set: 'warmup' must be >= 0, got -1");
  EXPECT_EQ(SetError({"precision=fp8"}, "", "onnxruntime", "ort.yaml"),
            "--set: 'precision' is 'fp8'; allowed values: fp32, int8");
  EXPECT_NE(SetError({"options.sleep_us=1"}, "", "onnxruntime", "ort.yaml")
                .find("--set: 'options.sleep_us' is not an option of compiler onnxruntime"),
            std::string::npos);
  // Items that are not settings at all.
  for (const auto& [item, message] : std::vector<std::pair<std::string, std::string>>{
           {"threads", "--set 'threads' is not KEY=VALUE"},
           {"=1", "--set '=1' is not KEY=VALUE"},
           {"thread=1", "--set 'thread=1': 'thread' is not a known key; allowed keys: "},
           {"onnxruntime.warmup=1", "'onnxruntime.warmup' is not a known key"},
           {"options=1", "'options' is not a known key"},
           {"validity.max_ci_rel.x=1", "'validity.max_ci_rel.x' is not a known key"},
           {"batch_sizes=[1", "--set 'batch_sizes=[1': not valid YAML"}}) {
    EXPECT_NE(SetError({item}, "", "onnxruntime", "ort.yaml").find(message), std::string::npos)
        << item << ": " << SetError({item}, "", "onnxruntime", "ort.yaml");
  }
  EXPECT_EQ(SetError({"threads=1", "threads=2"}, "", "onnxruntime", "ort.yaml"),
            "--set 'threads' is given twice; give each key once");
  try {
    ValidateSettings({"warmup=1", "openvino.precision=bf16"}, {"onnxruntime", "tvm"});
    ADD_FAILURE() << "a setting for a compiler the command does not run was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--set 'openvino.precision=bf16' is for compiler openvino, which this command does "
              "not run (it runs onnxruntime, tvm)");
  }
}

TEST(SettingsPrecision, IsThePrecisionEveryCompilerIsGiven) {
  EXPECT_EQ(SettingsPrecision({"warmup=3", "precision=int8"}), "int8");
  EXPECT_EQ(SettingsPrecision({"openvino.precision=bf16", "threads=1"}), "");
  EXPECT_EQ(SettingsPrecision({}), "");
  try {
    SettingsPrecision({"precision=[int8]"});
    ADD_FAILURE() << "a list was taken for a precision";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--set: 'precision'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ngraphbench
