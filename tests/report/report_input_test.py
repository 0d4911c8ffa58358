#!/usr/bin/env python3
"""Hostile inputs to `ngraphbench report`, and to the analyze it runs first: the report reads
what analyze reads by the same rules and never crashes on what analyze accepted.

    report_input_test.py NGRAPHBENCH SOURCE_DIR OUT_DIR

From the rows and traces of a `ngraphbench run tiny null` here, it makes and checks:
  - a FIFO as a trace and as machine.json: the report ends (exit 0), names both, leaves them out;
  - a FIFO named like a row: analyze and report refuse it (exit 2), naming it;
  - a zip of a few MB whose trace and machine.json entries inflate to 3 GiB (one declares it, one
    declares 1 KiB): left out, named, the report's peak memory far below the entries' size;
  - a zip with two entries of one name, one with a '../' name, one with an absolute name:
    refused (exit 2) by analyze, and by the report's own reader;
  - a tree that analyze accepts and the report used to crash on (exit 3): a throughput rounded
    just outside its interval (a negative error bar), 100,000 process medians in a row,
    machine.json with bytes that are not UTF-8 and one nested 200,000 deep, traces with such bytes
    and with "nan", a "$" in a model name, an error message holding HTML and Markdown, a model
    named like a spreadsheet formula, terminal control sequences in a folder's name: the report is
    written (exit 0) with every such text escaped in report.md, the formula-like name shown as
    itself, the control sequences shown as bytes on stderr.
Prints, per case, the exit status, the first line of the message, peak memory and wall time.
Exit 0 when every check passed, 1 otherwise.
"""

import argparse
import csv
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import warnings
import zlib

failures = []
measured = []
# A model name a spreadsheet would evaluate, and its CSV cell as the tool writes it.
FORMULA = "=cmd|' -C calc'!A0"
FORMULA_CELL = "'" + FORMULA
# A window title, red text and the bell, in a folder's name.
ESCAPES = "\x1b]0;pwned\x07\x1b[31m"


def check(ok, what):
    print(("ok:   " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def run(argv, name, timeout_s=120):
    """(exit status, or None when it ran past timeout_s and was killed; stderr) of argv; its
    peak memory (wait4's: the process's or its largest waited-for child's, the report's Python)
    and wall time are recorded under name."""
    started = time.monotonic()
    with open(os.devnull, "wb") as devnull, tempfile.TemporaryFile() as err_file:
        proc = subprocess.Popen(argv, stdout=devnull, stderr=err_file)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > timeout_s:
                proc.kill()
                os.wait4(proc.pid, 0)
                proc.returncode = -9
                measured.append((name, "hung", "(killed)", 0, time.monotonic() - started))
                return None, ""
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - started
        err_file.seek(0)
        err = err_file.read().decode("utf-8", errors="replace")
    first = next((line for line in err.splitlines() if not line.startswith("analyze:")), "")
    measured.append((name, proc.returncode, first, usage.ru_maxrss, wall))
    return proc.returncode, err


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_row(path, row):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row), lineterminator="\n")
        w.writeheader()
        w.writerow(row)


def edit_row(path, **changes):
    row = read_rows(path)[0]
    row.update(changes)
    write_row(path, row)


def page_data(html):
    with open(html, encoding="utf-8") as f:
        text = f.read()
    found = re.search(r'<script type="application/json" id="ngb-data">(.*?)</script>', text, re.S)
    return json.loads(found.group(1))


def bomb(size_mib):
    """A raw deflate stream of size_mib MiB of zero bytes, about 1 KB a MiB: one fully flushed
    block repeated (each starts afresh), then an empty final block."""
    one = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = one.compress(bytes(1 << 20)) + one.flush(zlib.Z_FULL_FLUSH)
    return block * size_mib + b"\x03\x00"


def raw_zip(path, entries):
    """A zip of (name, data, method, crc, declared size) entries written as given: sizes and
    CRCs may lie, names may repeat or climb."""
    out, central = io.BytesIO(), []
    for name, data, method, crc, size in entries:
        offset = out.tell()
        encoded = name.encode()
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, method, 0, 0x21, crc,
                              len(data), size, len(encoded), 0) + encoded + data)
        central.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, method, 0, 0x21,
                                   crc, len(data), size, len(encoded), 0, 0, 0, 0, 0, offset)
                       + encoded)
    start = out.tell()
    for record in central:
        out.write(record)
    out.write(struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, len(central), len(central),
                          out.tell() - start, start, 0))
    with open(path, "wb") as f:
        f.write(out.getvalue())


def stored(name, data):
    return (name, data, 0, zlib.crc32(data), len(data))


