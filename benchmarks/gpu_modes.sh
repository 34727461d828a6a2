#!/usr/bin/env bash
# The CPU/GPU offload modes on the GROMACS water benchmark box (benchmarks/data/water-24k, its
# md.mdp flags): one mdcore run per mode — CPU only, B (--nb gpu), C (and --pme gpu), E (and
# --update gpu) — in one session, then a table of ns/day, ms/step, the GPU nonbonded kernel's
# time per step, the CPU's wait for the GPU and the pairs per second the kernel reached. With
# NVE=1 also a mode-E NVE run and its energy drift. The GPU figures in docs/performance come from these
# runs (an H200 machine). Needs a CUDA build and a GPU; without one mdcore
# refuses the GPU modes and the script stops (exit 1).
#
# Usage: benchmarks/gpu_modes.sh [--help]   (from any directory; settings are environment variables)
# Environment:
#   THREADS=16          OpenMP threads of every run
#   MD_STEPS=4000 MD_WARMUP=1000   steps of each run and the untimed warm-up among them
#   NVE=0               1: also 10,000 NVE steps in mode E (drift)
#   MDCORE_ARGS=""      extra flags for every run (e.g. "--nstlist 50")
#   MDT_BUILD_DIR=build build directory holding bin/mdcore
#   KEEP_TMP=1          keep the run directory (JSON reports, logs)
# Exit status: 0 ok; 1 a run failed; 2 an unknown argument.
set -euo pipefail
source "$(dirname "$0")/peer_common.sh" "$@"
cd "$(dirname "$0")/.."

THREADS=${THREADS:-16}
MD_STEPS=${MD_STEPS:-4000}
MD_WARMUP=${MD_WARMUP:-1000}
NVE=${NVE:-0}
require_positive_integers THREADS MD_STEPS
require_timed_steps
require_mdcore
make_run_dir

box=benchmarks/data/water-24k
common=(--gro "$box/conf.gro" --top "$box/topol.top" --threads "$THREADS" ${MDCORE_ARGS:-})
modes=("cpu:" "B:--nb gpu" "C:--nb gpu --pme gpu" "E:--nb gpu --pme gpu --update gpu")
for m in "${modes[@]}"; do
  name=${m%%:*}
  # shellcheck disable=SC2206  # the mode's flags split on purpose
  flags=(${m#*:})
  "$mdcore_bin" run "${common[@]}" $WATER24K_MDP_ARGS --steps "$MD_STEPS" --warmup "$MD_WARMUP" "${flags[@]}" \
    --json "$tmp/$name.json" > "$tmp/$name.log" 2>&1 || die "mode $name failed: $(tail -n 3 "$tmp/$name.log")"
done
if [[ "$NVE" == 1 ]]; then
  "$mdcore_bin" run "${common[@]}" --pme-spacing 0.125 --steps 10000 --warmup 1000 --nstcalcenergy 100 \
    --nb gpu --pme gpu --update gpu --json "$tmp/E_nve.json" > "$tmp/E_nve.log" 2>&1 ||
    die "mode E NVE failed: $(tail -n 3 "$tmp/E_nve.log")"
fi

PYTHONPATH=benchmarks python3 - "$tmp" "$NVE" <<'PY'
import os, sys
from mdcore_report import load_timed_report

tmp, nve = sys.argv[1], sys.argv[2] == "1"
print("%-5s %9s %9s %10s %10s %9s  %s" % ("mode", "ns/day", "ms/step", "nb_kernel", "cpu_wait", "Gpairs/s", "config"))
for name in ("cpu", "B", "C", "E"):
    r = load_timed_report(os.path.join(tmp, name + ".json"))
    steps = r["steps"] - r["warmup"]
    c, g = r["config"], r.get("gpu") or {}
    kernel = g.get("kernel_seconds", {}).get("nonbonded", 0.0) / steps * 1e3
    wait = g.get("cpu_wait_seconds", 0.0) / steps * 1e3
    rate = r["pairlist"]["pairs_in_cutoff"] / kernel * 1e-6 if kernel > 0 else 0.0
    print("%-5s %9.1f %9.3f %10s %10s %9s  nstlist %d, nstprune %d, rlist %.3f/%.3f" % (
        name, r["ns_per_day"], r["ms_per_step"], "%.3f" % kernel if kernel else "-", "%.3f" % wait if g else "-",
        "%.1f" % rate if rate else "-", c["nstlist"], c["nstprune"], c["rlist"], c["rlist_inner"]))
print("(nb_kernel, cpu_wait: ms/step; Gpairs/s: pairs within the cut-off per second of the kernel)")
if nve:
    r = load_timed_report(os.path.join(tmp, "E_nve.json"))
    print("mode E NVE: %.1f ns/day, drift %.3g +- %.2g kJ/mol/ps per atom (tolerance %g), SETTLE max deviation %.2g" % (
        r["ns_per_day"], r["drift_per_atom_per_ps"], r["drift_stderr_per_atom_per_ps"], r["config"]["drift_tolerance"],
        r["max_constraint_deviation"]))
PY
