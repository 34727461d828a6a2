#!/usr/bin/env bash
# Peer comparison on the GROMACS water benchmark box (benchmarks/data/water-24k: 24,153-atom SPC/E,
# rc 1.0, PME order 4, ewald-rtol 1e-5, SETTLE, 2 fs): GROMACS and mdcore on the same box and the
# same thread count, interleaved (gmx, mdcore) x REPEATS so slow drifts of a shared machine hit both
# alike. Prints per task the median ms/step of each engine (GROMACS' cycle accounting, mdcore's
# report timings) and the ratio, then ns/day.
#
# Usage: benchmarks/peer_gromacs_water.sh [--help]   (from any directory; settings are environment variables)
# Environment:
#   GMX=/path/to/gmx    the GROMACS to compare with; default: `gmx` on PATH, else a GROMACS 2024.6 AVX-512
#                       build where the machine provides one (benchmarks/gmx_locate.sh)
#   REPEATS=2           rounds of the interleaved pair (medians reported)
#   THREADS=2           OpenMP threads of both engines (GROMACS: -ntmpi 1 -ntomp THREADS -pin on)
#   GMX_STEPS=6000      GROMACS steps (-resethway: the second half is timed)
#   MD_STEPS=1500 MD_WARMUP=300   mdcore steps and the untimed warm-up among them
#   MDCORE_ARGS=""      extra flags for mdcore run (e.g. "--cluster 4x8 --nstlist 40")
#   MDCORE_MDP_ARGS="--pme-spacing 0.125 --thermostat v-rescale --tau-t 0.1 --temperature 300 --nstcalcenergy 100"
#                       the box's md.mdp in mdcore's flags (GROMACS' 52^3 grid, its thermostat)
#   MDT_BUILD_DIR=build build directory holding bin/mdcore
#   KEEP_TMP=1          keep the run directory (inputs, logs, JSON reports)
# Without a runnable gmx (none found, or a binary that aborts on this CPU — Debian's 2022.5 package
# stops with "compiled to use the rdtscp CPU instruction" where the VM hides rdtscp), only mdcore
# runs and its table is printed beside GROMACS 2024.6 AVX-512's figures measured on this machine
# type (benchmarks/data/water-24k/README.md), marked as such.
# Exit status: 0 ok; 1 a run failed; 2 an unknown argument.
set -euo pipefail
source "$(dirname "$0")/peer_common.sh" "$@"
cd "$(dirname "$0")/.."

REPEATS=${REPEATS:-2}
THREADS=${THREADS:-2}
GMX_STEPS=${GMX_STEPS:-6000}
MD_STEPS=${MD_STEPS:-1500}
MD_WARMUP=${MD_WARMUP:-300}
MDCORE_ARGS=${MDCORE_ARGS:-}
MDCORE_MDP_ARGS=${MDCORE_MDP_ARGS:-$WATER24K_MDP_ARGS}
box_dir=benchmarks/data/water-24k

require_positive_integers REPEATS THREADS GMX_STEPS MD_STEPS
require_timed_steps
require_mdcore
command -v python3 >/dev/null || die "python3 is needed to parse the reports"

make_run_dir

# --- GROMACS ------------------------------------------------------------------
source benchmarks/gmx_locate.sh
gmx_bin=$(gmx_locate peer_gromacs_water) || gmx_bin=""
gmx_version=$(gmx_version_of "$gmx_bin")

if [[ -n "$gmx_bin" ]]; then
  gmx_prepare_tpr "$gmx_bin" "$tmp" "$box_dir" ||
    { echo "peer_gromacs_water: NOTE: grompp failed (see below); GROMACS skipped" >&2; tail -n 5 "$tmp/grompp.log" >&2; gmx_bin=""; }
fi

run_gmx() {  # $1 = round
  (cd "$tmp" && "$gmx_bin" -quiet mdrun -s w24k.tpr -ntmpi 1 -ntomp "$THREADS" -pin on -noconfout -resethway \
      -nsteps "$GMX_STEPS" -g "gmx_$1.log" -e "gmx_$1.edr" > "gmx_$1.out" 2>&1) ||
    die "gmx mdrun failed (round $1): $(tail -n 3 "$tmp/gmx_$1.out" | tr '\n' ' ')"
}
run_mdcore() {  # $1 = round
  # shellcheck disable=SC2086
  "$mdcore_bin" run --gro "$box_dir/conf.gro" --top "$box_dir/topol.top" --steps "$MD_STEPS" --warmup "$MD_WARMUP" \
      --threads "$THREADS" $MDCORE_MDP_ARGS $MDCORE_ARGS --json "$tmp/mdcore_$1.json" > "$tmp/mdcore_$1.out" 2>&1 ||
    die "mdcore failed (round $1): $(tail -n 3 "$tmp/mdcore_$1.out" | tr '\n' ' ')"
}

