#!/usr/bin/env bash
# `mdtune tune` on a box (by default the GROMACS water-24k box; --system) against an exhaustive sweep of the same
# space (models/eval/water24k_exhaustive.toml), to see whether tune finds the exhaustive best in a fraction of its time:
#   1. training data: the quick training sweeps of scripts/eval_models.sh (generated
#      water and LJ boxes, never this box) in their own database, and a fit;
#   2. `mdtune tune --gro --top --space` on a copy of that database: the model's
#      top 5 and the default in interleaved rounds; its wall time;
#   3. the exhaustive sweep of the space in another database; its wall time;
#   4. tune's winner, the exhaustive winner and the default measured again with
#      `mdcore run` in ROUNDS interleaved rounds: the median ratio winner/best.
# Usage: scripts/eval_tune_water24k.sh [--build DIR] [--dir DIR] [--rounds N]
#                                      [--space FILE] [--train-db FILE] [--system DIR]
#   --build  build directory holding bin/mdtune and bin/mdcore (default build)
#   --dir    work directory (default build/eval_tune); its training database is reused,
#            the tune and exhaustive databases are made anew so their times count
#   --rounds final interleaved rounds (default 5)
#   --space  the space tune ranks and the exhaustive sweep measures (default
#            models/eval/water24k_exhaustive.toml, 18 configs;
#            water24k_exhaustive_large.toml has 72)
#   --train-db  a database with training trials and a fitted model (e.g. the one
#            scripts/eval_models.sh made) used instead of step 1's sweeps
#   --system the box tune is asked about: a folder with conf.gro, topol.top and, when
#            present, md.mdp (default benchmarks/data/water-24k; the protein DHFR:
#            --system tests/data/dhfr-jac --space models/eval/dhfr_exhaustive.toml)
# Timings are only as good as the machine is quiet: run nothing else meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build
dir=""
rounds=5
space=models/eval/water24k_exhaustive.toml
train_from=""
box=benchmarks/data/water-24k
while (($#)); do
  case "$1" in
    --build) build=${2:?--build needs a directory}; shift ;;
    --dir) dir=${2:?--dir needs a directory}; shift ;;
    --rounds) rounds=${2:?--rounds needs a number}; shift ;;
    --space) space=${2:?--space needs a file}; shift ;;
    --train-db) train_from=${2:?--train-db needs a file}; shift ;;
    --system) box=${2:?--system needs a folder}; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "eval_tune_water24k.sh: unknown option '$1' (--build DIR, --dir DIR, --rounds N, --space FILE, --train-db FILE)" >&2; exit 2 ;;
  esac
  shift
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "eval_tune_water24k.sh: --rounds must be a positive integer" >&2; exit 2; }
mdtune=$build/bin/mdtune
mdcore=$build/bin/mdcore
for exe in "$mdtune" "$mdcore"; do
  [[ -x $exe ]] || { echo "eval_tune_water24k.sh: $exe not found: build first (scripts/bootstrap.sh)" >&2; exit 1; }
done
dir=${dir:-$build/eval_tune}
[[ -f $space ]] || { echo "eval_tune_water24k.sh: --space: $space not found" >&2; exit 2; }
[[ -z $train_from || -f $train_from ]] || { echo "eval_tune_water24k.sh: --train-db: $train_from not found" >&2; exit 2; }
mkdir -p "$dir"
[[ -f $box/conf.gro && -f $box/topol.top ]] || { echo "eval_tune_water24k.sh: --system: $box has no conf.gro and topol.top" >&2; exit 2; }
mdp_flags=()
[[ -f $box/md.mdp ]] && mdp_flags=(--mdp "$box/md.mdp")
train_db=$dir/train.db tune_db=$dir/tune.db full_db=$dir/exhaustive.db

