#!/usr/bin/env bash
# Measures the regression gate's false-alarm rate and its detection of a real
# 5 % slowdown with `mdtune bench run`/`compare` defaults, the two figures that decide whether the gate can block merges. Run it on a
# quiet machine: its figures are the machine's, not the gate's, otherwise.
#
#  1. identical builds: N back-to-back `mdtune bench run`s of one build (labels
#     same-1 .. same-N), then same-(i-1) vs same-i for i = 2..N: the share that
#     FAIL is the false-alarm rate (target <= 5 %). The later comparisons have the
#     earlier labels as history (the historic drift); each comparison is also
#     made with --no-history, to show what the history changes.
#  2. a 5 % slowdown: a second build of the same source with
#     -DMDT_INJECT_SLOWDOWN_PERCENT=5 (BM_LeapFrog then works on 5 % more atoms:
#     a really slower binary); S pairs (normal run, slow run), each compared in
#     a copy of the identical runs' database (their history, not the other
#     pairs' slow labels); the share that flags BM_LeapFrog is the detection
#     rate, by wall time, with how often the whole gate passed, failed or was
#     inconclusive;
#  3. instruction counts under callgrind (default build, SIMD capped at AVX2):
#     I back-to-back runs of the normal build (I-1 comparisons) and J
#     normal/slow pairs, with the same tallies.
#
# usage: scripts/gate_false_alarm.sh            (from the repository root)
# exit status: 0 measured (the figures are printed; they are not a verdict);
#              (compare's own exits: 0 pass, 1 FAIL, 2 no verdict, 3 inconclusive)
#              2 usage, build or run error.
#
# Environment (default in brackets):
#   MDT_GATE_IDENTICAL   N back-to-back runs of one build                     [9]
#   MDT_GATE_SLOW_PAIRS  S normal/slow pairs                                  [3]
#   MDT_GATE_SUITES      suites to run (comma list)                           [bench_update]
#   MDT_GATE_FILTER      benchmarks to run: the 1-thread ones but BM_UpdateCold, whose
#                        64 MiB flush per iteration makes one `bench run` take ~7 min
#                                                     [(LeapFrog|Settle|Update/).*threads:1]
#   MDT_GATE_RUN_ARGS    extra `mdtune bench run` arguments for wall time (e.g. --runs 9) []
#   MDT_GATE_BUILD       the normal build directory (must hold mdtune and the suites) [build]
#   MDT_GATE_SLOW_BUILD  the slowed build directory, configured and built here when
#                        missing                                              [build-slow5]
#   MDT_GATE_INSTRUCTIONS  1: also compare by instruction counts (needs valgrind) [1]
#   MDT_GATE_INS_IDENTICAL I back-to-back instruction-count runs of one build  [2]
#   MDT_GATE_INS_PAIRS     J normal/slow instruction-count pairs                [1]
#   MDT_GATE_WORKDIR     database and logs                                   [a temporary dir]
set -euo pipefail

help_text() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
case "${1:-}" in -h|--help) help_text; exit 0 ;; "") ;; *) help_text >&2; exit 2 ;; esac

identical=${MDT_GATE_IDENTICAL:-9}
pairs=${MDT_GATE_SLOW_PAIRS:-3}
suites=${MDT_GATE_SUITES:-bench_update}
filter=${MDT_GATE_FILTER:-(LeapFrog|Settle|Update/).*threads:1}
build=${MDT_GATE_BUILD:-build}
slow_build=${MDT_GATE_SLOW_BUILD:-build-slow5}
with_instructions=${MDT_GATE_INSTRUCTIONS:-1}
ins_identical=${MDT_GATE_INS_IDENTICAL:-2}
ins_pairs=${MDT_GATE_INS_PAIRS:-1}
# shellcheck disable=SC2206 # the user's extra arguments are meant to be split
run_args=(${MDT_GATE_RUN_ARGS:-})
for v in identical pairs ins_identical ins_pairs; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "gate_false_alarm.sh: $v='${!v}' is not a positive integer" >&2; exit 2; }
done
((identical >= 2)) || { echo "gate_false_alarm.sh: MDT_GATE_IDENTICAL must be at least 2" >&2; exit 2; }

