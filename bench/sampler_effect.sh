#!/usr/bin/env bash
# The system sampler's own effect where it could matter most: onnxruntime with as many intra-op
# threads as there are cores, so that the sampler thread's wakeups (every 10 ms) must take a core
# from a runtime thread. conv_blocks width 64 depth 4 at batch 1 and 8 and fully_connected width
# 1024 at batch 1, each run with the sampler on (--sample-ms 10) and off (--sample-ms 0), the two
# alternating run by run (on first, then off first for the next run and the next round). Each
# (round, run) gives a ratio on / off of the median latency, the p99 and cpu_ms_per_inference
# (the sampler thread's own CPU time is left out of it when on); prints the median ratio with
# IQR and min-max over rounds (bench/ratios.py). A ratio whose IQR straddles 1 shows no effect.
#   bench/sampler_effect.sh [rounds=7]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}
[ -x build/ngraphbench ] || ./setup.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/configs"
# At least 50 timed runs and 2 s, capped at 5 s: conv b8 (~40 ms on 2 cores) stops after about
# 50 runs, the others after 2 s; six runs of ~3 s each make a round of well under a minute.
cat >"$tmp/configs/experiments.yaml" <<YAML
defaults: {batch_sizes: [1, 8], warmup: 10, repeats: 50, min_time_s: 2, max_time_s: 5,
           timeout_s: 300, check: off}
experiments:
  conv_blocks: {family: conv_block, widths: [64], depths: [4]}
  fully_connected: {family: linear, widths: [1024], batch_sizes: [1]}
YAML
cat >"$tmp/configs/onnxruntime.yaml" <<YAML
threads: $(nproc)
opt_level: all
options: {inter_op_threads: 1, execution_mode: sequential}
YAML
runs="conv_blocks:conv_blocks_w64_d4_b1 conv_blocks:conv_blocks_w64_d4_b8 fully_connected:fully_connected_w1024_b1"
for r in $(seq "$rounds"); do
  i=0
  for spec in $runs; do
    order="on off"; [ $(((r + i) % 2)) -eq 0 ] && order="off on"
    i=$((i + 1))
    for mode in $order; do
      ms=0; [ $mode = on ] && ms=10
      build/ngraphbench worker "${spec%%:*}" onnxruntime "${spec#*:}" --configs "$tmp/configs" \
        --results "$tmp/results" --device "$mode$r" --sample-ms $ms 2>/dev/null ||
        { echo "worker ${spec#*:} (sampler $mode) failed" >&2; exit 1; }
    done
  done
  echo "round $r/$rounds done" >&2
done
.venv/bin/python - "$tmp" "$rounds" "$runs" <<'PY'
import collections, re, sys
sys.path.insert(0, "bench")
import ratios
tmp, rounds, runs = sys.argv[1], int(sys.argv[2]), [s.split(":")[1] for s in sys.argv[3].split()]
c = ratios.Comparison("sampler on", "sampler off")
invalid = []
for rid in runs:
    for r in range(1, rounds + 1):
        on, off = (ratios.read_row(f"{tmp}/results/{mode}{r}/onnxruntime/{rid}.csv")
                   for mode in ("on", "off"))
        for row in (on, off):
            assert row["status"] == "ok", f"{rid} round {r}: {row['status']} {row['error']}"
            if row.get("valid") == "false":
                invalid.append(row["invalid_reason"])
        for metric, column in (("p50 ms", "latency_p50_ms"), ("p99 ms", "latency_p99_ms"),
                               ("cpu ms/inf", "cpu_ms_per_inference")):
            c.add(rid, metric, r, ratios.cell(on, column), ratios.cell(off, column))
print(f"onnxruntime, threads {on['threads']} ({on['compiler_settings']})")
if invalid:
    # Reasons by kind, numbers left out: "other processes used N% of a core > ...: 5".
    kinds = collections.Counter(re.sub(r"\d[\d.]*", "N", reason) for text in invalid
                                for reason in text.split("; "))
    c.note(f"{len(invalid)} of {2 * rounds * len(runs)} runs marked invalid (kept here): "
           + "; ".join(f"{k}: {n}" for k, n in kinds.most_common()))
c.print(per_round=True)
PY