if [[ -n $train_from ]]; then
echo "== training trials and model from $train_from"
train_db=$train_from
else
echo "== training sweeps ($train_db), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for spec in "models/eval/train_water_small.toml --strategy random --budget 16 --seed 1" \
            "models/eval/quick_train_water_large.toml --strategy random --budget 8 --seed 1" \
            "models/eval/quick_train_lj.toml --strategy random --budget 24 --seed 1"; do
  # shellcheck disable=SC2086  # spec carries the file and its strategy flags
  "$mdtune" sweep $spec --db "$train_db" > "$dir/train.log"
done
"$mdtune" fit --db "$train_db" --model auto | tail -n 3
fi

echo
echo "== mdtune tune on $box"
rm -f "$tune_db" "$tune_db-wal" "$tune_db-shm"
cp "$train_db" "$tune_db"
t0=$SECONDS
"$mdtune" tune --gro "$box/conf.gro" --top "$box/topol.top" "${mdp_flags[@]}" --space "$space" --db "$tune_db" | tee "$dir/tune.log"
tune_s=$((SECONDS - t0))
echo "tune: $tune_s s"

echo
echo "== exhaustive sweep ($space)"
rm -f "$full_db" "$full_db-wal" "$full_db-shm"
t0=$SECONDS
"$mdtune" sweep "$space" --db "$full_db" > "$dir/exhaustive.log"
full_s=$((SECONDS - t0))
echo "exhaustive sweep: $full_s s"
"$mdtune" show --db "$full_db" --json > "$dir/exhaustive.json"
"$mdtune" show --db "$tune_db" --json > "$dir/tune.json"

echo
echo "== final interleaved check ($rounds rounds)"
python3 - "$mdcore" "$box" "$dir" "$rounds" "$tune_s" "$full_s" <<'PY'
import json, os, statistics, subprocess, sys
mdcore, box, work, rounds, tune_s, full_s = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])

def best_of(path):
    """The config `mdtune show` marks best for the water-24k box (canonical text)."""
    for row in json.load(open(path)):
        if row.get("mark") == "best" and row.get("system", "").startswith("gro:"):
            return "" if row["config"] == "(defaults)" else row["config"]
    sys.exit(f"eval_tune_water24k: no config marked best for the box in {path}")

def flags(canonical):
    out = []
    for item in filter(None, canonical.split(";")):  # Config::canonical(): key=value;key=value
        key, value = item.split("=", 1)
        out += ["--" + key.replace("_", "-"), value]
    return out

tuned, best = best_of(f"{work}/tune.json"), best_of(f"{work}/exhaustive.json")
configs = {"tune": tuned, "exhaustive": best, "default": ""}
ms = {k: [] for k in configs}
for r in range(rounds):
    order = list(configs) if r % 2 == 0 else list(reversed(configs))
    for name in order:
        mdp = ["--mdp", f"{box}/md.mdp"] if os.path.exists(f"{box}/md.mdp") else []
        run = subprocess.run([mdcore, "run", "--gro", f"{box}/conf.gro", "--top", f"{box}/topol.top", "--steps", "600",
                              "--warmup", "100", "--json", "-"] + mdp + flags(configs[name])
                             + ([] if "threads=" in configs[name] else ["--threads", "2"]),
                             capture_output=True, text=True)
        if run.returncode:
            sys.exit(f"eval_tune_water24k: mdcore failed for {name}: {run.stderr.strip()[-300:]}")
        ms[name].append(json.loads(run.stdout)["ms_per_step"])
ratios = [t / b for t, b in zip(ms["tune"], ms["exhaustive"])]
for name, c in configs.items():
    print(f"{name:11s} {c or '(default)':40s} median {statistics.median(ms[name]):.3f} ms/step over {rounds} rounds")
print(f"tune/exhaustive: median ratio {statistics.median(ratios):.3f} (per round: "
      + ", ".join(f"{x:.3f}" for x in ratios) + ")")
print(f"time: tune {tune_s} s, exhaustive sweep {full_s} s ({100.0 * tune_s / max(full_s, 1):.1f} %)")
PY
