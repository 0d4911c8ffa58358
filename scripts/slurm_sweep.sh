#!/usr/bin/env bash
# ./sweep.sh --slurm ...: the sweep as a Slurm job array (sweep.sh hands its arguments here).
#
#   ./sweep.sh --slurm [--partition P] [--account A] [--time T] [--constraint C] [--gres G]
#                      [--tasks N] [--array-parallel K] [--cpus-per-task C] [--results R]
#                      [--dry-run] <device> <compiler>... [-- ngraphbench run options]
#   ./sweep.sh --slurm --status [--results R] <device>
#
# Submit: writes <results>/<device>/.slurm/sweep-<time>.sbatch, a job array of N tasks (default
# 4; at most K at once with --array-parallel), and submits it with `sbatch --parsable`; prints
# the job id and appends it to <results>/<device>/.slurm/jobs.txt. --dry-run writes and prints
# the script without submitting it. Array task i (0-based) runs, in this repository (a file
# system the compute nodes share) with the binary already built here (nothing is set up on
# the nodes),
#   ./sweep.sh <device> <compiler>... -- --shard i+1/N --jobs J <run options>
# into the shared results tree, logging to <results>/<device>/.slurm/logs/<job>_<i>.log.
# J = max(1, the task's CPUs / T), T the largest `threads:` of the compilers' configs (a
# missing or 0 `threads`, i.e. every core the process may use, counts as all the task's CPUs:
# J = 1). With the default --cpus-per-task 1, J = 1. `--jobs` in the run options wins.
# A build of ngraphbench without `run --shard` (or `--jobs`) gets neither: every task then
# walks the whole grid, and the claims of the results tree keep each run measured once.
#
# Resubmitting the same command runs only what is missing: each task's scheduler keeps every
# run whose row exists (as ./sweep.sh does when resumed), and a run another task is measuring
# at that moment is claimed by it and left to it. A task that is cancelled or hits its time
# limit leaves no row for the run it was in (the scheduler writes rows atomically, and drops
# the run it was stopped in), so that run is measured by the next submission, once.
#
# Status: the states of the recorded jobs' tasks (squeue; a finished job leaves squeue after
# the cluster's MinJobAge) and the rows under <results>/<device>/ per compiler, by status.
#
# Exit codes: 0 submitted (or status shown), 2 bad input, 3 no build/ngraphbench or sbatch
# failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 3
repo=$(pwd -P)

usage() { sed -n '4,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "sweep.sh --slurm: $1" >&2; exit "${2:-2}"; }

status_mode=0 dry_run=0 tasks=4 parallel="" cpus=1 results=results results_opt=0
sbatch_opts=()
while [ $# -gt 0 ]; do
  case $1 in
    --status) status_mode=1 ;;
    --dry-run) dry_run=1 ;;
    --partition|--account|--time|--constraint|--gres)
      [ $# -ge 2 ] || usage; sbatch_opts+=("$1=$2"); shift ;;
    --tasks) [ $# -ge 2 ] || usage; tasks=$2; shift ;;
    --array-parallel) [ $# -ge 2 ] || usage; parallel=$2; shift ;;
    --cpus-per-task) [ $# -ge 2 ] || usage; cpus=$2; shift ;;
    --results) [ $# -ge 2 ] || usage; results=$2; results_opt=1; shift ;;
    -h|--help) usage ;;
    --*) die "unknown option $1 (see ./sweep.sh --slurm --help)" ;;
    *) break ;;
  esac
  shift
