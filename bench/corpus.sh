#!/usr/bin/env bash
# Runs a corpus of users' own ONNX models (python/export_corpus.py) through every built compiler
# and prints which import, compile and compute correctly.
#
#   bench/corpus.sh <corpus dir> [compiler...]
#
# For each <corpus dir>/*.onnx and each compiler (default: every compiler `ngraphbench list
# --compilers` reports as built whose configs/<name>.yaml runs on the CPU, less null) it runs
#   ngraphbench run <file> <compiler> --quick --device corpus --results <results>
#     --configs <results>/configs
# where <results>/configs is a copy of configs/ whose defaults set quick_batch_sizes: [1] (an
# .onnx file named on the command line takes the defaults of experiments.yaml) and
# quick_max_time_s: $CORPUS_TIME_S (default 1; this is a correctness run, quote no latency from
# it). Each cell is the row's status and the output check's check_max_rel_err (against ONNX
# Runtime without graph optimizations on the imported model, identity for onnxruntime itself);
# a file the importer refuses gets no row, and its cell is `refused` with run's message.
#
# Where the file has a reference saved by export_corpus.py (<file>.ort.npy: ONNX Runtime,
# ORT_DISABLE_ALL, on the original file, for exactly the input the worker feeds run <stem>_b1),
# the compiler's outputs are dumped through the worker's reference mode (`ngraphbench worker ...
# --reference-compiler C --reference-out F`, an internal interface: C at fp32 with its default
# settings and, for onnxruntime, no graph optimization, so not the row's configured settings)
# and compared with it: this also catches what the importer changes, which the row's own check,
# made after the import, cannot see.
#
# Environment: NGB_BIN (default build/ngraphbench), CORPUS_RESULTS (default a new directory in
# /tmp; kept; run again on the same one, it skips the rows and dumps already there and
# reprints the table), CORPUS_TIME_S (1), CORPUS_TIMEOUT (per run, s; 600), CORPUS_DUMP (1; 0 = no
# comparison with the saved reference). Runs are sequential. Exit 0 when every cell ran (any
# status), 1 on a usage error.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NGB_BIN:-$ROOT/build/ngraphbench}
PY=$ROOT/.venv/bin/python
[ -x "$PY" ] || PY=python3
TIME_S=${CORPUS_TIME_S:-1}
TIMEOUT=${CORPUS_TIMEOUT:-600}
DUMP=${CORPUS_DUMP:-1}

