#!/usr/bin/env bash
# Peer comparison on a protein in water with its production .mdp: by default DHFR (the JAC
# benchmark, tests/data/dhfr-jac: 23,558 atoms, amber99sb-ildn + TIP3P, h-bond constraints with
# LINCS, SETTLE, dt 2 fs, PME, v-rescale). GROMACS (grompp + mdrun -ntmpi 1 -ntomp THREADS) and
# mdcore run --mdp on the same files and thread count, interleaved (gmx, mdcore) x REPEATS, so slow
# drifts of a shared machine hit both alike. Prints per task the median ms/step of each engine
# (GROMACS' cycle accounting, mdcore's report timings), the ratio, ns/day and the per-round ratios.
#
# Usage: benchmarks/peer_gromacs_protein.sh [--help]   (from any directory; settings are environment variables)
# Environment:
#   SYSTEM_DIR=tests/data/dhfr-jac   folder with conf.gro, topol.top and md.mdp
#   GMX=/path/to/gmx    the GROMACS to compare with (default: gmx on PATH, else a GROMACS 2024.6 AVX-512 build where the machine provides one: gmx_locate.sh)
#   REPEATS=3           rounds of the interleaved pair (medians reported)
#   THREADS=2           OpenMP threads of both engines (GROMACS: -ntmpi 1 -ntomp THREADS -pin on)
#   GMX_STEPS=2000      GROMACS steps (-resethway: the second half is timed)
#   MD_STEPS=1000 MD_WARMUP=200   mdcore steps and the untimed warm-up among them
#   MDCORE_ARGS=""      extra flags for mdcore run (e.g. "--cluster 4x8 --nstlist 40")
#   MAXWARN=1           grompp -maxwarn (DHFR, like the JAC system, has a net charge of -11 e,
#                       which grompp warns about once)
#   MDT_BUILD_DIR=build build directory holding bin/mdcore
#   KEEP_TMP=1          keep the run directory (inputs, logs, JSON reports)
# Exit status: 0 ok; 1 a run failed or no GROMACS runs here; 2 an unknown argument.
set -euo pipefail
source "$(dirname "$0")/peer_common.sh" "$@"
cd "$(dirname "$0")/.."

SYSTEM_DIR=${SYSTEM_DIR:-tests/data/dhfr-jac}
REPEATS=${REPEATS:-3}
THREADS=${THREADS:-2}
GMX_STEPS=${GMX_STEPS:-2000}
MD_STEPS=${MD_STEPS:-1000}
MD_WARMUP=${MD_WARMUP:-200}
MDCORE_ARGS=${MDCORE_ARGS:-}
MAXWARN=${MAXWARN:-1}

require_positive_integers REPEATS THREADS GMX_STEPS MD_STEPS
require_timed_steps
require_mdcore
command -v python3 >/dev/null || die "python3 is needed to parse the reports"
for f in conf.gro topol.top md.mdp; do [[ -f "$SYSTEM_DIR/$f" ]] || die "$SYSTEM_DIR/$f not found"; done
make_run_dir

source benchmarks/gmx_locate.sh
gmx_bin=$(gmx_locate "$PEER_NAME") || die "no runnable GROMACS here (set GMX=/path/to/gmx)"
gmx_version=$(gmx_version_of "$gmx_bin")
"$gmx_bin" -quiet grompp -f "$SYSTEM_DIR/md.mdp" -c "$SYSTEM_DIR/conf.gro" -p "$SYSTEM_DIR/topol.top" \
    -po "$tmp/mdout.mdp" -o "$tmp/run.tpr" -maxwarn "$MAXWARN" > "$tmp/grompp.log" 2>&1 || die "grompp failed: $(tail -n 5 "$tmp/grompp.log" | tr '\n' ' ')"

run_gmx() {  # $1 = round
  (cd "$tmp" && "$gmx_bin" -quiet mdrun -s run.tpr -ntmpi 1 -ntomp "$THREADS" -pin on -noconfout -resethway \
      -nsteps "$GMX_STEPS" -g "gmx_$1.log" -e "gmx_$1.edr" > "gmx_$1.out" 2>&1) ||
    die "gmx mdrun failed (round $1): $(tail -n 3 "$tmp/gmx_$1.out" | tr '\n' ' ')"
}
run_mdcore() {  # $1 = round
  # shellcheck disable=SC2086
  "$mdcore_bin" run --gro "$SYSTEM_DIR/conf.gro" --top "$SYSTEM_DIR/topol.top" --mdp "$SYSTEM_DIR/md.mdp" \
      --steps "$MD_STEPS" --warmup "$MD_WARMUP" --threads "$THREADS" --pin on $MDCORE_ARGS \
      --json "$tmp/mdcore_$1.json" > "$tmp/mdcore_$1.out" 2>&1 ||
    die "mdcore failed (round $1): $(tail -n 3 "$tmp/mdcore_$1.out" | tr '\n' ' ')"
}

