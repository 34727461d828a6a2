#!/usr/bin/env bash
# Evaluates mdtune's performance models on this machine: training sweeps (water
# with PME and the LJ fluid over a range of sizes), sweeps of held-out sizes (a
# full grid; --quick: a random part of it), `mdtune fit` with the held-out sizes
# excluded, and the figures: the cross-validation table, then per held-out size
# the MAPE of ms/step, the regret of the model's first choice against the best
# measured config (from the per-round ratios to the default, with a 95 %
# bootstrap interval; "within the measurements' noise" when it holds 0), and the
# measured speed-up of that choice over mdcore's default config; the same for the
# held-out kind (fit on water and LJ, predict water + NaCl); finally a prediction
# for 48,000 atoms and the compare table.
#
# Usage: scripts/eval_models.sh [--quick] [--db FILE] [--fresh] [--build DIR]
#   default  training: water 1,500-24,000 atoms (60 random points of a 96-config
#            grid) and LJ 2,000-32,000 (all 72 points); held out: water 6,000
#            (full grid) and 48,000 (2 threads), LJ 4,000 and 64,000, and the
#            kind water-ions (water + NaCl) at 3,000 and 12,000 atoms (36-config
#            grids in 3 interleaved rounds).
#   --quick  training: water 1,500-12,000 (24 random points), LJ 2,000-32,000
#            (24 random points); held out: water 6,000 (16 random points + the
#            default config), LJ 16,000 and water-ions 3,000 (12 random points
#            + the default). About 5 minutes before water-ions was added; not
#            timed since.
#   --db     database (default build/eval_models/{full,quick}.db). Sweeps resume:
#            rerunning measures only what is missing.
#   --fresh  delete the database first.
#   --build  build directory holding bin/mdtune and bin/mdcore (default build).
# Timings are only as good as the machine is quiet: the load average is printed
# before and after, and every trial records its own, and the sweeps measure in
# interleaved rounds. Leave OMP_WAIT_POLICY unset: with it passive, threads sleep
# at every barrier and small systems measure slower on 2 threads than on 1 (LJ
# 4,000 atoms here: 0.240 ms/step on 2 threads passive, 0.168 active, 0.228 on
# one), so the models learn the wait policy instead of the engine.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=full
db=""
fresh=0
build=build
while (($#)); do
  case "$1" in
    --quick) mode=quick ;;
    --db) db=${2:?--db needs a file}; shift ;;
    --fresh) fresh=1 ;;
    --build) build=${2:?--build needs a directory}; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "eval_models.sh: unknown option '$1' (--quick, --db FILE, --fresh, --build DIR)" >&2; exit 2 ;;
  esac
  shift
done

mdtune=$build/bin/mdtune
for exe in "$mdtune" "$build/bin/mdcore"; do
  [[ -x $exe ]] || { echo "eval_models.sh: $exe not found: build first (scripts/bootstrap.sh)" >&2; exit 1; }
done
db=${db:-$build/eval_models/$mode.db}
mkdir -p "$(dirname "$db")"
if ((fresh)); then rm -f "$db" "$db-wal" "$db-shm"; fi
plot=${db%.db}.svg

eval_dir=models/eval
if [[ $mode == quick ]]; then
  train=("$eval_dir/train_water_small.toml --strategy random --budget 16 --seed 1"
         "$eval_dir/quick_train_water_large.toml --strategy random --budget 8 --seed 1"
         "$eval_dir/quick_train_lj.toml --strategy random --budget 24 --seed 1")
  heldout=("$eval_dir/heldout_water.toml --strategy random --budget 16 --seed 2"
           "$eval_dir/quick_heldout_lj.toml"
           "$eval_dir/heldout_water_ions.toml --strategy random --budget 12 --seed 3")
  holdout_natoms=6000,16000
  compare_systems=water:1500,water:3000,water:6000,water:12000,water:24000,water:48000
else
  train=("$eval_dir/train_water_small.toml --strategy random --budget 30 --seed 1"
         "$eval_dir/train_water_large.toml --strategy random --budget 30 --seed 1"
         "$eval_dir/train_lj.toml")
  heldout=("$eval_dir/heldout_water.toml" "$eval_dir/heldout_water_large.toml" "$eval_dir/heldout_lj.toml"
           "$eval_dir/heldout_water_ions.toml" "$eval_dir/heldout_water_ions_large.toml")
  holdout_natoms=6000,48000,4000,64000
  compare_systems=water:1500,water:3000,water:6000,water:12000,water:24000,water:48000,water:96000
fi

if [[ ${OMP_WAIT_POLICY:-} == [Pp][Aa][Ss][Ss][Ii][Vv][Ee] ]]; then
  echo "eval_models.sh: warning: OMP_WAIT_POLICY=passive slows every multi-threaded trial's barriers (see --help)" >&2
fi
start=$SECONDS
echo "== mdtune model evaluation ($mode) on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}, db $db"
for spec in "${train[@]}" "${heldout[@]}"; do
  # shellcheck disable=SC2086  # spec carries the file and its strategy flags
  set -- $spec
  echo
  echo "== sweep $*"
  "$mdtune" sweep "$@" --db "$db" --name "eval-$mode $(basename "$1" .toml)"
done

echo
echo "== fit (held out: $holdout_natoms atoms, and the kind water-ions)"
"$mdtune" fit --db "$db" --model auto --holdout-natoms "$holdout_natoms" --holdout-kinds water-ions

echo
echo "== predict (a size the model was not trained on)"
"$mdtune" predict --db "$db" --system water --natoms 48000 --top-k 3

echo
echo "== compare"
"$mdtune" compare --db "$db" --hardware this --systems "$compare_systems" --plot "$plot"

echo
echo "== done in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
