#!/usr/bin/env python3
"""The hostile inputs of the third round, each rebuilt in a temporary folder and given to the
command a user would run on it (`run`, `expand`, `analyze`, `report`, `compare`, `./sweep.sh`).

    bench/hostile_inputs.py [--binary build/ngraphbench] [--stall-drill] [--only REGEX]

Side files of the results tree that are FIFOs, links to /dev/zero, nested 20,000 and 100,000 deep
or garbage; a results path that is not UTF-8; configs of 14 MB (7,000,000 widths) and a 15 MB
description; results trees and zips for the report (FIFO traces and rows, a 3 GiB entry, repeated
and climbing entry names, null rows, bad UTF-8, "nan", 100,000 process medians, `__proto__`,
HTML in an error); values no measurement can have; names holding terminal escapes or a
spreadsheet formula; `sweep.sh --dry-run` with an unknown option or compiler. The results trees
and zips are made as tests/report/report_input_test.py makes them (its helpers are imported).

Each case runs under `/usr/bin/time -f %M` with a timeout and prints one row: its exit code, the
first line of its message, peak memory, wall time and whether anything was written (the tree it
reads, compared before and after). A case whose exit code is not the one expected (0, or 2 for
bad input), that crashed or hung, that wrote something on exit 2, or whose extra check failed is
marked "!!", and the script exits 1.

--stall-drill adds a real run of conv2d on identity (one process, a timed window of 75 s) whose
worker is stopped (SIGSTOP) for 40 s inside its timed runs, and prints the row's notes, valid
and invalid_reason: the row must be invalid with a reason that names the stall.
"""

import argparse
import csv
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "report"))
import report_input_test as rit  # noqa: E402  (the report test's builders of trees and zips)

ESCAPES = "\x1b]0;pwned\x07\x1b[31m"
FORMULA = "=cmd|' -C calc'!A0"
ONNX = os.path.join(ROOT, "fuzz", "corpus", "onnx", "conv2d_w16.onnx")
EXPERIMENTS = ("defaults:\n  batch_sizes: [1]\n  quick_batch_sizes: [1]\n  warmup: 1\n"
               "  repeats: 3\n  timeout_s: 20\n  processes: 2\n  stop: fixed\n"
               "experiments:\n  one:\n    family: linear\n    widths: [8]\n")

rows = []
bad = []


def snapshot(paths):
    """{path: (kind, size, digest)} of everything under each of paths."""
    seen = {}
    for top in paths:
        if not os.path.lexists(top):
            continue
        items = [top]
        for folder, dirs, files in os.walk(top):
            items += [os.path.join(folder, n) for n in dirs + files]
        for p in items:
            st = os.lstat(p)
            digest = ""
            if os.path.isfile(p) and not os.path.islink(p) and st.st_size < (64 << 20):
                with open(p, "rb") as f:
                    digest = hashlib.sha1(f.read()).hexdigest()
            seen[p] = (st.st_mode, st.st_size, digest)
    return seen


def printable(text):
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def case(name, argv, expect, watch=(), timeout=60, cwd=ROOT, extra=None, env=None):
    """Runs argv; records its row. expect: the exit code it must give; watch: the paths it must
    leave as they were when it exits 2; extra: (output) -> "" or what went wrong."""
    before = snapshot(watch)
    with tempfile.NamedTemporaryFile() as timing, tempfile.TemporaryFile() as out:
        started = time.monotonic()
        proc = subprocess.run(["timeout", "-s", "KILL", str(timeout), "/usr/bin/time", "-f",
                               "%M", "-o", timing.name] + argv, stdout=out, stderr=out, cwd=cwd,
                              env=env)
        wall = time.monotonic() - started
        out.seek(0)
        output = out.read().decode("utf-8", errors="replace")
        lines = open(timing.name).read().split()
        rss = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else float("nan")
    code = proc.returncode
    after = snapshot(watch)
    written = "-" if after == before else f"yes ({len(set(after.items()) ^ set(before.items()))})"
    first = next((line for line in output.splitlines()
                  if line.strip() and not line.startswith(("Command exited", "analyze:"))), "")
    first = printable(first).replace(tmp + "/", "")
    problems = []
    if code == 137 or code == 124:
        problems.append(f"hung (killed after {timeout} s)")
    elif code not in (0, 2):
        problems.append(f"exit {code}")
    elif code != expect:
        problems.append(f"expected exit {expect}")
    if code == 2 and written != "-":
        problems.append("wrote on exit 2")
    if extra and code in (0, 2):
        why = extra(output)
        if why:
            problems.append(why)
    rows.append((name, code, first, rss, wall, written, problems))
    if problems:
        bad.append(f"{name}: {'; '.join(problems)}")
    flag = "!!" if problems else "  "
    print(f"{flag} {name[:46]:46} {code:>4} {rss:7.0f} {wall:6.2f}  {written:8} "
          f"{first[:110]}" + (f"   <- {'; '.join(problems)}" if problems else ""), flush=True)
    return code, output


