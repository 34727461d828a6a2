#!/usr/bin/env bash
# Peer comparison on LAMMPS' bench/in.lj (32,000 LJ atoms, fcc rho* 0.8442, T* 3.0,
# rc 2.5 sigma, NVE, 1000 steps): Debian's LAMMPS with its OPT pair style against
# `mdcore run --system lammps-lj`, on 1 and 2 cores, interleaved
#   (LAMMPS 1 core, mdcore 1 core, LAMMPS 2 cores, mdcore 2 cores) x REPEATS
# so slow drifts of a shared machine hit both engines alike. Prints the median
# timesteps/s of each engine, the ratio mdcore/LAMMPS and mdcore's energy drift
# (checked against its config.drift_tolerance).
#
# Usage: benchmarks/peer_lammps_lj.sh [--help]   (from any directory; settings are environment variables)
# Environment:
#   REPEATS=3          repetitions of the interleaved sequence (median reported)
#   MDCORE_ARGS=""     extra flags for mdcore run, e.g. "--cluster 4x4 --simd avx2"
#   MDT_BUILD_DIR=build   build directory holding bin/mdcore (as scripts/bootstrap.sh)
#   MPIRUN_ARGS="--bind-to none"   flags for mpirun (default leaves ranks unpinned, like
#                      mdcore's OpenMP threads; set MPIRUN_ARGS="" for Open MPI's binding)
#   KEEP_TMP=1         keep the run directory (inputs, logs, JSON reports)
# Exit status: 0 ok; 1 a run failed or mdcore's drift exceeded its tolerance; 2 an unknown argument.
#
# Notes on what is compared: LAMMPS' "Loop time" covers all 1000 steps (double
# precision, neighbor lists every 20 steps with a 0.3 sigma skin); mdcore's
# ms_per_step covers steps 100..999 (--warmup 100; mixed precision, nstlist 10 with a
# Verlet-buffer rlist and dynamic pruning). Both use the same state and time step.
set -euo pipefail
source "$(dirname "$0")/peer_lammps_common.sh" "$@"
cd "$(dirname "$0")/.."

REPEATS=${REPEATS:-3}
MDCORE_ARGS=${MDCORE_ARGS:-}
MPIRUN_ARGS=${MPIRUN_ARGS-"--bind-to none"}
STEPS=1000
WARMUP=100

require_positive_integers REPEATS
require_mdcore
command -v python3 >/dev/null || die "python3 is needed to parse mdcore's JSON report"

# --- LAMMPS -----------------------------------------------------------------
find_lammps lmp lmp_serial lmp_mpi lmp_openmpi lmp_stable
use_opt_pair_style lj/cut
lmp_has_mpi=0
grep -q '^MPI v' <<<"$lmp_help" && lmp_has_mpi=1
if [[ $lmp_has_mpi -eq 1 ]]; then
  command -v mpirun >/dev/null || die "mpirun not found (apt-get install openmpi-bin) for the 2-core LAMMPS runs"
else
  echo "peer_lammps_lj: NOTE: $lmp_bin is a serial build; 2-core LAMMPS runs are skipped" >&2
fi

allow_oversubscription 2

# --- run directory and input --------------------------------------------------
make_run_dir

cat >"$tmp/in.lj" <<EOF
# LAMMPS bench/in.lj: 3d Lennard-Jones melt, 32,000 atoms, $STEPS steps

units           lj
atom_style      atomic

lattice         fcc 0.8442
region          box block 0 20 0 20 0 20
create_box      1 box
create_atoms    1 box
mass            1 1.0

velocity        all create 3.0 87287 loop geom

pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5

neighbor        0.3 bin
neigh_modify    delay 0 every 20 check no

fix             1 all nve

run             $STEPS
EOF

results="$tmp/results.tsv"   # engine cores repeat timesteps_per_s drift tolerance cpu_use_percent
time_cmd=()
[[ -x /usr/bin/time ]] && time_cmd=(/usr/bin/time -f %P -o "$tmp/cpu")
: >"$results"

run_lammps() {  # cores repeat
  local cores=$1 rep=$2 log="$tmp/log.lammps.${1}c.$2" cmd
  if ((cores == 1)); then
    cmd=("$lmp_bin" "${suffix_args[@]}" -in in.lj -log "$log" -screen none)
  else
    # shellcheck disable=SC2206
    cmd=(mpirun -np "$cores" $MPIRUN_ARGS "$lmp_bin" "${suffix_args[@]}" -in in.lj -log "$log" -screen none)
  fi
  (cd "$tmp" && OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
     "${cmd[@]}" >"$tmp/out.lammps.${cores}c.$rep" 2>&1) ||
    { tail -n 20 "$tmp/out.lammps.${cores}c.$rep" "$log" >&2 2>/dev/null || true; die "LAMMPS run failed: ${cmd[*]}"; }
  # "Loop time of 9.33 on 2 procs for 1000 steps with 32000 atoms"
  local line
  line=$(grep -m1 '^Loop time of' "$log") || die "no 'Loop time' line in $log"
  read -r loop procs steps natoms < <(awk '{print $4, $6, $9, $12}' <<<"$line")
  [[ "$procs" == "$cores" ]] || die "LAMMPS ran on $procs procs, expected $cores ($line)"
  [[ "$steps" == "$STEPS" && "$natoms" == 32000 ]] || die "unexpected LAMMPS run: $line"
  local tps cpu
  tps=$(awk -v s="$steps" -v t="$loop" 'BEGIN { printf "%.6f", s / t }')
  # "80.7% CPU use with 1 MPI tasks x 1 OpenMP threads" (per task)
  cpu=$(grep -m1 -o '^[0-9.]*% CPU use' "$log" | sed 's/%.*//' || true)
  printf 'lammps\t%s\t%s\t%s\t\t\t%s\n' "$cores" "$rep" "$tps" "$cpu" >>"$results"
  printf '  LAMMPS %d core(s), repeat %d: %8.1f timesteps/s  (loop time %s s, %s%% CPU per core)\n' \
    "$cores" "$rep" "$tps" "$loop" "${cpu:-?}"
}

