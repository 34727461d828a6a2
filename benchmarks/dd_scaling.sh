#!/usr/bin/env bash
# Domain-decomposition scaling on the GROMACS water benchmark box (benchmarks/data/water-24k, 24,153
# atoms): mdcore, and GROMACS where a gmx runs here, at one rank x 2 threads, two ranks x 1 thread
# (a 2x1x1 PP decomposition with the mesh shared, and one PP + one PME-only rank), and four ranks x 1
# thread (2x2x1, oversubscribed on a 2-core machine: only its communication share means something).
# Every layout of both engines runs once per round, rounds interleaved so the machine's slow drifts
# hit all alike. Prints per layout the median ms/step, ns/day and the speed ratio to that round's one
# rank run (per round, and their median), and where
# the time goes: mdcore's report (halo x, halo f, PP<->PME, reductions, waiting, load imbalance) and
# GROMACS' cycle accounting (its communication and wait rows, its load imbalance).
#
# Usage: benchmarks/dd_scaling.sh [--help]   (from any directory; settings are environment variables)
# Environment:
#   GMX=/path/to/gmx    GROMACS to compare with (as in peer_gromacs_water.sh); GMX=none skips it
#   ROUNDS=3            interleaved rounds (medians reported)
#   FOUR=1              also run the 4-rank layouts (FOUR=0: skip them)
#   GMX_STEPS=4000      GROMACS steps (-resethway: the second half is timed)
#   MD_STEPS=1000 MD_WARMUP=200   mdcore steps and the untimed warm-up among them
#   MDCORE_MDP_ARGS="--pme-spacing 0.125 --thermostat v-rescale --tau-t 0.1 --temperature 300 --nstcalcenergy 100"
#                       the box's md.mdp in mdcore's flags, as GROMACS runs it from the same md.mdp
#   MDT_BUILD_DIR=build build directory holding bin/mdcore
#   KEEP_TMP=1          keep the run directory (logs, JSON reports)
# Exit status: 0 ok; 1 a run failed or mpirun is missing; 2 an unknown argument.
set -euo pipefail
source "$(dirname "$0")/peer_common.sh" "$@"
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
FOUR=${FOUR:-1}
GMX_STEPS=${GMX_STEPS:-4000}
MD_STEPS=${MD_STEPS:-1000}
MD_WARMUP=${MD_WARMUP:-200}
MDCORE_MDP_ARGS=${MDCORE_MDP_ARGS:-$WATER24K_MDP_ARGS}
box_dir=benchmarks/data/water-24k

require_positive_integers ROUNDS GMX_STEPS MD_STEPS
require_timed_steps
[[ "$FOUR" == 0 || "$FOUR" == 1 ]] || die "FOUR must be 0 or 1 (got '$FOUR')"
require_mdcore
command -v mpirun >/dev/null || die "mpirun not found (Debian: openmpi-bin; scripts/bootstrap.sh installs it)"
command -v python3 >/dev/null || die "python3 is needed to parse the reports"

make_run_dir

gmx_bin=""
if [[ "${GMX:-}" != none ]]; then
  source benchmarks/gmx_locate.sh
  gmx_bin=$(gmx_locate dd_scaling) || gmx_bin=""
  if [[ -n "$gmx_bin" ]] && ! gmx_prepare_tpr "$gmx_bin" "$tmp" "$box_dir"; then
    echo "dd_scaling: NOTE: grompp failed; GROMACS skipped: $(tail -n 3 "$tmp/grompp.log" | tr '\n' ' ')" >&2
    gmx_bin=""
  fi
fi

# name | ranks | threads per rank | mdcore flags | gmx flags
layouts=("1x2|1|2||-npme 0"
         "2x1 dd 2x1x1|2|1|--dd 2x1x1 --npme 0|-dd 2 1 1 -npme 0"
         "2x1 pme rank|2|1|--dd 1x1x1 --npme 1|-dd 1 1 1 -npme 1")