def fresh_configs(folder, experiments=EXPERIMENTS):
    os.makedirs(folder, exist_ok=True)
    for f in glob.glob(os.path.join(ROOT, "configs", "*.yaml")):
        shutil.copy(f, folder)
    with open(os.path.join(folder, "experiments.yaml"), "w") as f:
        f.write(experiments)
    with open(os.path.join(folder, "null.yaml"), "w") as f:
        f.write("options:\n  sleep_us: 0\n")
    return folder


def no_escape(output):
    return "raw control sequence in the output" if re.search("[\x1b\x07]", output) else ""


def side_files(binary):
    configs = fresh_configs(os.path.join(tmp, "configs"))
    results = os.path.join(tmp, "results")
    device = os.path.join(results, "local")
    claims = os.path.join(device, "null", ".claims")
    run = [binary, "run", "one", "null", "--shard", "1/1", "--configs", configs,
           "--results", results]

    def refused(name, path, make, argv=run):
        shutil.rmtree(results, ignore_errors=True)
        os.makedirs(claims)
        make(path)
        case(name, argv, 2, watch=[results], timeout=30)

    refused("FIFO as machine.json", os.path.join(device, "machine.json"), os.mkfifo)
    refused("FIFO as .machine.json.lock", os.path.join(device, ".machine.json.lock"), os.mkfifo)
    refused("FIFO as a claim", os.path.join(claims, "one_w8_b1.claim"), os.mkfifo)
    refused("FIFO as a part claim", os.path.join(claims, "one_w8_b1.p0.claim"), os.mkfifo)
    refused("machine.json -> /dev/zero", os.path.join(device, "machine.json"),
            lambda p: os.symlink("/dev/zero", p))
    for depth in (20_000, 100_000):
        def deep(p, depth=depth):
            with open(p, "w") as f:
                f.write('{"x": {"a": ' + "[" * depth + "]" * depth + "}}\n")
        refused(f"machine.json nested {depth:,} deep", os.path.join(device, "machine.json"), deep)

    # Cache entries: computed again, the run measured and checked (exit 0).
    shutil.rmtree(results, ignore_errors=True)
    subprocess.run(run, check=True, capture_output=True)

    def cache_case(name, cache, make, argv=run):
        shutil.rmtree(device, ignore_errors=True)
        for p in glob.glob(os.path.join(results, ".cache", cache, "*")):
            os.remove(p)
            make(p)

        def checked(output):
            if argv is not run:
                return ""
            with open(os.path.join(device, "null", "one_w8_b1.csv"), newline="") as f:
                row = next(csv.DictReader(f))
            if row["status"] != "ok" or not row["check_max_abs_err"]:
                return f"row {row['status']}, check_max_abs_err '{row['check_max_abs_err']}'"
            for p in glob.glob(os.path.join(results, ".cache", cache, "*")):
                if os.path.islink(p) or not os.path.isfile(p):
                    return f"{p} left as it was"
            return ""
        case(name, argv, 0, watch=[results], timeout=60, extra=checked)

    garbage = lambda p: open(p, "wb").write(b"\x5a" * 4096)  # noqa: E731
    cache_case("FIFO in .cache/macs (run --shard)", "macs", os.mkfifo)
    cache_case("FIFO in .cache/macs (expand --estimate)", "macs", os.mkfifo,
               argv=[binary, "expand", "one", "--estimate", "--compiler", "null", "--configs",
                     configs, "--results", results])
    cache_case("FIFO in .cache/reference", "reference", os.mkfifo)
    cache_case(".cache/reference entry -> /dev/zero", "reference",
               lambda p: os.symlink("/dev/zero", p))
    cache_case(".cache/reference entry: 4 KB of garbage", "reference", garbage)

    # A results path that is not UTF-8: refused before anything is made.
    bad_path = os.path.join(tmp.encode(), b"r\xff")
    case("results path not UTF-8", [binary.encode(), b"run", b"one", b"null", b"--configs",
                                    configs.encode(), b"--results", bad_path], 2,
         watch=[tmp.encode()], extra=lambda o: "results folder made"
         if os.path.lexists(bad_path) else "")