[ $# -ge 1 ] || { sed -n '4,5p' "$0" >&2; exit 1; }
CORPUS=$(cd "$1" 2>/dev/null && pwd) || { echo "corpus.sh: no directory '$1'" >&2; exit 1; }
shift
[ -x "$BIN" ] || { echo "corpus.sh: no ngraphbench binary at $BIN (set NGB_BIN)" >&2; exit 1; }
shopt -s nullglob
files=("$CORPUS"/*.onnx)
[ ${#files[@]} -gt 0 ] || { echo "corpus.sh: no .onnx files in $CORPUS" >&2; exit 1; }

if [ $# -gt 0 ]; then
  compilers=("$@")
else
  compilers=()
  while read -r name _; do
    [ "$name" = null ] && continue
    device=$(sed -n 's/^device:[[:space:]]*\([A-Za-z]*\).*/\1/p' "$ROOT/configs/$name.yaml" 2>/dev/null)
    [ -z "$device" ] || [ "$device" = cpu ] || { echo "corpus.sh: skipping $name (device $device)" >&2; continue; }
    compilers+=("$name")
  done < <("$BIN" list --compilers | sed -n '/^compilers:/,$p' | sed -n 's/^  \([a-z_0-9]*\) .*/\1/p')
fi
[ ${#compilers[@]} -gt 0 ] || { echo "corpus.sh: no compiler built" >&2; exit 1; }

RESULTS=${CORPUS_RESULTS:-$(mktemp -d /tmp/ngb-corpus.XXXXXX)}
mkdir -p "$RESULTS/configs" "$RESULTS/logs" "$RESULTS/outputs"
cp "$ROOT"/configs/*.yaml "$RESULTS/configs/"
# The defaults, which an .onnx file on the command line takes: batch 1 only, a short time cap.
"$PY" - "$RESULTS/configs/experiments.yaml" "$TIME_S" <<'EOF' || exit 1
import re, sys
path, time_s = sys.argv[1], sys.argv[2]
text = open(path).read()
text, n1 = re.subn(r"(?m)^(  quick_batch_sizes:)[^#\n]*", r"\1 [1]   ", text, count=1)
text, n2 = re.subn(r"(?m)^(  quick_max_time_s:)[^#\n]*", r"\g<1> " + time_s + "   ", text, count=1)
# One worker process per run: the corpus checks what each compiler computes, not its timing.
text, n3 = re.subn(r"(?m)^(  processes:)[^#\n]*", r"\g<1> 1   ", text, count=1)
if not (n1 and n2 and n3):
    sys.exit("corpus.sh: configs/experiments.yaml has no defaults quick_batch_sizes/"
             "quick_max_time_s/processes")
open(path, "w").write(text)
EOF

echo "corpus: ${#files[@]} files x ${#compilers[@]} compilers (${compilers[*]}), binary $BIN"
echo "results: $RESULTS"
row_status() {  # row_status <csv>: the row's status column
  "$PY" -c 'import csv, sys; print(next(csv.DictReader(open(sys.argv[1])))["status"])' "$1" 2>/dev/null
}
for file in "${files[@]}"; do
  stem=$(basename "$file" .onnx)
  for c in "${compilers[@]}"; do
    log=$RESULTS/logs/$stem.$c.log
    start=$(date +%s)
    "$BIN" run "$file" "$c" --quick --device corpus --results "$RESULTS" \
      --configs "$RESULTS/configs" --timeout "$TIMEOUT" >"$log" 2>&1
    echo $? >"$RESULTS/logs/$stem.$c.rc"
    row=$RESULTS/corpus/$c/${stem}_b1.csv
    status=refused
    [ -f "$row" ] && status=$(row_status "$row")
    dumped=""
    out=$RESULTS/outputs/$stem.$c.bin
    if [ -f "$out" ]; then
      dumped=", outputs dumped before"
    elif [ "$DUMP" = 1 ] && [ -f "$file.ort.npy" ] && { [ "$status" = ok ] || [ "$status" = wrong ]; }; then
      timeout "$TIMEOUT" "$BIN" worker "$file" "$c" "${stem}_b1" --quick --device corpus \
        --results "$RESULTS" --configs "$RESULTS/configs" --reference-compiler "$c" \
        --reference-out "$out" >"$RESULTS/logs/$stem.$c.dump.log" 2>&1 &&
        dumped=", outputs dumped"
    fi
    printf '%-44s %-12s %-8s %4ss%s\n' "$stem" "$c" "$status" $(( $(date +%s) - start )) "$dumped"
  done
done

"$PY" - "$CORPUS" "$RESULTS" "${compilers[@]}" <<'EOF'
import csv, json, os, re, struct, sys

import numpy as np

corpus, results, compilers = sys.argv[1], sys.argv[2], sys.argv[3:]
TOLERANCE = 1e-4  # fp32, as configs/experiments.yaml's check_tolerance


def read_tensors(path):  # NGBTENS1 (src/ngraphbench/measure/check.cc)
    b = open(path, "rb").read()
    if b[:8] != b"NGBTENS1":
        raise ValueError(f"{path}: not NGBTENS1")
    (count,), off, out = struct.unpack_from("<Q", b, 8), 16, []
    for _ in range(count):
        (rank,) = struct.unpack_from("<Q", b, off)
        dims = struct.unpack_from(f"<{rank}q", b, off + 8)
        off += 8 + 8 * rank
        n = int(np.prod(dims)) if dims else 1
        out.append(np.frombuffer(b, np.float32, n, off).reshape(dims))
        off += 4 * n
    return out


def first_error(log):  # run's own message when it stopped before any row
    lines = [l.strip() for l in open(log, errors="replace") if l.strip()]
    for l in lines:
        if l.startswith("error:"):
            return l[len("error:"):].strip()
    return lines[-1] if lines else "no output"


manifest = {}
if os.path.exists(os.path.join(corpus, "corpus.json")):
    manifest = {e["file"]: e for e in json.load(open(os.path.join(corpus, "corpus.json")))["entries"]}
files = sorted(f for f in os.listdir(corpus) if f.endswith(".onnx"))
cells, failures = {}, []
for f in files:
    stem = f[: -len(".onnx")]
    for c in compilers:
        cell = {"status": "refused", "rel": "", "orig": ""}
        row_path = os.path.join(results, "corpus", c, stem + "_b1.csv")
        if os.path.exists(row_path):
            row = next(csv.DictReader(open(row_path)))
            cell["status"], cell["rel"] = row["status"], row.get("check_max_rel_err", "")
            reason = row.get("error", "") or row.get("notes", "")
            if cell["status"] == "ok" and not cell["rel"]:
                cell["rel"] = "-"  # check off or reference unavailable
                if row.get("check_reference", "").startswith("unavailable"):
                    failures.append((f, c, "unchecked", row["check_reference"]))
        else:
            rc = open(os.path.join(results, "logs", f"{stem}.{c}.rc")).read().strip()
            reason = first_error(os.path.join(results, "logs", f"{stem}.{c}.log"))
            cell["status"] = "refused" if rc == "2" else f"norow(rc={rc})"
        if cell["status"] != "ok":
            failures.append((f, c, cell["status"], reason))
        ref_path = os.path.join(corpus, f + ".ort.npy")
        out_path = os.path.join(results, "outputs", f"{stem}.{c}.bin")
        if os.path.exists(ref_path) and os.path.exists(out_path):
            ref = np.load(ref_path).astype(np.float64)
            out = read_tensors(out_path)[0].astype(np.float64)
            if out.shape != ref.shape:
                cell["orig"] = f"shape {list(out.shape)}"
            else:
                err = np.abs(out - ref)
                err[np.isnan(out) & np.isnan(ref)] = 0
                err[np.isnan(err)] = np.inf
                cell["orig"] = float(err.max() / max(1.0, float(np.abs(ref[np.isfinite(ref)]).max())))
        cells[(f, c)] = cell


def fmt(v):
    return f"{v:.1e}" if isinstance(v, float) else (f"{float(v):.1e}" if re.fullmatch(r"[-+.\deE]+", str(v)) else str(v))


def split(f):
    stem = f[: -len(".onnx")]
    model, _, exporter = stem.rpartition(".")
    return model, exporter


width = max(len(split(f)[0]) for f in files) + 2
print()
print("status and check_max_rel_err (the row's own output check, after the import) | max rel err "
      "against ONNX Runtime on the original file (* = above 1e-4, blank = no dump)")
print((f"{'model':<{width}}{'exporter':<13}" + "".join(f"{c:<26}" for c in compilers)).rstrip())
for f in files:
    model, exporter = split(f)
    line = f"{model:<{width}}{exporter:<13}"
    for c in compilers:
        cell = cells[(f, c)]
        text = cell["status"]
        if cell["rel"]:
            text += " " + fmt(cell["rel"])
        if cell["orig"] != "":
            mark = "*" if isinstance(cell["orig"], str) or cell["orig"] > TOLERANCE else ""
            text += " | " + fmt(cell["orig"]) + mark
        line += f"{text:<26}"
    print(line.rstrip())
ok = sum(1 for v in cells.values() if v["status"] == "ok")
print(f"\nok cells / all cells: {ok} / {len(cells)}")
compared = [v for v in cells.values() if v["orig"] != ""]
matched = sum(1 for v in compared if not isinstance(v["orig"], str) and v["orig"] <= TOLERANCE)
print(f"outputs within 1e-4 of ONNX Runtime on the original file: {matched} / {len(compared)} dumped")
for exporter in sorted({split(f)[1] for f in files}):
    sub = [(k, v) for k, v in cells.items() if split(k[0])[1] == exporter]
    print(f"  exporter {exporter}: ok {sum(1 for _, v in sub if v['status'] == 'ok')} / {len(sub)}")
for c in compilers:
    sub = [v for k, v in cells.items() if k[1] == c]
    print(f"  compiler {c}: ok {sum(1 for v in sub if v['status'] == 'ok')} / {len(sub)}")

if failures:
    print("\nfailing cells (the row's error, or run's message for a refused file; first 120 chars):")
    for f, c, status, reason in failures:
        print(f"  {f[:-5]:<40} {c:<12} {status:<8} {reason.replace(os.path.join(corpus, f), '<file>')[:120]}")
    causes = {}
    for f, c, status, reason in failures:
        key = re.sub(r"'[^']*\.onnx'", "<file>", reason.replace(os.path.join(corpus, f), "<file>"))
        key = re.sub(r"\b[\w./-]+\.onnx\b", "<file>", key)[:120]
        causes.setdefault((status, key), []).append(f"{f[:-5]}/{c}")
    print("\nby cause (cells):")
    for (status, key), where in sorted(causes.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(where):3d}  {status}: {key}")
EOF
echo "results: $RESULTS"