((FOUR)) && layouts+=("4x1 dd 2x2x1|4|1|--dd 2x2x1 --npme 0|-dd 2 2 1 -npme 0")
mpi_flags=(--oversubscribe --bind-to none)
if [[ $(id -u) -eq 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

run_mdcore() {  # layout index, round
  local name ranks threads md gx
  IFS='|' read -r name ranks threads md gx <<< "${layouts[$1]}"
  local out="$tmp/md_$1_$2"
  # shellcheck disable=SC2086
  mpirun -np "$ranks" "${mpi_flags[@]}" "$mdcore_bin" run --gro "$box_dir/conf.gro" --top "$box_dir/topol.top" \
      --steps "$MD_STEPS" --warmup "$MD_WARMUP" --threads "$threads" $md $MDCORE_MDP_ARGS --json "$out.json" > "$out.out" 2>&1 ||
    die "mdcore $name failed (round $2): $(tail -n 3 "$out.out" | tr '\n' ' ')"
}
run_gmx() {  # layout index, round
  local name ranks threads md gx
  IFS='|' read -r name ranks threads md gx <<< "${layouts[$1]}"
  local out="gmx_$1_$2"
  # Thread-MPI ranks; pinning only where the ranks fit the cores; no run-time PME tuning
  # (mdcore has none, and GROMACS refuses -resethway while it is still tuning).
  local pin=on; ((ranks * threads > $(nproc))) && pin=off
  # shellcheck disable=SC2086
  (cd "$tmp" && "$gmx_bin" -quiet mdrun -s w24k.tpr -ntmpi "$ranks" -ntomp "$threads" $gx -pin "$pin" -notunepme -noconfout \
      -resethway -nsteps "$GMX_STEPS" -g "$out.log" -e "$out.edr" > "$out.out" 2>&1) ||
    die "gmx $name failed (round $2): $(tail -n 3 "$tmp/$out.out" | tr '\n' ' ')"
}

for ((r = 1; r <= ROUNDS; r++)); do
  # A fresh order each round: no layout always runs first after an idle pause.
  for i in $(seq 0 $((${#layouts[@]} - 1)) | shuf); do
    run_mdcore "$i" "$r"
    [[ -n "$gmx_bin" ]] && run_gmx "$i" "$r"
  done
  echo "dd_scaling: round $r of $ROUNDS done" >&2
done

printf '%s\n' "${layouts[@]}" > "$tmp/layouts"
python3 - "$tmp" "$ROUNDS" "${gmx_bin:+$(gmx_version_of "$gmx_bin")}" <<'PY'
import json, re, statistics, sys
work, rounds, gmx_version = sys.argv[1], int(sys.argv[2]), sys.argv[3]
layouts = [line.split("|")[0] for line in open(f"{work}/layouts").read().splitlines()]
med = statistics.median

def mdcore_run(i, r):
    rep = json.load(open(f"{work}/md_{i}_{r}.json"))
    measured = rep["steps"] - rep["warmup"]
    p = rep.get("parallel", {})
    per = lambda s: 1000.0 * s / measured
    return {"ms": rep["ms_per_step"], "nsday": rep["ns_per_day"],
            "comm": per(sum(p.get(k, 0.0) for k in ("halo_x", "halo_f", "pp_pme", "reductions"))),
            "wait": per(p.get("wait", 0.0)), "imbalance": p.get("load_imbalance", 1.0)}

def gmx_run(i, r):
    text = open(f"{work}/gmx_{i}_{r}.log").read()
    rows = re.findall(r"^ (\S.*?\S)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+[\d.]+\s+([\d.]+)\s*$", text, re.M)
    steps = next((int(c) for label, _, _, c, _, _ in rows if label == "Force"), None)
    total = next((float(s) for label, _, _, _, s, _ in re.findall(
        r"^ (Total)\s+()()()([\d.]+)\s+[\d.]+\s+([\d.]+)\s*$", text, re.M)), None)
    if not steps or total is None:
        raise SystemExit(f"dd_scaling: no cycle accounting in gmx_{i}_{r}.log")
    comm = sum(float(s) for label, *_, s, _ in rows
               if label.startswith(("Comm.", "Send X to PME", "Wait + Comm", "Wait PME", "PME wait")))
    perf = re.search(r"^Performance:\s+([\d.]+)", text, re.M)
    imb = re.search(r"Average load imbalance:\s+([\d.]+)\s*%", text)
    return {"ms": 1000.0 * total / steps, "nsday": float(perf.group(1)) if perf else 0.0,
            "comm": 1000.0 * comm / steps, "wait": 0.0, "imbalance": 1.0 + float(imb.group(1)) / 100 if imb else 1.0}

def table(title, runs):
    print(title)
    print(f"{'layout':<16}{'ms/step':>9}{'ns/day':>8}{'vs 1x2':>8}{'comm ms':>9}{'comm %':>8}{'wait ms':>9}{'imbal.':>8}"
          "  vs 1x2 per round")
    for name, rs in zip(layouts, runs):
        ms = med(x["ms"] for x in rs)
        comm = med(x["comm"] for x in rs)
        # Each round against its own 1x2 run: the machine's state drifts between rounds.
        ratios = [one["ms"] / x["ms"] for one, x in zip(runs[0], rs)]
        print(f"{name:<16}{ms:>9.3f}{med(x['nsday'] for x in rs):>8.1f}{med(ratios):>8.2f}{comm:>9.3f}"
              f"{100 * comm / ms:>8.1f}{med(x['wait'] for x in rs):>9.3f}{med(x['imbalance'] for x in rs):>8.3f}"
              "  " + " ".join(f"{v:.3f}" for v in ratios))

print(f"water-24k, 24,153 atoms, {rounds} interleaved round(s); medians; 'vs 1x2' = the median over rounds of the "
      "speed relative to that round's one rank x 2 threads")
table("mdcore", [[mdcore_run(i, r) for r in range(1, rounds + 1)] for i in range(len(layouts))])
if gmx_version:
    table(f"GROMACS {gmx_version} (thread-MPI; comm = its Comm./Send X/Wait rows)",
          [[gmx_run(i, r) for r in range(1, rounds + 1)] for i in range(len(layouts))])
PY