def make_base(binary, out):
    """A results tree of two ok rows (batch 1 and 2) with their traces and machine.json."""
    work = os.path.join(out, "null")
    os.makedirs(os.path.join(work, "configs"))
    with open(os.path.join(work, "configs", "experiments.yaml"), "w") as f:
        f.write("defaults:\n  batch_sizes: [1, 2]\n  quick_batch_sizes: [1, 2]\n  warmup: 1\n"
                "  repeats: 20\n  processes: 2\n  timeout_s: 60\n"
                "experiments:\n  tiny:\n    family: linear\n    widths: [8]\n")
    with open(os.path.join(work, "configs", "null.yaml"), "w") as f:
        f.write("options:\n  sleep_us: 20\n")
    subprocess.run([binary, "run", "tiny", "null", "--quick", "--configs",
                    os.path.join(work, "configs"), "--results", os.path.join(work, "results")],
                   check=True, capture_output=True)
    base = os.path.join(out, "base")
    os.makedirs(os.path.join(base, "local", "null"))
    shutil.copy(os.path.join(work, "results", "local", "machine.json"),
                os.path.join(base, "local"))
    for b in (1, 2):
        for suffix in (".csv", ".latencies.csv"):
            shutil.copy(os.path.join(work, "results", "local", "null", f"tiny_w8_b{b}{suffix}"),
                        os.path.join(base, "local", "null"))
    return base


def base_files(base):
    """{relative path: bytes} of the base tree."""
    out = {}
    for folder, _, files in os.walk(base):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, base)] = f.read()
    return out


def fifo_side_files(binary, base, out):
    tree = os.path.join(out, "fifo_trace")
    shutil.copytree(base, tree)
    trace = os.path.join(tree, "local", "null", "tiny_w8_b1.latencies.csv")
    machine = os.path.join(tree, "local", "machine.json")
    for path in (trace, machine):
        os.remove(path)
        os.mkfifo(path)
    report = os.path.join(out, "fifo_trace_report")
    rc, err = run([binary, "report", tree, "-o", report, "--html-only", "--include-invalid"],
                  "FIFO as a trace and as machine.json (directory)", timeout_s=60)
    check(rc == 0, f"a FIFO trace and machine.json: the report ends, exit 0 (got {rc})")
    check(re.search(f"trace '{re.escape(trace)}' is (a FIFO, )?not a regular file", err) and
          re.search(f"machine.json '{re.escape(machine)}' is (a FIFO, )?not a regular file", err),
          "both FIFOs named on stderr as not regular files")
    if rc == 0:
        data = page_data(os.path.join(report, "report.html"))
        runs = data["runs"]["cols"]["run_id"]
        runs = runs if isinstance(runs, list) else [runs["dict"][c] for c in runs["codes"]]
        dists = dict(zip(runs, data["dists"]))
        check(dists["tiny_w8_b1"] is None and dists["tiny_w8_b2"] is not None,
              "the FIFO trace's run has no distribution, the other run keeps its own")
        check("(unreadable)" in data["machines"]["local"] and data["left_out_count"] == 2,
              "the page shows machine.json unreadable and lists the 2 files left out")


def fifo_row(binary, base, out):
    tree = os.path.join(out, "fifo_row")
    shutil.copytree(base, tree)
    row = os.path.join(tree, "local", "null", "tiny_w8_b4.csv")
    os.mkfifo(row)
    for command in ("analyze", "report"):
        rc, err = run([binary, command, tree, "-o", os.path.join(out, f"fifo_row_{command}")],
                      f"FIFO named like a row: {command}", timeout_s=60)
        check(rc == 2 and re.search(f"result file '{re.escape(row)}' is (a FIFO, )?not a regular "
                                    "file", err) is not None,
              f"a FIFO named like a row: {command} refuses it, exit 2 (got {rc}: {err[:200]!r})")


def zip_bombs(binary, files, out):
    path = os.path.join(out, "bombs.zip")
    three_gib = bomb(3072)
    entries = [stored("results/" + name, data) for name, data in sorted(files.items())
               if name.endswith(".csv") and not name.endswith(".latencies.csv")]
    crc = zlib.crc32(b"")  # never reached: the entries are refused before their end
    entries += [("results/local/null/tiny_w8_b1.latencies.csv", three_gib, 8, crc, 3 << 30),
                ("results/local/null/tiny_w8_b2.latencies.csv", three_gib, 8, crc, 1024),
                ("results/local/machine.json", three_gib, 8, crc, 3 << 30)]
    raw_zip(path, entries)
    report = os.path.join(out, "bombs_report")
    rc, err = run([binary, "report", path, "-o", report, "--html-only", "--include-invalid"],
                  f"zip of {os.path.getsize(path) / 1e6:.1f} MB, entries inflating to 3 GiB",
                  timeout_s=120)
    rss_mb = measured[-1][3] / 1024
    check(rc == 0, f"3 GiB trace and machine.json entries: the report ends, exit 0 (got {rc}; "
          f"{err[-300:]!r})")
    check(f"trace '{path}:results/local/null/tiny_w8_b1.latencies.csv': the entry claims "
          f"{3 << 30} bytes" in err and
          f"machine.json '{path}:results/local/machine.json': the entry claims" in err and
          f"'{path}:results/local/null/tiny_w8_b2.latencies.csv'" in err,
          "each entry named on stderr, the declared 3 GiB refused before inflating")
    check(rss_mb < 500, f"peak memory {rss_mb:.0f} MB (< 500 MB: the entries are never held)")