for ((r = 1; r <= REPEATS; r++)); do
  if [[ -n "$gmx_bin" ]]; then
    if ((r % 2)); then run_gmx "$r"; run_mdcore "$r"; else run_mdcore "$r"; run_gmx "$r"; fi
  else
    run_mdcore "$r"
  fi
  echo "peer_gromacs_water: round $r of $REPEATS done" >&2
done

python3 - "$tmp" "$REPEATS" "${gmx_bin:+${gmx_version:-unknown}}" <<'PY'
import json, re, statistics, sys
work, repeats, gmx_version = sys.argv[1], int(sys.argv[2]), sys.argv[3]

# GROMACS 2024.6 AVX-512, this machine type, 2 threads (benchmarks/data/water-24k/README.md).
documented = {"nonbonded + prune": 2.953, "pme spread": 0.382, "pme fft": 0.702, "pme gather": 0.383,
              "pme solve": 0.033, "search": 0.289 + 0.049, "update + settle": 0.025 + 0.076, "other": 0.096,
              "whole step": 4.99}
rows = list(documented)

def gmx_tasks(path):
    text = open(path).read()
    steps, ms = None, {}
    def wall(label):
        m = re.search(r"^ " + re.escape(label) + r"\s+(?:\d+\s+\d+\s+(\d+)\s+)?([\d.]+)\s+[\d.]+\s+[\d.]+\s*$", text, re.M)
        return (float(m.group(2)), int(m.group(1)) if m.group(1) else None) if m else (0.0, None)
    force, steps = wall("Force")
    if not steps:
        raise SystemExit(f"peer_gromacs_water: no cycle accounting in {path}")
    per = lambda s: 1000.0 * s / steps
    ms["nonbonded + prune"] = per(force)
    ms["pme spread"] = per(wall("PME spread")[0])
    ms["pme fft"] = per(wall("PME 3D-FFT")[0])
    ms["pme gather"] = per(wall("PME gather")[0])
    ms["pme solve"] = per(wall("PME solve Elec")[0])
    ms["search"] = per(wall("Neighbor search")[0] + wall("Domain decomp.")[0])
    ms["update + settle"] = per(wall("Update")[0] + wall("Constraints")[0])
    total = per(wall("Total")[0])
    ms["other"] = total - sum(ms.values()) + 0.0
    ms["whole step"] = total
    perf = re.search(r"^Performance:\s+([\d.]+)", text, re.M)
    return ms, float(perf.group(1)) if perf else 0.0

def mdcore_tasks(path):
    rep = json.load(open(path))
    t = rep["timings"]
    measured = rep["steps"] - rep["warmup"]
    per = lambda *keys: 1000.0 * sum(t.get(k, 0.0) for k in keys) / measured
    ms = {"nonbonded + prune": per("nonbonded", "prune"), "pme spread": per("pme_spread"), "pme fft": per("pme_fft"),
          "pme gather": per("pme_gather"), "pme solve": per("pme_solve"), "search": per("search"),
          "update + settle": per("constraints", "update"), "other": per("other"), "whole step": rep["ms_per_step"]}
    return ms, rep["ns_per_day"]

md = [mdcore_tasks(f"{work}/mdcore_{r}.json") for r in range(1, repeats + 1)]
gx = [gmx_tasks(f"{work}/gmx_{r}.log") for r in range(1, repeats + 1)] if gmx_version else []
med = lambda runs, k: statistics.median(run[0][k] for run in runs)
peer = "GROMACS " + gmx_version if gx else "GROMACS 2024.6 AVX-512 (documented, not run here)"
print(f"water-24k, 24,153 atoms, {repeats} interleaved round(s); ms per MD step (median)")
print(f"{'task':<20}{peer[:34]:>36}{'mdcore':>10}{'mdcore/peer':>13}")
for k in rows:
    p = med(gx, k) if gx else documented[k]
    m = med(md, k)
    print(f"{k:<20}{p:>36.3f}{m:>10.3f}{(m / p if p > 0 else float('nan')):>13.2f}")
md_nsday = statistics.median(r[1] for r in md)
if gx:
    gx_nsday = statistics.median(r[1] for r in gx)
    print(f"ns/day: GROMACS {gx_nsday:.1f}, mdcore {md_nsday:.1f} (mdcore/GROMACS {md_nsday / gx_nsday:.2f}x)")
    # The pair of runs of one round shares the machine's state; their ratios are
    # the comparison a drifting machine cannot skew.
    speed = [m[1] / g[1] for m, g in zip(md, gx) if g[1] > 0]
    force = [m[0]["nonbonded + prune"] / g[0]["nonbonded + prune"] for m, g in zip(md, gx)]
    print("per round, mdcore/GROMACS ns/day: " + " ".join(f"{x:.3f}" for x in speed) +
          f" (median {statistics.median(speed):.3f}); nonbonded + prune mdcore/GROMACS ms: " +
          " ".join(f"{x:.3f}" for x in force) + f" (median {statistics.median(force):.3f})")
else:
    print(f"ns/day: mdcore {md_nsday:.1f}; GROMACS 2024.6 AVX-512 measured 31.9-35.0 (median 33.3) on this machine type")
PY
