#!/usr/bin/env bash
# Figures for the Slurm path (the measured figures in docs/user/submit.md) on a running Slurm (scripts/slurm_local.sh
# start; SLURM_CONF set): (1) a 6-config LJ sweep run locally vs as a 3-task array with
# %1, submit to merged; (2) 64 array tasks of one trial each: merge time, and that the
# main database holds each of the 64 points exactly once.
# Usage: scripts/slurm_figures.sh [WORKDIR]   (default /tmp/mdt-slurm-figures)
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
mdtune=$root/build/bin/mdtune
work=${1:-/tmp/mdt-slurm-figures}
rm -rf "$work" && mkdir -p "$work" && cd "$work"
now() { date +%s.%N; }
wait_jobs() { while squeue -h -j "$1" -o %i 2>/dev/null | grep -q .; do sleep 0.2; done; }

cat >six.toml <<'T'
[system]
kind = "lj"
natoms = 256
[space]
cluster = ["4x4", "1x1"]
nstlist = [10, 20, 40]
[measure]
steps = 30
warmup = 10
repeats = 1
T
t0=$(now); "$mdtune" sweep six.toml --db local.db >/dev/null; t1=$(now)
out=$("$mdtune" submit six.toml --db array.db --trials-per-task 3 --array-parallel 1)
ids=$(sed -n 's/^submitted array job \([0-9]*\) .* merge job \([0-9]*\) .*/\1,\2/p' <<<"$out")
wait_jobs "$ids"; t2=$(now)
printf 'six configs: local sweep %.2f s; 3-task array %%1, submit to merged %.2f s (%s trials merged)\n' \
  "$(bc -l <<<"$t1 - $t0")" "$(bc -l <<<"$t2 - $t1")" "$(sqlite3 array.db 'select count(*) from trials')"

nst=$(seq -s, 5 25)  # 21 values x 3 shapes = 63 configs + the default = 64 points
printf '[system]\nkind = "lj"\nnatoms = 256\n[space]\ncluster = ["4x4", "4x8", "1x1"]\nnstlist = [%s]\n[measure]\nsteps = 20\nwarmup = 5\nrepeats = 1\n' "$nst" >sixtyfour.toml
t3=$(now)
out=$("$mdtune" submit sixtyfour.toml --db many.db --trials-per-task 1)
echo "$out" | head -1
ids=$(sed -n 's/^submitted array job \([0-9]*\) .* merge job \([0-9]*\) .*/\1,\2/p' <<<"$out")
merge_job=${ids#*,}
wait_jobs "$ids"; t4=$(now)
printf '64 tasks: submit to merged %.1f s\n' "$(bc -l <<<"$t4 - $t3")"
scontrol -o show job "$merge_job" | tr ' ' '\n' | grep -E '^(JobState|RunTime)='
shards=(many.db.shards/sixtyfour-*/task-*.db)
t5=$(now); "$mdtune" db merge again.db "${shards[@]}" | tail -1; t6=$(now)
printf 'merging the %d shards again into a fresh db: %.2f s\n' "${#shards[@]}" "$(bc -l <<<"$t6 - $t5")"
echo "rows, distinct keys, distinct (system, config) in many.db:"
sqlite3 many.db "select count(*), count(distinct trial_key), count(distinct system_id || '|' || config_id) from trials"
echo "merging once more adds:"; "$mdtune" db merge many.db "${shards[@]}" | tail -1
"$mdtune" status --db many.db | tail -2