run_mdcore() {  # cores repeat
  local cores=$1 rep=$2 json="$tmp/mdcore.${1}c.$2.json"
  rm -f "$tmp/cpu"
  # shellcheck disable=SC2086  # MDCORE_ARGS is split into flags on purpose
  OMP_NUM_THREADS=$cores "${time_cmd[@]}" "$mdcore_bin" run --system lammps-lj --steps "$STEPS" --warmup "$WARMUP" \
      --threads "$cores" --json "$json" $MDCORE_ARGS >"$tmp/out.mdcore.${cores}c.$rep" 2>&1 ||
    { tail -n 20 "$tmp/out.mdcore.${cores}c.$rep" >&2; die "mdcore run failed (threads $cores)"; }
  local parsed
  parsed=$(PYTHONPATH=benchmarks python3 - "$json" <<'PY'
import sys
from mdcore_report import load_timed_report
d = load_timed_report(sys.argv[1])
cfg = d["config"]
print(1000.0 / d["ms_per_step"], d["drift_per_atom_per_ps"], cfg["drift_tolerance"], cfg["cluster"], cfg["simd"],
      cfg["threads"], d["system"]["natoms"])
PY
  ) || die "cannot parse $json"
  local tps drift tol cluster simd threads natoms
  read -r tps drift tol cluster simd threads natoms <<<"$parsed"
  [[ "$threads" == "$cores" ]] || die "mdcore ran $threads threads, expected $cores"
  local cpu=""  # whole process incl. setup, per core
  if [[ -s "$tmp/cpu" ]]; then
    cpu=$(awk -v c="$cores" '/%$/ { sub("%", "", $1); printf "%.1f", $1 / c }' "$tmp/cpu")
  fi
  printf 'mdcore\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cores" "$rep" "$tps" "$drift" "$tol" "$cpu" >>"$results"
  printf '  mdcore %d core(s), repeat %d: %8.1f timesteps/s  (%s/%s, %s atoms, drift %.3g kJ/mol/ps/atom, %s%% CPU per core)\n' \
    "$cores" "$rep" "$tps" "$cluster" "$simd" "$natoms" "$drift" "${cpu:-?}"
}

echo "peer_lammps_lj: in.lj, 32000 atoms, $STEPS steps, REPEATS=$REPEATS, $ncores cores visible, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo "  (CPU per core: share of the cores each run actually got; under ~90% means other load on the machine)"
echo "  LAMMPS: $lmp_bin ($lmp_version), pair style $pair_style_used, OMP_NUM_THREADS=1, 2 cores: mpirun -np 2 $MPIRUN_ARGS"
echo "  mdcore: $mdcore_bin run --system lammps-lj --steps $STEPS --warmup $WARMUP --threads N $MDCORE_ARGS"
core_counts=(1 2)
for ((rep = 1; rep <= REPEATS; rep++)); do
  for cores in "${core_counts[@]}"; do
    if ((cores == 1 || lmp_has_mpi)); then run_lammps "$cores" "$rep"; fi
    run_mdcore "$cores" "$rep"
  done
done

echo
python3 - "$results" "$pair_style_used" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
pair_style = sys.argv[2]
def med(engine, cores, col=3):
    v = [float(r[col]) for r in rows if r[0] == engine and int(r[1]) == cores and r[col] != ""]
    return statistics.median(v) if v else None
bad = False
print("in.lj (32,000 atoms, 1000 steps), medians over repeats; LAMMPS pair style %s" % pair_style)
print("%5s  %16s  %16s  %14s  %26s" % ("cores", "LAMMPS steps/s", "mdcore steps/s", "mdcore/LAMMPS",
                                          "mdcore drift (tolerance)"))
for cores in (1, 2):
    l, m = med("lammps", cores), med("mdcore", cores)
    drifts = [float(r[4]) for r in rows if r[0] == "mdcore" and int(r[1]) == cores]
    tol = [float(r[5]) for r in rows if r[0] == "mdcore" and int(r[1]) == cores]
    worst = max(drifts, key=abs) if drifts else None
    ok = worst is not None and abs(worst) < tol[0]
    bad |= not ok
    fmt = lambda x: "%16.1f" % x if x is not None else "%16s" % "n/a"
    ratio = "%14.2f" % (m / l) if l and m else "%14s" % "n/a"
    drift = "%+.2e (%.0e) %s" % (worst, tol[0], "ok" if ok else "TOO HIGH") if worst is not None else "n/a"
    print("%5d  %s  %s  %s  %26s" % (cores, fmt(l), fmt(m), ratio, drift))
print("drift: kJ/mol/ps per atom, largest |value| over repeats, against mdcore's config.drift_tolerance")
cpu = [(r[0], int(r[1]), float(r[6])) for r in rows if len(r) > 6 and r[6] != ""]
busy = [c for c in cpu if c[2] < 90.0]
if busy:
    print("WARNING: %d of %d runs got under 90%% of their cores (lowest %.0f%%): the machine is busy, "
          "figures are noisy" % (len(busy), len(cpu), min(c[2] for c in busy)))
sys.exit(1 if bad else 0)
PY
