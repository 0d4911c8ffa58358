#!/usr/bin/env python3
"""Writes a synthetic results tree of realistic rows, for sizing the report (20,000 runs).

    bench/synthetic_results.py --template ROW.csv -o TREE|TREE.zip [--devices 5] [--seed 1]

Every row is a copy of the template row (a real row file, e.g. one `ngraphbench run ... null`
just wrote) with the columns below changed, written with the template's own header: the rows
follow whatever schema the binary writes today, and a column this script sets that the schema
no longer has stops it (exit 1) instead of writing a stale tree. Each run gets a latency trace
with the header of the template's trace (<run_id>.latencies.csv beside it), and each device the
template's machine.json when there is one. A -o ending in .zip writes the tree into a zip
under results/, as the released traces are (one file instead of 40,000: much quicker to write).

The grid: DEVICES devices x 5 compilers x 100 models (20 in each of architectures, conv_blocks,
mha_blocks, conv2d, fully_connected) x 8 batch sizes (1 to 128) = 4,000 runs a device, 20,000
with the default 5. Latencies follow L(b) = L(1)·(a + (1-a)·b^0.95) with a model's own fixed
share a, a compiler factor per model, and 3 processes whose medians spread by about 1.5 %; about
1 % of the runs crashed, timed out or failed, 0.5 % are wrong, the last device's tvm runs are
skipped (as on a GPU machine without a build for it), and a run whose interval exceeds 5 % is
invalid, as the verdict would judge it.

Beside them, on the first device, the offline and server scenarios: the 20 architectures with
every compiler at batch size 1 on 2, 4 and 8 streams (300 offline runs, each request's latency
L(1)·s·f with f in 0.7–1.0: the streams share the cores), and the first 5 with 2 streams under
the server scenario (p99 within 100 ms), once at half their capacity and once with find_peak
(its steps in <run_id>.server_steps.csv beside the row): 350 runs more.
"""

import argparse
import csv
import io
import json
import math
import os
import random
import shutil
import sys
import zipfile

COMPILERS = ("identity", "onnxruntime", "openvino", "torchscript", "tvm")
# Typical speedups over identity (the released traces' medians, roughly).
COMPILER_FACTOR = {"identity": 1.0, "onnxruntime": 0.7, "openvino": 0.6, "torchscript": 0.95,
                   "tvm": 2.0}
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128)
PROCESSES = 3
ITERATIONS = 10  # timed runs per process in the trace (a quick run's minimum)
ARCHITECTURES = ("resnet", "efficientnet", "deit", "swin", "convnext")
OFFLINE_STREAMS = (2, 4, 8)
SERVER_MODELS = 5  # the first architectures, under the server scenario
SERVER_BOUND_MS, SERVER_PERCENTILE = 100, 99
STEPS_HEADER = ("step,target_qps,achieved_qps,latency_p50_ms,latency_at_percentile_ms,bound_met,"
                "valid,invalid_reason,queries_issued,queries_completed")


