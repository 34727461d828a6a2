#!/usr/bin/env bash
# mdtune's GROMACS engine against `gmx tune_pme` on one box: the wall time each spends
# and what each picks. mdtune sweeps ranks x threads x npme x nstlist x pme_scale
# (with the default config as every round's reference); tune_pme tries the PME rank
# counts and cut-off scalings it considers for 2 ranks. tune_pme's pick is also a
# point of mdtune's space, so the sweep's interleaved rounds measure both picks and
# GROMACS' defaults side by side: the ratios quoted come from those rounds.
#
# Usage: benchmarks/gromacs_sweep_vs_tune_pme.sh [--help]   (from any directory)
# Environment:
#   SYSTEM_DIR=tests/data/dhfr-jac   folder with conf.gro, topol.top and md.mdp
#   STEPS=1000 WARMUP=300            timed steps after the warm-up, per run, for both tools
#   ROUNDS=3                         mdtune's interleaved rounds; tune_pme's repeats (-r)
#   MAXWARN=1                        grompp -maxwarn (DHFR has a net charge)
#   OUT=/tmp/gromacs-vs-tune-pme     working folder (database, logs)
# Exit status: 0 ok; 1 a tool failed or GROMACS does not run here; 2 a bad argument.
set -euo pipefail
if [[ "${1:-}" == "--help" ]]; then sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
[[ $# -eq 0 ]] || { echo "gromacs_sweep_vs_tune_pme.sh: unknown argument '$1' (settings are environment variables; --help)" >&2; exit 2; }
cd "$(dirname "$0")/.."
SYSTEM_DIR=$(realpath "${SYSTEM_DIR:-tests/data/dhfr-jac}")
STEPS=${STEPS:-1000}; WARMUP=${WARMUP:-300}; ROUNDS=${ROUNDS:-3}; MAXWARN=${MAXWARN:-1}
OUT=${OUT:-/tmp/gromacs-vs-tune-pme}
MDTUNE=${MDT_BUILD_DIR:-build}/bin/mdtune
for f in conf.gro topol.top md.mdp; do [[ -f "$SYSTEM_DIR/$f" ]] || { echo "$SYSTEM_DIR/$f not found" >&2; exit 2; }; done
command -v gmx >/dev/null && command -v gmx_mpi >/dev/null || { echo "needs gmx and gmx_mpi (Debian's gromacs)" >&2; exit 1; }
[[ -x "$MDTUNE" ]] || { echo "$MDTUNE not built" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MDTUNE_CACHE_DIR="$OUT/cache"
rm -rf "$OUT"; mkdir -p "$OUT/tune_pme"
cat > "$OUT/space.toml" <<TOML
[engine]
name = "gromacs"
grompp_maxwarn = $MAXWARN
[system]
gro = "$SYSTEM_DIR/conf.gro"
top = "$SYSTEM_DIR/topol.top"
mdp = "$SYSTEM_DIR/md.mdp"
[space]
ranks = [1, 2]
threads = [1, 2]
npme = [0, 1]
nstlist = [40, 80]
pme_scale = [1.0, 1.1]
[measure]
steps = $((STEPS + WARMUP))
warmup = $WARMUP
repeats = $ROUNDS
timeout_s = 600
TOML
echo "== mdtune sweep (GROMACS engine), $ROUNDS interleaved rounds"
t0=$(date +%s.%N)
"$MDTUNE" sweep "$OUT/space.toml" --db "$OUT/mdtune.db" > "$OUT/sweep.txt" 2>&1 || { cat "$OUT/sweep.txt"; exit 1; }
t1=$(date +%s.%N)
grep -A6 "^gro:" "$OUT/sweep.txt" || true
"$MDTUNE" show --db "$OUT/mdtune.db" | tee "$OUT/show.txt"
echo "== gmx tune_pme -np 2 (gmx_mpi under mpirun), -r $ROUNDS"
gmx -quiet grompp -f "$SYSTEM_DIR/md.mdp" -c "$SYSTEM_DIR/conf.gro" -p "$SYSTEM_DIR/topol.top" -maxwarn "$MAXWARN" \
    -o "$OUT/tune_pme/topol.tpr" -po "$OUT/tune_pme/mdout.mdp" > "$OUT/tune_pme/grompp.txt" 2>&1
t2=$(date +%s.%N)
(cd "$OUT/tune_pme" && MPIRUN="mpirun --oversubscribe" gmx tune_pme -np 2 -s topol.tpr -mdrun "gmx_mpi mdrun" \
    -steps $((STEPS + WARMUP)) -resetstep "$WARMUP" -r "$ROUNDS" -rmax 1.1 -ntpr 2 -nocheck > tune_pme.txt 2>&1) \
    || { tail -20 "$OUT/tune_pme/tune_pme.txt"; exit 1; }
t3=$(date +%s.%N)
sed -n '/Will try these/,$p' "$OUT/tune_pme/perf.out"
python3 - "$t0" "$t1" "$t2" "$t3" <<'PY'
import sys
t0, t1, t2, t3 = map(float, sys.argv[1:])
print(f"wall time: mdtune sweep {t1 - t0:.0f} s, gmx tune_pme {t3 - t2:.0f} s")
PY
