#include "ngraphbench/runner/output_check.h"

#include <fmt/core.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "ngraphbench/core/error.h"
#include "ngraphbench/graph/intermediate.h"
#include "ngraphbench/measure/check.h"
#include "ngraphbench/measure/quant_check.h"

namespace ngraphbench::worker {

namespace {

// The check of an int8 row: cosine and SNR against the FP32 reference within the int8 bounds
// (measure/quant_check.h), with the max errors beside them; the row's figures are the worst
// stream's (lowest SNR).
void CheckInt8(const std::vector<std::vector<HostTensor>>& streams_outputs,
               const std::vector<HostTensor>& reference, ResultRow& row) {
  std::optional<QuantAccuracy> worst;
  std::optional<CheckResult> worst_errors;
  size_t worst_stream = 0;
  for (size_t i = 0; i < streams_outputs.size(); ++i) {
    QuantAccuracy accuracy = CompareQuantized(streams_outputs[i], reference);
    const bool worse = !worst || (!accuracy.mismatch.empty() && worst->mismatch.empty()) ||
                       (worst->mismatch.empty() && !(accuracy.snr_db >= worst->snr_db));
    if (worse) {
      worst = std::move(accuracy);
      worst_errors = CompareOutputs(streams_outputs[i], reference);
      worst_stream = i;
    }
  }
  if (!worst) return;
  const QuantAccuracy& a = *worst;
  const std::string stream =
      streams_outputs.size() > 1 ? fmt::format("stream {}: ", worst_stream) : std::string();
  if (!a.mismatch.empty()) {
    row.status = kStatusWrong;
    row.error = stream + "outputs do not match " + row.check_reference + "'s: " + a.mismatch;
    return;
  }
  if (worst_errors && worst_errors->mismatch.empty()) {
    row.check_max_abs_err = worst_errors->max_abs_err;
    row.check_max_rel_err = worst_errors->max_rel_err;
  }
  row.check_cosine = a.cosine;
  row.check_snr_db = a.snr_db;
  row.check_top1_agreement = a.top1_agreement;
  row.check_top5_agreement = a.top5_agreement;
  if (!WithinInt8Bounds(a)) {
    row.status = kStatusWrong;
    row.error = stream + fmt::format("int8 outputs differ from {}'s fp32 outputs: cosine {:.4f} "
                                     "(bound >= {}), SNR {:.1f} dB (bound >= {} dB)",
                                     row.check_reference, a.cosine, kInt8MinCosine, a.snr_db,
                                     kInt8MinSnrDb);
  }
}

// How the check judges `outputs` against `reference` at `precision`: within the tolerance (int8:
// the cosine and SNR bounds), and its figures as the row's error or notes quote them.
std::pair<bool, std::string> Judge(const std::vector<HostTensor>& outputs,
                                   const std::vector<HostTensor>& reference,
                                   const std::string& precision, const ResultRow& row) {
  if (precision == "int8") {
    const QuantAccuracy a = CompareQuantized(outputs, reference);
    if (!a.mismatch.empty()) return {false, a.mismatch};
    return {WithinInt8Bounds(a),
            fmt::format("cosine {:.4f} (bound >= {}), SNR {:.1f} dB (bound >= {} dB)", a.cosine,
                        kInt8MinCosine, a.snr_db, kInt8MinSnrDb)};
  }
  const CheckResult c = CompareOutputs(outputs, reference);
  if (!c.mismatch.empty()) return {false, c.mismatch};
  const bool ok = WithinTolerance(c, *row.check_tolerance);
  return {ok, fmt::format("max abs err {:.3g}, max rel err {:.3g} {} tolerance {:.3g} ({})",
                          c.max_abs_err, c.max_rel_err, ok ? "<=" : ">", *row.check_tolerance,
                          precision)};
}

void AddNote(ResultRow& row, const std::string& note) {
  row.notes += (row.notes.empty() ? "" : "; ") + note;
}

}  // namespace

void Check(const std::vector<std::vector<HostTensor>>& streams_outputs,
           const std::vector<HostTensor>& reference, const std::string& precision,
           ResultRow& row) {
  if (precision == "int8") {
    CheckInt8(streams_outputs, reference, row);
    return;
  }
  std::optional<CheckResult> worst;
  size_t worst_stream = 0;
  for (size_t i = 0; i < streams_outputs.size(); ++i) {
    CheckResult check = CompareOutputs(streams_outputs[i], reference);
    const bool worse = !worst || (!check.mismatch.empty() && worst->mismatch.empty()) ||
                       (worst->mismatch.empty() && check.max_rel_err > worst->max_rel_err);
    if (worse) {
      worst = std::move(check);
      worst_stream = i;
    }
  }
  if (!worst) return;
  const CheckResult& check = *worst;
  if (check.mismatch.empty()) {
    row.check_max_abs_err = check.max_abs_err;
    row.check_max_rel_err = check.max_rel_err;
  }
  if (!WithinTolerance(check, *row.check_tolerance)) {
    const std::string stream = streams_outputs.size() > 1
                                   ? fmt::format("stream {}: ", worst_stream)
                                   : std::string();
    row.status = kStatusWrong;
    row.error = stream +
                (!check.mismatch.empty()
                     ? "outputs do not match " + row.check_reference + "'s: " + check.mismatch
                     : fmt::format("outputs differ from {}'s: max abs err {:.3g}, max rel err "
                                   "{:.3g} > tolerance {:.3g} ({})",
                                   row.check_reference, check.max_abs_err, check.max_rel_err,
                                   *row.check_tolerance, precision));
  }
}

void JudgeCheck(const ResolvedRun& spec, const std::string& spec_path, const CompilerInfo& info,
                const BuiltModel& model, const ReferenceSet& reference, Compiler& compiler,
                int process, ResultRow& row) {
  if (row.status != kStatusOk) {
    if (row.status == kStatusWrong) row.check_verdict = "fail";
    return;
  }
  const std::string& precision = spec.config.precision;
  const InputDependence outputs =
      JudgeInputDependence(reference.outputs, reference.redrawn, spec.run.check, precision);
  if (outputs.discriminates) {
    row.check_verdict = "pass";
    return;
  }
  // Outputs that do not depend on the input agree with the reference's on their top class
  // whatever the compile did: an int8 row quotes no agreement of them.
  row.check_top1_agreement.reset();
  row.check_top5_agreement.reset();
  if (process > 0) return;
  const std::string why =
      "the model's outputs do not depend on its input (" +
      (outputs.all_zero
           ? std::string("the reference's are all 0 on two draws of inputs)")
           : fmt::format("the reference's change by at most {:.3g}, relative, between two draws "
                         "of inputs, which the check at {} passes)",
                         outputs.max_rel_change, precision));
  auto inconclusive = [&](const std::string& rest) {
    row.check_verdict = "inconclusive";
    AddNote(row, "output check inconclusive: " + why + ", " + rest +
                     ": a compile that ignored its input would pass it");
  };
  const std::vector<std::string> candidates =
      IntermediateCandidates(model.graph, kIntermediateCandidates);
  if (candidates.empty()) return inconclusive("and the graph computes no other tensor to check");
  ReferenceSet probe;
  try {
    probe = ReferenceOutputs(spec, spec_path, model.run, ProbeGraph(model.graph),
                             row.check_reference, /*probe=*/true);
  } catch (const StorageError&) {
    throw;
  } catch (const std::exception& e) {
    return inconclusive(std::string("and the reference could not compute the tensors nearest "
                                    "them (") + e.what() + ")");
  }
  size_t chosen = candidates.size();
  for (size_t i = 0; i < candidates.size() && chosen == candidates.size(); ++i) {
    if (JudgeInputDependence({probe.outputs.at(i)}, {probe.redrawn.at(i)}, spec.run.check,
                             precision)
            .discriminates) {
      chosen = i;
    }
  }
  if (chosen == candidates.size()) {
    std::string names;
    for (const std::string& c : candidates) names += (names.empty() ? "'" : ", '") + c + "'";
    return inconclusive(fmt::format("nor does any of the {} tensors nearest them ({})",
                                    candidates.size(), names));
  }
  const std::string& tensor = candidates[chosen];
  row.check_tensor = tensor;
  std::vector<HostTensor> cut_outputs;
  try {
    const Graph cut = WithOutputs(model.graph, {tensor});
    const OnnxForCompiler onnx(cut, info, spec.results_dir);
    CompileRequest request =
        onnx.Request(cut, spec.config, spec.results_dir + "/.cache", /*quick=*/true);
    const std::unique_ptr<Executable> executable = compiler.Compile(request);
    executable->SetInputs(model.inputs);
    executable->Run();
    cut_outputs = executable->GetOutputs();
  } catch (const StorageError&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    return inconclusive(fmt::format("and the tensor '{}', which does, could not be checked: "
                                    "compiling the graph cut there failed ({})",
                                    tensor, e.what()));
  }
  const auto [ok, figures] = Judge(cut_outputs, {probe.outputs.at(chosen)}, precision, row);
  if (precision == "int8") {
    // The row's accuracy is that of the tensor the check judged, not of outputs that hardly
    // change with the input (whose cosine to the reference's is near 1 whatever ran).
    const QuantAccuracy a = CompareQuantized(cut_outputs, {probe.outputs.at(chosen)});
    if (a.mismatch.empty()) {
      row.check_cosine = a.cosine;
      row.check_snr_db = a.snr_db;
    }
  }
  const std::string where = fmt::format(
      "the intermediate tensor '{}', in a second compile of the graph cut there, since {}",
      tensor, why);
  if (ok) {
    row.check_verdict = "pass";
    AddNote(row, "output check on " + where + ": " + figures);
    return;
  }
  row.check_verdict = "fail";
  row.status = kStatusWrong;
  row.error = "outputs differ from " + row.check_reference + "'s at " + where + ": " + figures;
}

}  // namespace ngraphbench::worker