mdtune=$build/bin/mdtune
[[ -x $mdtune ]] || { echo "gate_false_alarm.sh: $mdtune not built (cmake --build $build --target mdtune $suites)" >&2; exit 2; }
for s in ${suites//,/ }; do
  [[ -x $build/bin/$s ]] || { echo "gate_false_alarm.sh: $build/bin/$s not built" >&2; exit 2; }
done

work=${MDT_GATE_WORKDIR:-$(mktemp -d "${TMPDIR:-/tmp}/mdt_gate.XXXXXX")}
mkdir -p "$work"
db=$work/gate.db
rm -f "$db" "$db-wal" "$db-shm"
log() { printf '[gate_false_alarm %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# The slowed build: same source and flags, one define more.
if [[ ! -x $slow_build/bin/bench_update ]]; then
  log "configuring and building $slow_build (-DMDT_INJECT_SLOWDOWN_PERCENT=5)"
  cmake -S . -B "$slow_build" -DCMAKE_BUILD_TYPE=Release -DMDT_BUILD_TESTS=OFF \
    -DCMAKE_CXX_FLAGS=-DMDT_INJECT_SLOWDOWN_PERCENT=5 >"$work/slow.configure.log" 2>&1 ||
    { tail -20 "$work/slow.configure.log" >&2; exit 2; }
  # shellcheck disable=SC2086
  cmake --build "$slow_build" -j "$(nproc)" --target ${suites//,/ } >"$work/slow.build.log" 2>&1 ||
    { tail -20 "$work/slow.build.log" >&2; exit 2; }
fi

run() {  # label bin-dir metric (MDT_GATE_RUN_ARGS go to wall-time runs only)
  local extra=()
  [[ $3 == real_time ]] && extra=("${run_args[@]}")
  "$mdtune" bench run --bench-dir "$2" --suites "$suites" --filter "$filter" --metric "$3" --label "$1" \
    --db "$db" --quiet "${extra[@]}" >>"$work/runs.log" 2>&1 ||
    { echo "gate_false_alarm.sh: bench run $1 failed (log $work/runs.log)" >&2; exit 2; }
}

compare() {  # baseline candidate metric [extra args]; prints 0 pass, 1 fail, 2 no verdict, 3 inconclusive
  local rc=0
  "$mdtune" bench compare --db "$db" --baseline "$1" --candidate "$2" --metric "$3" "${@:4}" \
    >>"$work/compare.log" 2>&1 || rc=$?
  ((rc <= 3)) || { echo "gate_false_alarm.sh: compare $1 $2 exited $rc" >&2; exit 2; }
  echo "$rc"
}

# Tallies of compare's exits: pass FAIL no-verdict inconclusive.
declare -A tally
count() {  # key exit
  tally[$1.$2]=$((${tally[$1.$2]:-0} + 1))
}
tally_text() {  # key
  echo "${tally[$1.0]:-0} pass, ${tally[$1.1]:-0} FAIL, ${tally[$1.2]:-0} no verdict, ${tally[$1.3]:-0} inconclusive"
}

flags_leapfrog() {  # baseline candidate metric: 1 when BM_LeapFrog is a regression
  "$mdtune" bench compare --db "$db" --baseline "$1" --candidate "$2" --metric "$3" --format json 2>/dev/null |
    python3 -c 'import json,sys; j=json.load(sys.stdin); print(int(any(b["verdict"]=="regression" and b["name"].startswith("BM_LeapFrog") for b in j["benchmarks"])))' ||
    true
}

log "work dir $work; $identical identical runs, $pairs slow pairs, suites $suites, filter '$filter'"
for ((i = 1; i <= identical; i++)); do
  log "identical run $i/$identical"
  run "same-$i" "$build/bin" real_time
done
for ((i = 2; i <= identical; i++)); do
  count same "$(compare "same-$((i - 1))" "same-$i" real_time)"
  count same_raw "$(compare "same-$((i - 1))" "same-$i" real_time --no-history)"
done
total=$((identical - 1))

# Each slow pair is judged against the identical runs' history only, as CI's
# baseline has its branch's past runs: in one shared database the earlier pairs'
# slow labels would count as this hardware's drift and hide the next slowdown.
identical_db=$work/identical.db
cp "$db" "$identical_db"
caught=0
for ((k = 1; k <= pairs; k++)); do
  log "slow pair $k/$pairs"
  db=$work/pair-$k.db
  cp "$identical_db" "$db"
  run "norm-$k" "$build/bin" real_time
  run "slow-$k" "$slow_build/bin" real_time
  caught=$((caught + $(flags_leapfrog "norm-$k" "slow-$k" real_time)))
  count slow "$(compare "norm-$k" "slow-$k" real_time)"
done
db=$identical_db

ins="not measured (MDT_GATE_INSTRUCTIONS=0)"
if [[ $with_instructions == 1 ]]; then
  if valgrind --version >/dev/null 2>&1; then
    db=$work/instructions.db
    rm -f "$db" "$db-wal" "$db-shm"
    for ((i = 1; i <= ins_identical; i++)); do
      log "instruction counts: identical run $i/$ins_identical"
      run "ins-same-$i" "$build/bin" instructions
      ((i == 1)) || count ins_same "$(compare "ins-same-$((i - 1))" "ins-same-$i" instructions)"
    done
    ins_caught=0
    for ((k = 1; k <= ins_pairs; k++)); do
      log "instruction counts: slow pair $k/$ins_pairs"
      run "ins-norm-$k" "$build/bin" instructions
      run "ins-slow-$k" "$slow_build/bin" instructions
      ins_caught=$((ins_caught + $(flags_leapfrog "ins-norm-$k" "ins-slow-$k" instructions)))
      count ins_slow "$(compare "ins-norm-$k" "ins-slow-$k" instructions)"
    done
    ins="identical builds, $((ins_identical - 1)) comparisons: $(tally_text ins_same);
  5 % slowdown of BM_LeapFrog: flagged in $ins_caught of $ins_pairs comparisons; gate: $(tally_text ins_slow)"
  else
    ins="not measured (valgrind not installed)"
  fi
fi

echo
echo "identical builds by wall time, $total back-to-back comparisons: $(tally_text same)" \
  "(false alarms $((100 * ${tally[same.1]:-0} / total)) %; without the historic drift: $(tally_text same_raw))"
echo "5 % slowdown of BM_LeapFrog by wall time: flagged in $caught of $pairs comparisons; gate: $(tally_text slow)"
echo "by instruction counts: $ins"
echo "reports: $work/compare.log, runs: $work/runs.log, databases: $identical_db, $work/pair-K.db and $work/instructions.db"