def configs_cases(binary):
    big = os.path.join(tmp, "big")
    fresh_configs(big, "experiments:\n  wide:\n    family: linear\n    widths: [" +
                  "1," * 6_999_999 + "1]\n")
    mb = os.path.getsize(os.path.join(big, "experiments.yaml")) / 1e6
    results = os.path.join(tmp, "results_cfg")
    case(f"experiments.yaml {mb:.0f} MB, 7,000,000 widths", [binary, "run", "wide", "null",
         "--configs", big, "--results", results], 2, watch=[big, results], timeout=120)
    fresh_configs(big, "experiments:\n  wide:\n    family: linear\n    description: " +
                  "x" * 15_000_000 + "\n    widths: [0]\n")
    case("description value of 15 MB, widths wrong", [binary, "run", "wide", "null", "--configs",
         big, "--results", results], 2, watch=[big, results], timeout=120,
         extra=lambda o: f"message of {len(o)} bytes" if len(o) > 4000 else "")
    fresh_configs(big, "experiments:\n  wide:\n    family: " + "x" * 15_000_000 +
                  "\n    widths: [8]\n")
    case("family value of 15 MB", [binary, "run", "wide", "null", "--configs", big,
         "--results", results], 2, watch=[big, results], timeout=120,
         extra=lambda o: f"message of {len(o)} bytes" if len(o) > 4000 else "")
    fresh_configs(big, "experiments:\n  wide:\n    family: linear\n    widths: [8]\n    " +
                  "x" * 15_000_000 + ": 1\n")
    case("key of 15 MB", [binary, "run", "wide", "null", "--configs", big,
         "--results", results], 2, watch=[big, results], timeout=120,
         extra=lambda o: f"message of {len(o)} bytes" if len(o) > 4000 else "")


def names(binary):
    configs = fresh_configs(os.path.join(tmp, "configs_names"))
    results = os.path.join(tmp, "results_names")
    folder = os.path.join(tmp, "models")
    os.makedirs(folder)
    evil = os.path.join(folder, "evil" + ESCAPES + "red.onnx")
    shutil.copy(ONNX, evil)
    common = ["--quick", "--configs", configs, "--results", results]
    case("model file named with terminal escapes", [binary, "run", evil, "null"] + common, 0,
         watch=[results], extra=no_escape)
    case("missing model named with terminal escapes",
         [binary, "run", evil.replace(".onnx", "_missing.onnx"), "null"] + common, 2,
         watch=[results], extra=no_escape)
    formula = os.path.join(folder, FORMULA + ".onnx")
    shutil.copy(ONNX, formula)

    def cell(output):
        for p in glob.glob(os.path.join(results, "local", "null", "*.csv")):
            with open(p, newline="") as f:
                for row in csv.DictReader(f):
                    if FORMULA in row.get("model", ""):
                        return "" if row["model"].startswith("'=") else \
                            f"model cell {row['model']!r}"
        return "no row of the formula-named model"
    case("model named =cmd|' -C calc'!A0", [binary, "run", formula, "null"] + common, 0,
         watch=[results], extra=cell)