def models():
    """(experiment, model, family, width, depth, size) for the 100 models."""
    out = []
    for k in range(20):
        family = ARCHITECTURES[k % 5]
        out.append(("architectures", f"{family}_v{k}", family, "", "", str(k // 5)))
    for experiment in ("conv_blocks", "mha_blocks"):
        for width in (16, 32, 64, 128):
            for depth in (1, 2, 4, 8, 16):
                out.append((experiment, f"{experiment}_w{width}_d{depth}", experiment,
                            str(width), str(depth), ""))
    for experiment in ("conv2d", "fully_connected"):
        for k in range(20):
            width = 16 * (k + 1)
            out.append((experiment, f"{experiment}_w{width}", experiment, str(width), "", ""))
    return out


def g(value):
    return f"{value:.9g}"


def percentile(sorted_values, p):
    position = p * (len(sorted_values) - 1)
    low = int(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


class Writer:
    def __init__(self, template_path, out):
        with open(template_path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            self.header = reader.fieldnames
            self.template = next(reader)
        trace_path = template_path[:-len(".csv")] + ".latencies.csv"
        with open(trace_path, newline="", encoding="utf-8") as f:
            self.trace_header = next(csv.reader(f))
        if self.trace_header[-1] != "latency_ns" or self.trace_header[0] != "process":
            sys.exit(f"{trace_path}: expected a trace of process,...,latency_ns lines, got "
                     f"{','.join(self.trace_header)}; update bench/synthetic_results.py")
        machine = os.path.join(os.path.dirname(os.path.dirname(template_path)), "machine.json")
        self.machine = machine if os.path.exists(machine) else None
        self.out = out
        if os.path.isdir(out):
            shutil.rmtree(out)
        elif os.path.exists(out):
            os.remove(out)
        self.zip = zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) \
            if out.endswith(".zip") else None

    def _put(self, relative, text):
        if self.zip is not None:
            self.zip.writestr("results/" + relative, text)
            return
        path = os.path.join(self.out, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)

    def close(self):
        if self.zip is not None:
            self.zip.close()

    def write(self, row, trace):
        unknown = sorted(set(row) - set(self.header))
        if unknown:
            sys.exit(f"bench/synthetic_results.py: the row schema has no {', '.join(unknown)} "
                     "(the template's header changed); update this script")
        full = dict(self.template, **row)
        folder = f"{row['device']}/{row['compiler']}/{row['run_id']}"
        text = io.StringIO()
        w = csv.writer(text, lineterminator="\n")
        w.writerow(self.header)
        w.writerow([full[c] for c in self.header])
        self._put(folder + ".csv", text.getvalue())
        if trace:
            lines = [",".join(self.trace_header)]
            middle = len(self.trace_header) - 2  # iteration (and whatever a newer schema adds)
            for process, iteration, ns in trace:
                lines.append(",".join([str(process)] + [str(iteration)] * middle + [str(ns)]))
            self._put(folder + ".latencies.csv", "\n".join(lines) + "\n")

    def steps(self, row, lines):
        """A find_peak run's steps file beside its row (results/server_steps.h)."""
        folder = f"{row['device']}/{row['compiler']}/{row['run_id']}"
        self._put(folder + ".server_steps.csv", "\n".join([STEPS_HEADER] + lines) + "\n")

    def machine_json(self, device, machine_id):
        entry = {}
        if self.machine:
            with open(self.machine, encoding="utf-8") as f:
                entry = next(iter(json.load(f).values()))
        entry = dict(entry, machine_id=machine_id)
        self._put(f"{device}/machine.json",
                  json.dumps({machine_id: entry}, indent=2, sort_keys=True) + "\n")


def run_row(rng, device, device_factor, compiler, spec, batch, cost, fixed, factor, skipped):
    experiment, model, family, width, depth, size = spec
    row = {"run_id": f"{model}_b{batch}", "experiment": experiment, "model": model,
           "family": family, "size": size, "width": width, "depth": depth,
           "batch_size": str(batch), "input_shape": f"{batch}x3x224x224", "compiler": compiler,
           "device": device, "threads": "1", "precision": "fp32",
           "config_hash": f"{rng.getrandbits(64):016x}", "machine_id": f"synthetic{device[-1]}",
           "compiler_version": f"{compiler} 1.0 (synthetic)", "host": device,
           "timestamp": "2026-01-01T00:00:00Z", "notes": "synthetic row (bench/synthetic_results.py)"}
    empty_numbers = ("build_s", "compile_s", "first_run_ms", "latency_mean_ms", "latency_std_ms",
                     "latency_min_ms", "latency_p50_ms", "latency_p90_ms", "latency_p95_ms",
                     "latency_p99_ms", "latency_max_ms", "cv", "latency_p50_ci_low_ms",
                     "latency_p50_ci_high_ms", "latency_p50_within_ci_low_ms",
                     "latency_p50_within_ci_high_ms", "iqr_rel", "throughput_median_sps",
                     "throughput_mean_sps", "cpu_util_pct", "cpu_util_norm_pct", "rss_start_mb",
                     "rss_peak_mb", "other_cpu_pct", "cpu_ms_per_inference", "timed_window_s",
                     "energy_j", "power_w", "check_max_abs_err", "check_max_rel_err")
    row.update({c: "" for c in empty_numbers})
    row.update(process_p50s_ms="", processes="", valid="", invalid_reason="", error="")
    if skipped:
        row.update(status="skipped", error="tvm: no cuda build on this machine (synthetic)")
        return row, None
    fate = rng.random()
    if fate < 0.01:
        status = rng.choice(("crashed", "timeout", "error"))
        row.update(status=status, error={
            "crashed": "worker killed by signal 11 (SIGSEGV) (synthetic)",
            "timeout": "run exceeded the timeout of 600 s (synthetic)",
            "error": "compile: unsupported operator (synthetic)"}[status])
        return row, None
    ms = cost * device_factor * factor * (fixed + (1 - fixed) * batch ** 0.95)
    medians = [ms * math.exp(rng.gauss(0, 0.015)) for _ in range(PROCESSES)]
    trace = []
    for process, median in enumerate(medians):
        for iteration in range(ITERATIONS):
            value = median * math.exp(rng.gauss(0, 0.02)) * (1.3 if rng.random() < 0.05 else 1)
            trace.append((process, iteration, max(1, int(value * 1e6))))
    samples = sorted(ns / 1e6 for _, _, ns in trace)
    p50 = percentile(samples, 0.5)
    mean = sum(samples) / len(samples)
    std = math.sqrt(sum((s - mean) ** 2 for s in samples) / (len(samples) - 1))
    logs = [math.log(m) for m in medians]
    log_mean = sum(logs) / len(logs)
    log_sd = math.sqrt(sum((v - log_mean) ** 2 for v in logs) / (len(logs) - 1))
    half = 4.303 * log_sd / math.sqrt(PROCESSES)  # Student's t, 2 degrees of freedom
    rel = math.exp(half) - 1
    status = "wrong" if rng.random() < 0.005 else "ok"
    row.update(
        status=status, compile_s=g(rng.lognormvariate(math.log(0.05 if compiler == "identity"
                                                                 else 2.0), 0.8)),
        build_s=g(rng.uniform(0.01, 0.2)), first_run_ms=g(p50 * rng.uniform(1.2, 6)),
        latency_mean_ms=g(mean), latency_std_ms=g(std), latency_min_ms=g(samples[0]),
        latency_p50_ms=g(p50), latency_p90_ms=g(percentile(samples, 0.9)),
        latency_p95_ms=g(percentile(samples, 0.95)), latency_p99_ms=g(percentile(samples, 0.99)),
        latency_max_ms=g(samples[-1]), cv=g(std / mean), iqr_rel=g(
            (percentile(samples, 0.75) - percentile(samples, 0.25)) / p50),
        latency_p50_ci_low_ms=g(p50 * math.exp(-half)),
        latency_p50_ci_high_ms=g(p50 * math.exp(half)),
        latency_p50_within_ci_low_ms=g(p50 * 0.99), latency_p50_within_ci_high_ms=g(p50 * 1.01),
        processes=str(PROCESSES), process_p50s_ms=";".join(g(m) for m in medians),
        throughput_median_sps=g(1000 * batch / p50), throughput_mean_sps=g(1000 * batch / mean),
        cpu_util_pct=g(rng.uniform(90, 100)), cpu_util_norm_pct=g(rng.uniform(45, 50)),
        rss_start_mb=g(rng.uniform(100, 300)), rss_peak_mb=g(rng.uniform(150, 400) + batch * 2),
        other_cpu_pct=g(rng.uniform(0, 30)), cpu_ms_per_inference=g(p50 * rng.uniform(0.95, 1.05)),
        timed_window_s=g(samples[-1] * len(samples) / 1000), check_max_abs_err=g(1e-6),
        check_max_rel_err=g(1e-7))
    if device.endswith("0"):  # the first device has RAPL counters
        watts = rng.uniform(20, 60)
        row.update(power_w=g(watts), energy_j=g(watts * float(row["timed_window_s"])))
    if status == "wrong":
        row.update(error="output check: max abs error 0.37 > tolerance 0.0001 (synthetic)",
                   check_max_abs_err="0.37")
    if rel > 0.05:
        row.update(valid="false", invalid_reason=f"interval +-{100 * rel:.3g}% > max_ci_rel 5%")
    else:
        row.update(valid="true")
    return row, trace


def scenario_row(rng, device, compiler, spec, run_id, scenario, streams, latencies_ms, window_s,
                 extra):
    """An ok row of scenario offline or server at batch size 1 over `latencies_ms` (one per
    request), measured in one process: its trace, and `extra`'s columns."""
    experiment, model, family, width, depth, size = spec
    samples = sorted(latencies_ms)
    p50 = percentile(samples, 0.5)
    mean = sum(samples) / len(samples)
    std = math.sqrt(sum((v - mean) ** 2 for v in samples) / (len(samples) - 1))
    row = {"run_id": run_id, "experiment": experiment, "model": model, "family": family,
           "size": size, "width": width, "depth": depth, "batch_size": "1",
           "input_shape": "1x3x224x224", "compiler": compiler, "device": device, "threads": "1",
           "precision": "fp32", "scenario": scenario, "streams": str(streams),
           "threads_per_stream": "1", "config_hash": f"{rng.getrandbits(64):016x}",
           "machine_id": f"synthetic{device[-1]}", "compiler_version": f"{compiler} 1.0 (synthetic)",
           "host": device, "timestamp": "2026-01-01T00:00:00Z", "status": "ok", "error": "",
           "notes": "synthetic row (bench/synthetic_results.py)", "valid": "true",
           "invalid_reason": "", "processes": "1", "process_p50s_ms": g(p50),
           "latency_mean_ms": g(mean), "latency_std_ms": g(std), "latency_min_ms": g(samples[0]),
           "latency_p50_ms": g(p50), "latency_p90_ms": g(percentile(samples, 0.9)),
           "latency_p95_ms": g(percentile(samples, 0.95)),
           "latency_p99_ms": g(percentile(samples, 0.99)), "latency_max_ms": g(samples[-1]),
           "cv": g(std / mean), "latency_p50_ci_low_ms": "", "latency_p50_ci_high_ms": "",
           "latency_p50_within_ci_low_ms": "", "latency_p50_within_ci_high_ms": "",
           "throughput_median_sps": "", "throughput_mean_sps": "", "timed_window_s": g(window_s),
           "cpu_util_pct": g(rng.uniform(90, 100) * streams), "compile_s": g(rng.uniform(0.05, 3)),
           "first_run_ms": g(p50 * rng.uniform(1.2, 6))}
    row.update(extra)
    trace = [(0, i, max(1, int(v * 1e6))) for i, v in enumerate(latencies_ms)]
    return row, trace


def offline_run(rng, device, compiler, spec, streams, one_ms):
    """An offline run at batch 1 on `streams` streams of a model whose batch-1 latency is one_ms."""
    request_ms = one_ms * streams * rng.uniform(0.7, 1.0)
    latencies = [request_ms * math.exp(rng.gauss(0, 0.03)) for _ in range(10 * streams)]
    samples_per_s = 1000 * streams / request_ms
    return scenario_row(rng, device, compiler, spec, f"{spec[1]}_b1_offline_s{streams}", "offline",
                        streams, latencies, len(latencies) / samples_per_s,
                        {"samples_per_s": g(samples_per_s)})


def server_step(rng, qps, capacity_qps, one_ms):
    """One rate: (step columns but the number, the latencies of its queries). An M/M/1-like
    queue: the latency grows as 1 / (1 - load) and breaks past the capacity."""
    load = qps / capacity_qps
    queries = max(100, int(qps * 10))
    scale = one_ms / (1 - load) if load < 0.97 else one_ms * 40 * load
    latencies = sorted(scale * rng.expovariate(1.0) + one_ms for _ in range(queries))
    completed = queries if load < 1 else int(queries * rng.uniform(0.8, 0.95))
    at = percentile(latencies, SERVER_PERCENTILE / 100)
    achieved = min(qps, capacity_qps) * rng.uniform(0.97, 1.0)
    met = at <= SERVER_BOUND_MS and completed == queries
    return dict(target_qps=qps, achieved_qps=achieved, p50=percentile(latencies, 0.5), at=at,
                met=met, issued=queries, completed=completed), latencies


def server_runs(rng, writer, device, compiler, spec, one_ms):
    """A run at half the capacity of 2 streams, and a find_peak search from a tenth of it,
    doubling until the bound breaks and then halving the gap, as FindPeak does."""
    capacity = 2 * 1000 / one_ms
    columns = {"latency_bound_ms": g(SERVER_BOUND_MS), "latency_percentile": g(SERVER_PERCENTILE),
               "issue_delay_p99_ms": g(rng.uniform(0.01, 0.2))}

    def row_of(run_id, step, latencies, extra):
        return scenario_row(rng, device, compiler, spec, run_id, "server", 2, latencies,
                            step["completed"] / step["achieved_qps"], dict(
                                columns, target_qps=g(step["target_qps"]),
                                achieved_qps=g(step["achieved_qps"]),
                                samples_per_s=g(step["achieved_qps"]),
                                latency_at_percentile_ms=g(step["at"]),
                                bound_met="true" if step["met"] else "false",
                                queries_issued=str(step["issued"]),
                                queries_completed=str(step["completed"]), **extra))

    rate = round(capacity / 2)
    step, latencies = server_step(rng, rate, capacity, one_ms)
    writer.write(*row_of(f"{spec[1]}_b1_server_s2_q{rate}", step, latencies, {}))
    steps, low, high, qps = [], None, None, capacity / 10
    for _ in range(12):
        step, latencies = server_step(rng, qps, capacity, one_ms)
        steps.append((step, latencies))
        if step["met"]:
            low = qps
        else:
            high = qps
        if high is None:
            qps *= 2
        elif low is None:
            qps /= 2
        elif (high - low) / low <= 0.05:
            break
        else:
            qps = (low + high) / 2
    met = [s for s in steps if s[0]["met"]]
    reported = max(met, key=lambda s: s[0]["target_qps"]) if met else steps[-1]
    run_id = f"{spec[1]}_b1_server_s2_peak"
    row, trace = row_of(run_id, reported[0], reported[1], {
        "peak_qps": g(reported[0]["target_qps"]) if met else "", "peak_steps": str(len(steps))})
    if not met:
        row.update(valid="false", invalid_reason="server: find_peak found no rate that met the "
                   "bound (synthetic)")
    writer.write(row, trace)
    writer.steps(row, [",".join([str(k + 1), g(s["target_qps"]), g(s["achieved_qps"]), g(s["p50"]),
                                 g(s["at"]), "true" if s["met"] else "false", "true", "",
                                 str(s["issued"]), str(s["completed"])])
                       for k, (s, _) in enumerate(steps)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--template", required=True, help="a real row file: <run_id>.csv")
    parser.add_argument("-o", "--out", required=True, help="the tree to write (replaced)")
    parser.add_argument("--devices", type=int, default=5, help="4,000 runs each")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    writer = Writer(args.template, args.out)
    rng = random.Random(args.seed)
    specs = models()
    cost = {s[1]: math.exp(rng.uniform(math.log(0.05), math.log(200))) for s in specs}
    fixed = {s[1]: rng.uniform(0.05, 0.7) for s in specs}
    runs = 0
    for d in range(args.devices):
        device = f"synthetic-{d}"
        writer.machine_json(device, f"synthetic{d}")
        device_factor = 0.5 + d * 0.4
        for compiler in COMPILERS:
            for spec in specs:
                factor = COMPILER_FACTOR[compiler] * math.exp(rng.gauss(0, 0.3)) \
                    if compiler != "identity" else 1.0
                skipped = compiler == "tvm" and d == args.devices - 1 and args.devices > 1
                for batch in BATCHES:
                    row, trace = run_row(rng, device, device_factor, compiler, spec, batch,
                                         cost[spec[1]], fixed[spec[1]], factor, skipped)
                    writer.write(row, trace)
                    runs += 1
                if d != 0 or spec[0] != "architectures":
                    continue
                one_ms = cost[spec[1]] * device_factor * factor
                for streams in OFFLINE_STREAMS:
                    writer.write(*offline_run(rng, device, compiler, spec, streams, one_ms))
                    runs += 1
                if specs.index(spec) < SERVER_MODELS:
                    server_runs(rng, writer, device, compiler, spec, one_ms)
                    runs += 2
    writer.close()
    print(f"synthetic_results.py: {runs} runs in {args.out}")


if __name__ == "__main__":
    main()