done
for n in "$tasks" "$cpus" ${parallel:+"$parallel"}; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || die "--tasks, --cpus-per-task and --array-parallel take a positive number, not '$n'"
done
[ $# -ge 1 ] || usage
device=$1; shift
[[ $device =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || die "device label '$device': letters, digits, . _ - only"

# --results and --configs given among the run options count too (the last one wins, as in
# ngraphbench).
compilers=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do compilers+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
run_opts=("$@")
# --results before the device is passed on to the runs (one among the run options wins).
[ "$results_opt" -eq 1 ] && run_opts=(--results "$results" "${run_opts[@]}")
configs=configs have_jobs=0
for ((i = 0; i < ${#run_opts[@]}; i++)); do
  case ${run_opts[i]} in
    --results) results=${run_opts[i+1]:-$results} ;;
    --results=*) results=${run_opts[i]#--results=} ;;
    --configs) configs=${run_opts[i+1]:-$configs} ;;
    --configs=*) configs=${run_opts[i]#--configs=} ;;
    --jobs|--jobs=*) have_jobs=1 ;;
  esac
done
slurm_dir=$results/$device/.slurm
jobs_file=$slurm_dir/jobs.txt

# Rows per compiler by their `status` column (found by name in the header; quoted fields may
# hold commas, hence Python's csv). Row files as `ngraphbench analyze` reads them: *.csv, not
# hidden, not a file beside a row (a *.latencies.csv trace, a profile, a run's server steps).
count_rows() {
  python3 - "$results/$device" <<'EOF'
import csv, os, sys
from collections import Counter
root = sys.argv[1]
shown = False
for compiler in sorted(os.listdir(root)) if os.path.isdir(root) else []:
    d = os.path.join(root, compiler)
    if compiler.startswith(".") or not os.path.isdir(d):
        continue
    counts = Counter()
    for name in os.listdir(d):
        if name.startswith(".") or not name.endswith(".csv") or \
                name.endswith((".latencies.csv", ".profile.csv", ".server_steps.csv")):
            continue
        try:
            with open(os.path.join(d, name), newline="") as f:
                rows = list(csv.reader(f))
            counts[rows[1][rows[0].index("status")] if len(rows) > 1 else "unreadable"] += 1
        except (OSError, ValueError, IndexError, csv.Error):
            counts["unreadable"] += 1
    if counts:
        shown = True
        detail = ", ".join(f"{s} {n}" for s, n in sorted(counts.items(), key=lambda x: (x[0] != "ok", x[0])))
        print(f"  {compiler}: {sum(counts.values())} rows ({detail})")
if not shown:
    print("  (none)")
EOF
}

if [ "$status_mode" -eq 1 ]; then
  if [ ${#compilers[@]} -eq 2 ] && [ "${compilers[0]}" = --results ]; then   # after the device
    results=${compilers[1]}; slurm_dir=$results/$device/.slurm; jobs_file=$slurm_dir/jobs.txt
  elif [ ${#compilers[@]} -ne 0 ]; then
    die "--status takes the device (and --results DIR) only"
  fi
  if [ -s "$jobs_file" ]; then
    command -v squeue >/dev/null || die "squeue not found (Slurm's client commands)" 3
    echo "Slurm jobs in $jobs_file:"
    while read -r job when ntasks what; do
      [[ $job =~ ^[0-9]+$ ]] || continue
      # -t all: finished tasks too, until MinJobAge; %i is JOB_TASK, %T the state.
      states=$(squeue -h -r -t all -j "$job" -o '%T' 2>/dev/null | sort | uniq -c |
               awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}')
      printf '  %s  %s  %s tasks  %s: %s\n' "$job" "$when" "$ntasks" "$what" \
        "${states:-not in squeue (finished before MinJobAge, or unknown)}"
    done <"$jobs_file"
  else
    echo "no Slurm jobs recorded in $jobs_file"
  fi
  echo "rows under $results/$device:"
  count_rows
  exit 0
fi

[ ${#compilers[@]} -ge 1 ] || usage
[ -x build/ngraphbench ] ||
  die "build/ngraphbench is missing: build it first (./setup.sh) in $repo (a file system
the compute nodes share; nothing is set up on them)" 3
for c in "${compilers[@]}"; do
  [[ $c =~ ^[A-Za-z0-9_.-]+$ ]] || die "compiler name '$c'"
done
help=$(build/ngraphbench run --help 2>&1)
has_shard=0; grep -q -- '--shard' <<<"$help" && has_shard=1
has_jobs=0; grep -q -- '--jobs' <<<"$help" && has_jobs=1
# T: the largest `threads:` among the compilers' configs; 0 when one uses every core.
threads=1
for c in "${compilers[@]}"; do
  t=$(sed -n 's/^threads:[[:space:]]*\([0-9]*\).*/\1/p' "$configs/$c.yaml" 2>/dev/null | head -n 1)
  if [ -z "$t" ] || [ "$t" -eq 0 ]; then threads=0; break; fi
  [ "$t" -gt "$threads" ] && threads=$t
done

mkdir -p "$slurm_dir/logs" || die "cannot create $slurm_dir" 3
slurm_abs=$(cd "$slurm_dir" && pwd -P)
script=$slurm_abs/sweep-$(date -u +%Y%m%dT%H%M%SZ)-$$.sbatch
q() { printf '%q' "$1"; }
{
  echo "#!/usr/bin/env bash"
  echo "# Written by ./sweep.sh --slurm $(printf '%q ' "$device" "${compilers[@]}")"
  echo "#SBATCH --job-name=ngb-$device"
  echo "#SBATCH --array=0-$((tasks - 1))${parallel:+%$parallel}"
  echo "#SBATCH --ntasks=1"
  echo "#SBATCH --cpus-per-task=$cpus"
  echo "#SBATCH --chdir=$(q "$repo")"
  echo "#SBATCH --output=$(q "$slurm_abs")/logs/%A_%a.log"
  for o in "${sbatch_opts[@]}"; do echo "#SBATCH $(q "$o")"; done
  echo "set -uo pipefail"
  echo "cd $(q "$repo") || exit 3"
  cat <<'EOF'
echo "task $SLURM_ARRAY_TASK_ID of job $SLURM_ARRAY_JOB_ID on $(hostname)," \
     "${SLURM_CPUS_PER_TASK:-1} CPU(s), $(date -u +%FT%TZ)"
if [ ! -x build/ngraphbench ]; then
  echo "build/ngraphbench is missing in $PWD: build it before submitting" \
       "(nothing is set up on compute nodes)" >&2
  exit 3
fi
EOF
  extra=()
  if [ "$has_shard" -eq 1 ]; then
    extra+=(--shard "\$((SLURM_ARRAY_TASK_ID + 1))/$tasks")
  else
    echo "echo 'this build has no run --shard: the task walks the whole grid;" \
         "claims keep each run measured once'"
  fi
  if [ "$have_jobs" -eq 0 ] && [ "$has_jobs" -eq 1 ]; then
    # J = max(1, CPUs of the task / threads per worker); threads 0 = all of them, so J = 1.
    echo "threads=$threads"
    cat <<'EOF'
jobs=$(( threads > 0 ? ${SLURM_CPUS_PER_TASK:-1} / threads : 1 ))
[ "$jobs" -ge 1 ] || jobs=1
EOF
    extra+=(--jobs "\$jobs")
  fi
  args="$(q "$device")"
  for c in "${compilers[@]}"; do args+=" $(q "$c")"; done
  args+=" --"
  for a in "${extra[@]}"; do args+=" $a"; done   # already quoted for the script
  for a in "${run_opts[@]}"; do args+=" $(q "$a")"; done
  echo "set -x"
  echo "./sweep.sh $args"
} >"$script" || die "cannot write $script" 3

if [ "$dry_run" -eq 1 ]; then
  cat "$script"
  echo "sweep.sh --slurm: --dry-run: wrote $script, not submitted" >&2
  exit 0
fi
command -v sbatch >/dev/null || die "sbatch not found (Slurm's client commands)" 3
job=$(sbatch --parsable "$script") || die "sbatch failed for $script" 3
job=${job%%;*}   # "<id>;<cluster>" on multi-cluster setups
printf '%s\t%s\t%s\t%s\n' "$job" "$(date -u +%FT%TZ)" "$tasks" "${compilers[*]}" >>"$jobs_file"
echo "$job"
{
  note=""; [ "$has_shard" -eq 1 ] || note=", no --shard in this build: each walks the whole grid"
  echo "sweep.sh --slurm: submitted job $job ($tasks tasks$note)"
  echo "  logs: $slurm_abs/logs/${job}_<task>.log"
  echo "  state: ./sweep.sh --slurm --status $device$([ "$results" = results ] || echo " --results $results")"
} >&2
