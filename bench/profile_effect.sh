#!/usr/bin/env bash
# Whether the profiling pass (--profile, docs/profiles.md) moves the timed figures: the pass runs
# after a run's timed runs, so the median latency with and without it must be the same. For each
# compiler given, architectures resnet18 at batch 1 (one worker, one process each, 40 timed runs),
# with --profile and without, alternating run by run (with first, then without first on the next
# round). Each round gives a ratio with / without of the median latency; prints the median ratio
# with IQR and min-max over rounds (bench/ratios.py), and the profiled / p50 of the profiled runs.
# A ratio whose IQR straddles 1 shows no effect. With --control, the "with" runs are made without
# --profile too (an A/A comparison): the ratio the bench itself shows where nothing differs, from
# the order of the runs or the machine's drift.
#   bench/profile_effect.sh [rounds=5] [compilers=onnxruntime,openvino] [--control]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
compilers=${2:-onnxruntime,openvino}
control=0
[ "${3:-}" = --control ] && control=1
[ -x build/ngraphbench ] || ./setup.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/configs"
cat >"$tmp/configs/experiments.yaml" <<YAML
defaults: {batch_sizes: [1], warmup: 10, repeats: 40, min_time_s: 1, max_time_s: 10,
           timeout_s: 600, processes: 1, check: off}
experiments:
  architectures: {family: architecture, models: [resnet18]}
YAML
IFS=, read -r -a list <<<"$compilers"
for c in "${list[@]}"; do printf 'threads: 1\n' >"$tmp/configs/$c.yaml"; done
for r in $(seq "$rounds"); do
  i=0
  for c in "${list[@]}"; do
    order="with without"; [ $(((r + i) % 2)) -eq 0 ] && order="without with"
    i=$((i + 1))
    for mode in $order; do
      flag=""; [ "$mode" = with ] && [ "$control" -eq 0 ] && flag=--profile
      build/ngraphbench worker architectures "$c" resnet18_b1 $flag --configs "$tmp/configs" \
        --results "$tmp/results" --device "$mode$r" 2>/dev/null ||
        { echo "worker $c ($mode profile) failed" >&2; exit 1; }
    done
  done
  echo "round $r/$rounds done" >&2
done
.venv/bin/python - "$tmp" "$rounds" "$compilers" "$control" <<'PY'
import sys
sys.path.insert(0, "bench")
import ratios
tmp, rounds, compilers, control = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4] == "1"
c = ratios.Comparison("control (no --profile either)" if control else "with --profile", "without")
for name in compilers:
    over = []
    for r in range(1, rounds + 1):
        w, wo = (ratios.read_row(f"{tmp}/results/{mode}{r}/{name}/resnet18_b1.csv")
                 for mode in ("with", "without"))
        for row in (w, wo):
            assert row["status"] == "ok", f"{name} round {r}: {row['status']} {row['error']}"
        assert control or w["profiler"], f"{name} round {r}: no profile ({w['notes']})"
        c.add(f"{name} resnet18_b1", "p50 ms", r, ratios.cell(w, "latency_p50_ms"),
              ratios.cell(wo, "latency_p50_ms"))
        if not control:
            over.append(float(w["profile_over_p50"]))
    if over:
        c.note(f"{name}: profiled / p50 over the rounds: " + ", ".join(f"{v:.3g}" for v in over))
c.print(per_round=True)
PY