def report_cases(binary):
    out = os.path.join(tmp, "report")
    os.makedirs(out)
    base = rit.make_base(binary, out)
    files = rit.base_files(base)
    null_b1 = os.path.join("local", "null", "tiny_w8_b1")

    def tree(name, edit):
        t = os.path.join(out, name)
        shutil.copytree(base, t)
        edit(t)
        return t

    def report(name, t, expect, extra=None, command="report"):
        argv = [binary, command, t, "-o", os.path.join(out, re.sub(r"\W+", "_", name) + "_" + command)]
        if command == "report":
            argv += ["--html-only", "--include-invalid"]
        return case(name, argv, expect, watch=[t], timeout=120, extra=extra)

    def fifo(t, rel):
        os.remove(os.path.join(t, rel))
        os.mkfifo(os.path.join(t, rel))

    report("report: FIFO trace", tree("fifo_trace", lambda t: fifo(
        t, null_b1 + ".latencies.csv")), 0)
    report("report: FIFO machine.json", tree("fifo_machine", lambda t: fifo(
        t, os.path.join("local", "machine.json"))), 0)
    t = tree("fifo_row", lambda t: os.mkfifo(os.path.join(t, "local", "null",
                                                            "tiny_w8_b4.csv")))
    report("analyze: FIFO named like a row", t, 2, command="analyze")
    report("report: FIFO named like a row", t, 2)

    rows_ = sorted(n for n in files if n.endswith(".csv") and not n.endswith(".latencies.csv"))
    entries = [rit.stored("results/" + n, files[n]) for n in rows_]
    bomb = rit.bomb(3072)
    path = os.path.join(out, "bomb.zip")
    rit.raw_zip(path, entries + [("results/" + null_b1 + ".latencies.csv", bomb, 8, 0, 3 << 30),
                                 ("results/local/machine.json", bomb, 8, 0, 1024)])
    report(f"report: zip {os.path.getsize(path) / 1e6:.1f} MB, 3 GiB entries", path, 0)
    for label, extra_entry in (("duplicate entry name", rit.stored(rows_[0], files[rows_[0]])),
                               ("entry '../null/x.csv'",
                                rit.stored("../null/tiny_w8_b4.csv", files[rows_[0]])),
                               ("absolute entry name",
                                rit.stored("/local/null/tiny_w8_b4.csv", files[rows_[0]]))):
        path = os.path.join(out, re.sub(r"\W", "_", label) + ".zip")
        rit.raw_zip(path, [rit.stored(n, files[n]) for n in rows_] + [extra_entry])
        report(f"analyze: zip, {label}", path, 2, command="analyze")
        report(f"report: zip, {label}", path, 2)
    proto = os.path.join(out, "proto.zip")
    rit.raw_zip(proto, [rit.stored(n.replace("/null/", "/__proto__/"),
                                   files[n].replace(b",null,", b",__proto__,"))
                        for n in rows_] + [rit.stored(n, files[n]) for n in rows_])
    def proto_shown(output):
        data = rit.page_data(os.path.join(out, "report_zip_compiler_folder___proto___report",
                                          "report.html"))
        return "" if '"__proto__"' in json.dumps(data) else "no __proto__ compiler in the page"
    report("report: zip, compiler folder __proto__", proto, 0, extra=proto_shown)

    def edit(rel, **changes):
        return lambda t: rit.edit_row(os.path.join(t, rel), **changes)

    def null_row(t):
        p50 = rit.read_rows(os.path.join(t, null_b1 + ".csv"))[0]["latency_p50_ms"]
        rit.edit_row(os.path.join(t, null_b1 + ".csv"), latency_p50_ci_low_ms=p50,
                     latency_p50_ci_high_ms=p50)
    report("report: null figure (negative error bar)", tree("null_rows", null_row), 0)

    def write(rel, data, mode="wb"):
        def go(t):
            with open(os.path.join(t, rel), mode) as f:
                f.write(data)
        return go
    report("report: machine.json not UTF-8",
           tree("bad_machine", write("local/machine.json", b'{"m": {"cpu_model": "\xff\xfe"}}')),
           0)
    report("report: trace holding \"nan\"",
           tree("nan_trace", write(null_b1 + ".latencies.csv", b"1,99999,nan\n", "ab")), 0)
    report("report: trace not UTF-8",
           tree("bad_trace", write(null_b1 + ".latencies.csv", b"\xff\xfe\n", "ab")), 0)

    def medians(t):
        p = os.path.join(t, "local", "null", "tiny_w8_b2.csv")
        rit.edit_row(p, process_p50s_ms=";".join([rit.read_rows(p)[0]["latency_p50_ms"]] *
                                                 100_000))
    report("report: 100,000 process medians", tree("medians", medians), 0)

    def html_error(t):
        row = rit.read_rows(os.path.join(t, null_b1 + ".csv"))[0]
        for k in row:
            if k.startswith(("latency_", "throughput_", "process", "check_", "phases")) or k in (
                    "first_run_ms", "cv", "iqr_rel", "compile_s", "stop_reason", "valid",
                    "invalid_reason", "timed_window_s", "cpu_util_pct", "cpu_util_norm_pct",
                    "other_cpu_pct", "rss_start_mb", "rss_peak_mb", "cpu_ms_per_inference"):
                row[k] = ""
        row.update(run_id="tiny_w8_b4", batch_size="4", input_shape="4x8", status="error",
                   error="<img src=x onerror=alert(1)> a|b `code`")
        rit.write_row(os.path.join(t, "local", "null", "tiny_w8_b4.csv"), row)

    def md_escaped(output):
        with open(os.path.join(out, "html_error_report", "report.md"), encoding="utf-8") as f:
            return "raw <img in report.md" if "<img" in f.read() else ""
    t = tree("html_error", html_error)
    case("report: HTML in an error message (report.md)",
         [binary, "report", t, "-o", os.path.join(out, "html_error_report"), "--include-invalid"],
         0, watch=[t], timeout=180, extra=md_escaped)

    # Values no measurement can have: analyze and compare refuse the row (exit 2).
    for label, changes in (("latency_p50_ms inf", dict(latency_p50_ms="inf")),
                           ("latency_p50_ms -5", dict(latency_p50_ms="-5")),
                           ("interval low -inf", dict(latency_p50_ci_low_ms="-inf")),
                           ("interval high +inf", dict(latency_p50_ci_high_ms="inf")),
                           ("interval outside the median", dict(latency_p50_ci_low_ms="1000000",
                                                                latency_p50_ci_high_ms="2000000")),
                           ("batch_size 2^63-1", dict(batch_size=str(2**63 - 1)))):
        t = tree(re.sub(r"\W", "_", label), edit(null_b1 + ".csv", **changes))
        report(f"analyze: {label}", t, 2, command="analyze")
    def latencies(value):
        def go(t):
            path = os.path.join(t, null_b1 + ".csv")
            row = rit.read_rows(path)[0]
            changes = {k: value for k in row if k.startswith("latency_") and k.endswith("_ms")}
            changes["process_p50s_ms"] = ";".join([value] * len(row["process_p50s_ms"].split(";")))
            rit.edit_row(path, **changes)
        return go
    fast, slow = tree("fast", latencies("1e-10")), tree("slow", latencies("1e300"))
    case("compare: a ratio of inf (1e300 / 1e-10 ms)", [binary, "compare", fast, slow], 0,
         watch=[fast, slow], extra=lambda o: "" if re.search(
             r"\| 1e-10 \| 1e\+300 \| inf \|.*\| undecided \|", o) else "inf not undecided")