for ((r = 1; r <= REPEATS; r++)); do
  if ((r % 2)); then run_gmx "$r"; run_mdcore "$r"; else run_mdcore "$r"; run_gmx "$r"; fi
  echo "$PEER_NAME: round $r of $REPEATS done" >&2
done

python3 - "$tmp" "$REPEATS" "$gmx_version" "$SYSTEM_DIR" <<'PY'
import json, re, statistics, sys
work, repeats, gmx_version, system = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = ["force (nonbonded + bonded)", "  of which bonded (mdcore)", "pme spread", "pme fft", "pme gather", "pme solve",
        "search", "update + constraints", "other", "whole step"]

def gmx_tasks(path):
    text = open(path).read()
    def wall(label):
        m = re.search(r"^ " + re.escape(label) + r"\s+(?:\d+\s+\d+\s+(\d+)\s+)?([\d.]+)\s+[\d.]+\s+[\d.]+\s*$", text, re.M)
        return (float(m.group(2)), int(m.group(1)) if m.group(1) else None) if m else (0.0, None)
    force, steps = wall("Force")
    if not steps:
        raise SystemExit(f"peer_gromacs_protein: no cycle accounting in {path}")
    per = lambda s: 1000.0 * s / steps
    ms = {"force (nonbonded + bonded)": per(force + wall("NB X/F buffer ops.")[0]),
          "pme spread": per(wall("PME spread")[0]), "pme fft": per(wall("PME 3D-FFT")[0]),
          "pme gather": per(wall("PME gather")[0]), "pme solve": per(wall("PME solve Elec")[0]),
          "search": per(wall("Neighbor search")[0] + wall("Domain decomp.")[0]),
          "update + constraints": per(wall("Update")[0] + wall("Constraints")[0])}
    total = per(wall("Total")[0])
    ms["other"] = total - sum(ms.values())
    ms["whole step"] = total
    ms["  of which bonded (mdcore)"] = float("nan")
    perf = re.search(r"^Performance:\s+([\d.]+)", text, re.M)
    drift = re.search(r"Conserved energy drift:\s+(\S+)", text)
    return ms, float(perf.group(1)) if perf else 0.0, drift.group(1) if drift else "?"

def mdcore_tasks(path):
    rep = json.load(open(path))
    t = rep["timings"]
    measured = rep["steps"] - rep["warmup"]
    per = lambda *keys: 1000.0 * sum(t.get(k, 0.0) for k in keys) / measured
    ms = {"force (nonbonded + bonded)": per("nonbonded", "prune", "bonded"), "  of which bonded (mdcore)": per("bonded"),
          "pme spread": per("pme_spread"), "pme fft": per("pme_fft"), "pme gather": per("pme_gather"),
          "pme solve": per("pme_solve"), "search": per("search"), "update + constraints": per("constraints", "update"),
          "other": per("other"), "whole step": rep["ms_per_step"]}
    return ms, rep["ns_per_day"], f'{rep["drift_per_atom_per_ps"]:.2g}'

md = [mdcore_tasks(f"{work}/mdcore_{r}.json") for r in range(1, repeats + 1)]
gx = [gmx_tasks(f"{work}/gmx_{r}.log") for r in range(1, repeats + 1)]
med = lambda runs, k: statistics.median(run[0][k] for run in runs)
print(f"{system}, {repeats} interleaved round(s); ms per MD step (median)")
print(f"{'task':<30}{'GROMACS ' + gmx_version:>18}{'mdcore':>10}{'mdcore/GROMACS':>16}")
for k in rows:
    p, m = med(gx, k), med(md, k)
    ratio = m / p if p > 0 else float("nan")
    print(f"{k:<30}{p:>18.3f}{m:>10.3f}{ratio:>16.2f}")
gx_nsday, md_nsday = statistics.median(r[1] for r in gx), statistics.median(r[1] for r in md)
print(f"ns/day: GROMACS {gx_nsday:.2f}, mdcore {md_nsday:.2f} (mdcore/GROMACS {md_nsday / gx_nsday:.2f}x)")
speed = [m[1] / g[1] for m, g in zip(md, gx) if g[1] > 0]
print("per round, mdcore/GROMACS ns/day: " + " ".join(f"{x:.3f}" for x in speed) + f" (median {statistics.median(speed):.3f})")
print("conserved-energy drift: GROMACS " + ", ".join(g[2] for g in gx) + " kJ/mol/ps per atom; mdcore " +
      ", ".join(m[2] for m in md) + " kJ/mol/ps per atom (mdcore: fitted slope over its energy samples)")
PY