def zip_names(binary, files, out):
    rows = sorted(n for n in files if n.endswith(".csv") and not n.endswith(".latencies.csv"))
    one = files[rows[0]]
    cases = {
        "duplicate": [stored(n, files[n]) for n in rows] + [stored(rows[0], one)],
        "dotdot": [stored(n, files[n]) for n in rows] + [stored("../null/tiny_w8_b4.csv", one)],
        "absolute": [stored(n, files[n]) for n in rows] +
                    [stored("/local/null/tiny_w8_b4.csv", one)],
    }
    expected = {"duplicate": f"two entries are named '{rows[0]}'",
                "dotdot": "entry '../null/tiny_w8_b4.csv' is not a plain relative path",
                "absolute": "entry '/local/null/tiny_w8_b4.csv' is not a plain relative path"}
    import results_io
    for case, entries in cases.items():
        path = os.path.join(out, f"{case}.zip")
        raw_zip(path, entries)
        for command in ("analyze", "report"):
            rc, err = run([binary, command, path, "-o", os.path.join(out, f"{case}_{command}")],
                          f"zip entry names: {case}, {command}", timeout_s=60)
            check(rc == 2 and expected[case] in err,
                  f"zip with a {case} entry name: {command} refuses it, exit 2 (got {rc}: "
                  f"{err[:200]!r})")
        try:
            results_io.Tree(path)
            refused = ""
        except results_io.InputError as e:
            refused = str(e)
        check(expected[case] in refused,
              f"zip with a {case} entry name: the report's reader refuses it ({refused[:120]!r})")


def accepted_by_analyze(binary, base, out):
    """Inputs analyze accepts on which the report crashed: now written, escaped."""
    tree = os.path.join(out, "hostile")
    shutil.copytree(base, tree)
    folder = os.path.join(tree, "local", "null")
    b1, b2 = (os.path.join(folder, f"tiny_w8_b{b}.csv") for b in (1, 2))
    p50 = read_rows(b1)[0]["latency_p50_ms"]
    # The interval ends at the median: the rounded throughput then lies a hair outside its own.
    edit_row(b1, latency_p50_ci_low_ms=p50, latency_p50_ci_high_ms=p50)
    edit_row(b2, process_p50s_ms=";".join([read_rows(b2)[0]["latency_p50_ms"]] * 100000))
    row = read_rows(b1)[0]
    error = "<img src=x onerror=alert(1)> a|b \\| `code` & *bold* [link](http://x)"
    for k in row:
        if k.startswith(("latency_", "throughput_", "process", "check_max", "phases")) or \
                k in ("first_run_ms", "cv", "iqr_rel", "compile_s", "stop_reason", "valid",
                      "invalid_reason", "timed_window_s", "cpu_util_pct", "cpu_util_norm_pct",
                      "other_cpu_pct", "rss_start_mb", "rss_peak_mb", "cpu_ms_per_inference"):
            row[k] = ""
    row.update(run_id="tiny_w8_b4", batch_size="4", input_shape="4x8", status="error",
               error=error)
    write_row(os.path.join(folder, "tiny_w8_b4.csv"), row)
    with open(os.path.join(tree, "local", "machine.json"), "wb") as f:
        f.write(b'{"m": {"cpu_model": "\xff\xfe"}}')
    with open(os.path.join(folder, "tiny_w8_b1.latencies.csv"), "ab") as f:
        f.write(b"\xff\xfe\n")
    with open(os.path.join(folder, "tiny_w8_b2.latencies.csv"), "ab") as f:
        f.write(b"1,99999,nan\n")
    # A second device: machine.json nested 200,000 deep, a "$" in the model's name.
    dev2 = os.path.join(tree, "dev2", "null")
    os.makedirs(dev2)
    for b in (1, 2):
        shutil.copy(os.path.join(base, "local", "null", f"tiny_w8_b{b}.csv"), dev2)
        edit_row(os.path.join(dev2, f"tiny_w8_b{b}.csv"), device="dev2", model="tiny$\\frac{$w8")
    with open(os.path.join(tree, "dev2", "machine.json"), "w") as f:
        f.write('{"m": ' + "[" * 200000 + "]" * 200000 + "}")
    # A third: a model named like a spreadsheet formula, as the tool writes it (a single quote
    # in front, docs/results.md); the report shows the name itself. Its folder's name holds
    # terminal control sequences, and a bad trace there is named in a warning: shown as bytes.
    dev3 = os.path.join(tree, "dev3" + ESCAPES, "null")
    os.makedirs(dev3)
    for b in (1, 2):
        shutil.copy(os.path.join(base, "local", "null", f"tiny_w8_b{b}.csv"), dev3)
        edit_row(os.path.join(dev3, f"tiny_w8_b{b}.csv"), device="dev3", model=FORMULA_CELL)
    with open(os.path.join(dev3, "tiny_w8_b1.latencies.csv"), "w") as f:
        f.write("not a trace\n")

    rc, err = run([binary, "analyze", tree, "-o", os.path.join(out, "hostile_analyze"),
                   "--include-invalid"], "inputs analyze accepts: analyze")
    check(rc == 0, f"analyze accepts the hostile tree (exit {rc}: {err[:200]!r})")
    report = os.path.join(out, "hostile_report")
    rc, err = run([binary, "report", tree, "-o", report, "--include-invalid"],
                  "inputs analyze accepts: report (static and interactive)")
    check(rc == 0, f"the report is written, exit 0 (got {rc}: {err[-400:]!r})")
    if rc != 0:
        return
    check("is not UTF-8 text" in err and "nested deeper than" in err and "nan')" in err and
          "('\ufffd\ufffd')" in err, "the machine.json and trace problems named on stderr")
    with open(os.path.join(report, "report.md"), encoding="utf-8") as f:
        md = f.read()
    failed = next((line for line in md.splitlines() if "onerror" in line), "")
    check("<img" not in md and "&lt;img src=x onerror=alert(1)&gt; a\\|b \\\\\\| \\`code\\` "
          "&amp; \\*bold\\* \\[link\\](http://x)" in failed,
          f"report.md's failures table shows the error as text ({failed[-90:]!r})")
    data = page_data(os.path.join(report, "report.html"))
    check(all("(unreadable)" in data["machines"][d] for d in ("local", "dev2")),
          "both machine.json shown as unreadable in the page")
    check(data["left_out_count"] == 5, f"5 files left out, listed in the page "
          f"({data['left_out_count']})")
    check("\x1b" not in err and "\x07" not in err and
          "dev3\\x1b]0;pwned\\x07\\x1b[31m/null/tiny_w8_b1.latencies.csv" in err,
          "terminal control sequences in a path the report names are shown as bytes")
    shown = json.dumps(data, ensure_ascii=False)
    check(json.dumps(FORMULA)[1:-1] in shown and json.dumps(FORMULA_CELL)[1:-1] not in shown,
          "a formula-like model name is shown as itself, without the quote its CSV cell has")