def sweep_cases():
    results = os.path.join(tmp, "results_sweep")  # the checkout's own results/ is left alone
    for label, args, expect in (
            ("sweep.sh --dry-run --budget 12h local onnxruntime",
             ["--dry-run", "--budget", "12h", "local", "onnxruntime"], 0),
            ("sweep.sh --dry-run --bogus local onnxruntime",
             ["--dry-run", "--bogus", "local", "onnxruntime"], 2),
            ("sweep.sh --dry-run --budget 12h local nosuch",
             ["--dry-run", "--budget", "12h", "local", "nosuch"], 2),
            ("sweep.sh --dry-run local onnxruntime 12h", ["--dry-run", "local", "onnxruntime",
                                                         "12h"], 2)):
        case(label, ["./sweep.sh"] + args + ["--", "--results", results], expect,
             watch=[results, os.path.join(ROOT, "results")], timeout=120)


def stall_drill(binary):
    """conv2d (width 16) on identity, one process, a timed window of 75 s: its worker stopped
    for 40 s."""
    results = os.path.join(tmp, "results_drill")
    argv = [binary, "run", ONNX, "identity", "--processes", "1", "--results", results,
            "--set", "batch_sizes=[1]", "--set", "min_time_s=75", "--set", "max_time_s=120",
            "--set", "max_repeats=10000000", "--set", "warmup=5", "--set", "timeout_s=600"]
    started = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    worker = None
    while worker is None and time.monotonic() - started < 120 and proc.poll() is None:
        time.sleep(1)
        family, todo = [], [proc.pid]
        while todo:  # every descendant of the run
            found = subprocess.run(["pgrep", "-P", str(todo.pop())], capture_output=True,
                                   text=True).stdout.split()
            family += found
            todo += found
        for pid in family:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if b"worker" in f.read():
                        worker = int(pid)
            except OSError:
                pass
    if worker is None:
        proc.kill()
        bad.append("stall drill: no worker process found")
        return
    time.sleep(15)  # compiled, warmed up, in its timed runs (min_time_s 75)
    os.kill(worker, signal.SIGSTOP)
    time.sleep(40)
    os.kill(worker, signal.SIGCONT)
    output = proc.communicate(timeout=300)[0].decode("utf-8", errors="replace")
    print(f"\nstall drill: exit {proc.returncode}, {time.monotonic() - started:.0f} s; worker "
          f"{worker} stopped 40 s at 15 s after it started")
    print(output.strip().splitlines()[-1] if output.strip() else "")
    for p in glob.glob(os.path.join(results, "*", "identity", "*.csv")):
        if p.endswith(".latencies.csv"):
            continue
        with open(p, newline="") as f:
            for row in csv.DictReader(f):
                for k in ("run_id", "status", "valid", "invalid_reason", "notes",
                          "latency_p50_ms", "latency_mean_ms", "latency_max_ms",
                          "timed_window_s"):
                    print(f"  {k}: {row.get(k)}")
                if row.get("valid", "").lower() not in ("false", "0", "no") or "stall" not in row.get("invalid_reason", ""):
                    bad.append("stall drill: the row is not invalid for its stall")
    if proc.returncode != 0:
        bad.append(f"stall drill: run exited {proc.returncode}: {output[-300:]}")


def main():
    global tmp
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "ngraphbench"))
    parser.add_argument("--stall-drill", action="store_true")
    parser.add_argument("--only", default="", help="groups to run: side|configs|names|report|"
                        "sweep (a regex; default all)")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="ngb_hostile_")
    try:
        print(f"   {'case':46} {'exit':>4} {'peak MB':>7} {'wall s':>6}  {'written':8} "
              "first line of the message")
        groups = {"side": side_files, "configs": configs_cases, "names": names,
                  "report": report_cases, "sweep": lambda b: sweep_cases()}
        for name, run in groups.items():
            if re.search(args.only, name):
                run(binary)
        if args.stall_drill:
            stall_drill(binary)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n{len(rows)} cases, {len(bad)} failed, {time.monotonic() - started:.0f} s")
    for b in bad:
        print("!! " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    tmp = ""
    sys.exit(main())
