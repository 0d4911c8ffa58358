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
import collections
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile

import ratios  # bench/ratios.py, beside this script

ROOT = pathlib.Path(__file__).resolve().parent.parent


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
        # Per compiler and experiment, the measured runs at the batch sizes held out: the
        # workers' time of each (its phases summed: start, build, ..., timed, check).
        measured = collections.defaultdict(lambda: {e: {} for e in experiments})
        for path in ratios.row_paths(str(device_dir)):
            compiler = pathlib.Path(path).parent.name
            target = held / args.device / compiler
            target.mkdir(parents=True, exist_ok=True)
            try:
                row = ratios.read_row(path)
            except StopIteration:  # a header without a row
                continue
            if (row["experiment"] not in experiments or row["quick"] != "false"
                    or row["status"] not in ("ok", "wrong")):
                continue
            if int(row["batch_size"]) in kept:
                shutil.copy(path, target)
            else:
                measured[compiler][row["experiment"]][row["run_id"]] = sum(
                    ratios.phases(row).values())
        total_est = total_meas = 0.0
        for compiler in sorted(measured):
            for experiment in experiments:
                runs = measured[compiler][experiment]
                if not runs:
                    continue
                est = estimates(args.ngraphbench, experiment, compiler, args.device, held)
                per_run = [est[r] / runs[r] for r in runs]
                e, m = sum(est[r] for r in runs), sum(runs.values())
                total_est += e
                total_meas += m
                within = sum(0.75 <= x <= 1.25 for x in per_run)
                print(f"{compiler:12} {experiment:16} {len(runs):3} runs  estimated {e:7.0f} s  "
                      f"measured {m:7.0f} s  ratio {e / m:4.2f}  per run median "
                      f"{statistics.median(per_run):4.2f} "
                      f"({min(per_run):4.2f}-{max(per_run):4.2f}), {within} within 25 %")
        if total_meas:
            print(f"all: estimated {total_est:.0f} s, measured {total_meas:.0f} s, ratio "
                  f"{total_est / total_meas:.3f}")


if __name__ == "__main__":
    main()