def trace_rules(source):
    """The report's trace reader keeps the C++ reader's rules (ParseProcessLatencies)."""
    import results_io
    good = [b"process,iteration,latency_ns\n0,0,5\n0,1,6\n1,0,7\n", b"iteration,latency_ns\n0,3\n"]
    bad = [b"", b"latency_ns\n5\n", b"process,iteration,latency_ns\n0,0,-5\n",
           b"process,iteration,latency_ns\n0,0,+5\n", b"process,iteration,latency_ns\n1,0,5\n",
           b"process,iteration,latency_ns\n0,1,5\n", b"process,iteration,latency_ns\n0,0,5,6\n",
           b"process,iteration,latency_ns\n0,0,99999999999999999999\n",
           b"process,iteration,latency_ns\n0,0,\xd9\xa3\n",
           b"iteration,latency_ns\n0," + b"7" * 300]
    parsed = [list(results_io.parse_trace(io.BytesIO(t), "t")) for t in good]
    check(parsed == [[5, 6, 7], [3]], f"good traces parse ({parsed})")
    for text in bad:
        try:
            results_io.parse_trace(io.BytesIO(text), "t")
            check(False, f"trace {text[:40]!r} refused")
        except results_io.InputError:
            pass


def main():
    started = time.monotonic()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("source")
    parser.add_argument("out")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.source, "python"))
    warnings.simplefilter("ignore")
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    base = make_base(args.binary, args.out)
    files = base_files(base)
    trace_rules(args.source)
    fifo_side_files(args.binary, base, args.out)
    fifo_row(args.binary, base, args.out)
    zip_bombs(args.binary, files, args.out)
    zip_names(args.binary, files, args.out)
    accepted_by_analyze(args.binary, base, args.out)
    print(f"\n{'case':58} exit  peak MB  wall s  first line of the message")
    for name, rc, first, rss_kb, wall in measured:
        print(f"{name[:58]:58} {rc!s:5} {rss_kb / 1024:7.0f} {wall:7.2f}  {first[:160]}")
    print(f"report_input_test: {len(failures)} failed check(s), "
          f"{time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
