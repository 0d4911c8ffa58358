#!/usr/bin/env python3
"""Whether the estimate scales rows to other batch sizes: held out on a measured tree.

For each compiler and experiment of a results tree (e.g. the released traces), the runs at the
kept batch sizes (default 1 and 8, the quick grid's) are copied into a scratch tree, and
`ngraphbench expand <experiment> --estimate` estimates the runs at every other batch size from
them alone. Each estimate is held against the measured time of that run: the workers' time
summed over its processes (the row's phases_s). Prints per compiler x experiment the summed
estimate, the measured time and their ratio, the per-run spread, and the ratio in all.

  bench/estimate_holdout.py (--zip FILE | --results DIR) --device D
                            [--experiments LIST] [--keep-batches 1,8] [--ngraphbench PATH]

Only rows that are not --quick and whose status is ok or wrong are used.
"""
import argparse
import csv
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def last_row(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return rows[-1] if rows else None


def workers_s(row):
    """The row's processes' time: its phases summed (start, build, ..., timed, check)."""
    return sum(float(part.split("=", 1)[1]) for part in row["phases_s"].split(";") if "=" in part)


def estimates(ngb, experiment, compiler, device, results):
    out = subprocess.run([ngb, "expand", experiment, "--estimate", "--compiler", compiler,
                          "--device", device, "--results", str(results)],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    seconds = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and re.fullmatch(r"[0-9.]+", parts[1]):
            seconds[parts[0]] = float(parts[1])
    return seconds


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--zip", help="a zip holding results/<device>/... (the released traces)")
    source.add_argument("--results", help="a results root")
    p.add_argument("--device", required=True)
    p.add_argument("--experiments", default="conv2d,fully_connected,self_attention")
    p.add_argument("--keep-batches", default="1,8")
    p.add_argument("--ngraphbench", default=str(ROOT / "build" / "ngraphbench"))
    args = p.parse_args()
    experiments = args.experiments.split(",")
    kept = {int(b) for b in args.keep_batches.split(",")}

    with tempfile.TemporaryDirectory() as scratch:
        scratch = pathlib.Path(scratch)
        if args.zip:
            with zipfile.ZipFile(args.zip) as z:
                z.extractall(scratch / "source")
            source_root = scratch / "source" / "results"
        else:
            source_root = pathlib.Path(args.results)
        device_dir = source_root / args.device
        if not device_dir.is_dir():
            sys.exit(f"estimate_holdout.py: no {device_dir}")
        held = scratch / "held" / "results"
        total_est = total_meas = 0.0
        for compiler_dir in sorted(d for d in device_dir.iterdir() if d.is_dir()):
            compiler = compiler_dir.name
            target = held / args.device / compiler
            target.mkdir(parents=True)
            measured = {e: {} for e in experiments}
            for path in compiler_dir.glob("*.csv"):
                if path.name.endswith(".latencies.csv"):
                    continue
                row = last_row(path)
                if (not row or row["experiment"] not in measured or row["quick"] != "false"
                        or row["status"] not in ("ok", "wrong")):
                    continue
                if int(row["batch_size"]) in kept:
                    shutil.copy(path, target)
                else:
                    measured[row["experiment"]][row["run_id"]] = workers_s(row)
            for experiment in experiments:
                runs = measured[experiment]
                if not runs:
                    continue
                est = estimates(args.ngraphbench, experiment, compiler, args.device, held)
                ratios = [est[r] / runs[r] for r in runs]
                e, m = sum(est[r] for r in runs), sum(runs.values())
                total_est += e
                total_meas += m
                within = sum(0.75 <= x <= 1.25 for x in ratios)
                print(f"{compiler:12} {experiment:16} {len(runs):3} runs  estimated {e:7.0f} s  "
                      f"measured {m:7.0f} s  ratio {e / m:4.2f}  per run median "
                      f"{statistics.median(ratios):4.2f} ({min(ratios):4.2f}-{max(ratios):4.2f}),"
                      f" {within} within 25 %")
        if total_meas:
            print(f"all: estimated {total_est:.0f} s, measured {total_meas:.0f} s, ratio "
                  f"{total_est / total_meas:.3f}")


if __name__ == "__main__":
    main()
