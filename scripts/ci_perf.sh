#!/usr/bin/env bash
# Performance gate for a change: builds two revisions of this git checkout side by
# side, runs their Google Benchmark suites interleaved on this machine, stores
# every repetition in a database and compares them with `mdtune bench compare`.
#
# usage: scripts/ci_perf.sh BASE_REF HEAD_REF
#   REF is anything `git rev-parse` understands (main, origin/main, HEAD~3, a SHA)
#   or WORKTREE: the checkout's files as they are now, uncommitted changes included.
#
# exit status: 0 pass; 1 a benchmark regressed significantly beyond the threshold;
#              2 usage, build or run error, or no verdict (MDT_PERF_ROUNDS below 7);
#              3 inconclusive: some benchmark could not resolve the threshold
#                (MDT_PERF_ALLOW_INCONCLUSIVE=1 passes it).
#
# Environment (default in brackets):
#   MDT_PERF_METRIC       instructions | real_time | both                       [instructions]
#                         instruction counts are exact, so they decide; with `both`, wall
#                         time is reported beside them and blocks only when
#                         MDT_PERF_WALL_BLOCKS=1 (it sees what counts cannot: AVX-512,
#                         memory, threading; docs/user/bench.md)
#   MDT_PERF_WALL_BLOCKS  1: a wall-time FAIL or inconclusive also sets the exit status [0]
#   MDT_PERF_ALLOW_INCONCLUSIVE  1: an inconclusive comparison passes (exit 0)    [0]
#   MDT_PERF_FILTER       regex of benchmarks to run                             [threads:1]
#   MDT_BENCH_SIZES       LJ sizes of the nonbonded/search/leap-frog suites      [4000]
#   MDT_PERF_ROUNDS       real_time: interleaved rounds, each runs both sides    [9]
#                         (one process per suite and side: one independent run a side;
#                         `mdtune bench compare` needs at least 7 for a verdict)
#   MDT_PERF_REPETITIONS  real_time: repetitions per suite per round             [1]
#                         (repetitions of one process share the machine's load at that
#                         moment, so the gate takes their median as one sample: many
#                         short rounds give more independent samples than few long ones)
#   MDT_PERF_MIN_TIME     real_time: seconds per repetition                      [0.2]
#   MDT_PERF_THRESHOLD    relative change that matters                           [3%]
#   MDT_PERF_ALPHA        significance level of the Mann-Whitney U test          [0.05]
#   MDT_PERF_SUITES       comma list of bench_* executables                      [all]
#   MDT_CMAKE_ARGS        extra CMake arguments for both sides
#   MDT_CMAKE_ARGS_BASE, MDT_CMAKE_ARGS_HEAD   extra CMake arguments for one side, e.g.
#                         MDT_CMAKE_ARGS_HEAD="-DCMAKE_CXX_FLAGS=-DMDT_INJECT_SLOWDOWN_PERCENT=5"
#   MDT_PERF_VALGRIND_CMAKE_ARGS   added to both sides when instructions are counted:
#                         scalar kernels, as valgrind 3.19 cannot run AVX-512, lacks some
#                         AVX2 forms and runs the AVX2 kernels ~500x slower       [-DMDT_SIMD=none]
#   MDT_PERF_WORKDIR      where the two source trees and builds live; reuse it to
#                         rebuild incrementally                                  [a temporary dir]
#   MDT_PERF_DB           results database                         [$WORKDIR/perf.db, new each call]
#   MDT_PERF_REPORT       Markdown report                           [$WORKDIR/perf_report.md]
#                         (also appended to $GITHUB_STEP_SUMMARY when that is set)
#   MDT_PERF_JOBS         build parallelism                                      [nproc]
#   MDT_PERF_KEEP         1: keep a temporary WORKDIR                            [0]
#   MDT_PERF_MDTUNE       an mdtune executable to drive the runs (then mdtune is
#                         not built on the head side)                  [head's build/bin/mdtune]
set -euo pipefail

help_text() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
usage() {
  help_text >&2
  exit 2
}
case "${1:-}" in -h|--help) help_text; exit 0 ;; esac
[[ $# -eq 2 ]] || usage

base_ref=$1
head_ref=$2
metric=${MDT_PERF_METRIC:-instructions}
filter=${MDT_PERF_FILTER:-threads:1}
rounds=${MDT_PERF_ROUNDS:-9}
reps=${MDT_PERF_REPETITIONS:-1}
min_time=${MDT_PERF_MIN_TIME:-0.2}
threshold=${MDT_PERF_THRESHOLD:-3%}
alpha=${MDT_PERF_ALPHA:-0.05}
suites=${MDT_PERF_SUITES:-}
jobs=${MDT_PERF_JOBS:-$(nproc 2>/dev/null || echo 2)}
valgrind_args=${MDT_PERF_VALGRIND_CMAKE_ARGS--DMDT_SIMD=none}
compare_args=()
[[ ${MDT_PERF_ALLOW_INCONCLUSIVE:-0} == 1 ]] && compare_args=(--allow-inconclusive)
export MDT_BENCH_SIZES=${MDT_BENCH_SIZES:-4000}

case "$metric" in
  real_time) metrics=(real_time) ;;
  instructions) metrics=(instructions) ;;
  both) metrics=(real_time instructions) ;;
  *) echo "ci_perf.sh: MDT_PERF_METRIC='$metric' (real_time, instructions or both)" >&2; exit 2 ;;
esac
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ci_perf.sh: MDT_PERF_ROUNDS='$rounds' is not a positive integer" >&2; exit 2; }
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "ci_perf.sh: MDT_PERF_REPETITIONS='$reps' is not a positive integer" >&2; exit 2; }

repo=$(git rev-parse --show-toplevel 2>/dev/null) || { echo "ci_perf.sh: not inside a git checkout" >&2; exit 2; }

resolve() {  # REF -> commit SHA (WORKTREE: HEAD's)
  local ref=$1
  [[ $ref == WORKTREE ]] && ref=HEAD
  git -C "$repo" rev-parse --verify --quiet "$ref^{commit}" ||
    { echo "ci_perf.sh: '$1' is not a commit in $repo" >&2; exit 2; }
}
base_sha=$(resolve "$base_ref")
head_sha=$(resolve "$head_ref")

if [[ -n ${MDT_PERF_WORKDIR:-} ]]; then
  work=$(mkdir -p "$MDT_PERF_WORKDIR" && cd "$MDT_PERF_WORKDIR" && pwd)
  temporary=0
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/mdt_perf.XXXXXX")
  temporary=1
fi
cleanup() {
  if [[ $temporary == 1 && ${MDT_PERF_KEEP:-0} != 1 ]]; then
    for side in base head; do
      [[ -f $work/$side/.git ]] && git -C "$repo" worktree remove --force "$work/$side" 2>/dev/null || true
    done
    rm -rf "$work"
    git -C "$repo" worktree prune 2>/dev/null || true
  fi
}
trap cleanup EXIT

log() { printf '[ci_perf %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# The source tree of one side in $work/<side>: a git worktree at the commit, or a
# copy of the checkout's current files (tar keeps their mtimes, so a reused
# WORKDIR rebuilds only what changed).
checkout() {
  local side=$1 ref=$2 sha=$3 dir=$work/$1
  if [[ $ref == WORKTREE ]]; then
    [[ -f $dir/.git ]] && { git -C "$repo" worktree remove --force "$dir"; }
    mkdir -p "$dir"
    (cd "$repo" && git ls-files -z --cached --others --exclude-standard |
       xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
       tar --null -T - -cf -) | tar -xf - -C "$dir"
  elif [[ -f $dir/.git ]]; then
    git -C "$dir" checkout --quiet --force --detach "$sha"
  else
    rm -rf "$dir"
    git -C "$repo" worktree add --quiet --force --detach "$dir" "$sha"
  fi
}

# Configures and builds the bench_* targets (and mdtune on the head side) of one
# side in $work/<side>/<build dir>.
build() {
  local side=$1 bdir=$2 extra=$3 dir=$work/$1
  local args=(-DCMAKE_BUILD_TYPE=Release -DMDT_BUILD_TESTS=OFF -DMDT_BUILD_BENCHMARKS=ON)
  # shellcheck disable=SC2206 # word splitting of the user's CMake arguments is intended
  args+=(${MDT_CMAKE_ARGS:-} $extra)
  log "configure $side/$bdir: ${args[*]}"
  # A reused build directory must not keep cache entries from earlier arguments
  # (e.g. a CMAKE_CXX_FLAGS given last time); unchanged flags rebuild nothing.
  rm -f "$dir/$bdir/CMakeCache.txt"
  cmake -S "$dir" -B "$dir/$bdir" "${args[@]}" >"$work/$side.$bdir.configure.log" 2>&1 ||
    { tail -30 "$work/$side.$bdir.configure.log" >&2; echo "ci_perf.sh: configuring $side failed" >&2; exit 2; }
  local targets
  if [[ -n $suites ]]; then
    targets=$(tr ',' ' ' <<<"$suites")
  else
    targets=$(cmake --build "$dir/$bdir" --target help 2>/dev/null | grep -oE '\bbench_[A-Za-z0-9_]+' | sort -u | tr '\n' ' ')
  fi
  [[ -n $targets ]] || { echo "ci_perf.sh: $side has no bench_* targets" >&2; exit 2; }
  # mdtune drives every run; its build also places the callgrind hooks next to it.
  [[ $side == head && -z ${MDT_PERF_MDTUNE:-} ]] && targets="$targets mdtune"
  log "build $side/$bdir: $targets"
  # shellcheck disable=SC2086
  cmake --build "$dir/$bdir" -j "$jobs" --target $targets >"$work/$side.$bdir.build.log" 2>&1 ||
    { tail -40 "$work/$side.$bdir.build.log" >&2
      echo "ci_perf.sh: building $side failed (log: $work/$side.$bdir.build.log)" >&2; exit 2; }
}

# Wall time is measured on the default build; instruction counts on a build
# valgrind can run (separate build directory, so `both` measures each properly).
build_dir_of() { [[ $1 == instructions ]] && echo build-valgrind || echo build; }

t0=$SECONDS
log "base $base_ref ($base_sha), head $head_ref ($head_sha), work dir $work"
checkout base "$base_ref" "$base_sha"
checkout head "$head_ref" "$head_sha"
for m in "${metrics[@]}"; do
  extra=""
  [[ $m == instructions ]] && extra=$valgrind_args
  build base "$(build_dir_of "$m")" "${MDT_CMAKE_ARGS_BASE:-} $extra"
  build head "$(build_dir_of "$m")" "${MDT_CMAKE_ARGS_HEAD:-} $extra"
done
log "builds done in $((SECONDS - t0)) s"

mdtune=${MDT_PERF_MDTUNE:-$work/head/$(build_dir_of "${metrics[0]}")/bin/mdtune}
"$mdtune" bench --help >/dev/null 2>&1 ||
  { echo "ci_perf.sh: $mdtune has no 'bench' command" >&2; exit 2; }
db=${MDT_PERF_DB:-$work/perf.db}
[[ -n ${MDT_PERF_DB:-} ]] || rm -f "$db" "$db-wal" "$db-shm"
report=${MDT_PERF_REPORT:-$work/perf_report.md}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
label_base="base-${base_sha:0:12}-$stamp"
label_head="head-${head_sha:0:12}-$stamp"
suite_args=()
[[ -n $suites ]] && suite_args=(--suites "$suites")

run_side() {  # side label sha metric [extra mdtune args...]
  local side=$1 label=$2 sha=$3 m=$4
  shift 4
  "$mdtune" bench run --bench-dir "$work/$side/$(build_dir_of "$m")/bin" --db "$db" --label "$label" --commit "$sha" \
    --metric "$m" --filter "$filter" --quiet "${suite_args[@]}" "$@" ||
    { echo "ci_perf.sh: benchmarks of $side failed" >&2; exit 2; }
}

status=0
: >"$report"
for m in "${metrics[@]}"; do
  t1=$SECONDS
  if [[ $m == real_time ]]; then
    # Interleaved so that both sides see the same machine: A B, B A, A B, ...
    # (alternating the order also cancels a slow drift of the machine's speed).
    # The U test needs independent samples: each round's process is one (its
    # repetitions share its load and give one median), hence many short rounds.
    for ((r = 1; r <= rounds; r++)); do
      if ((r % 2)); then order=(base head); else order=(head base); fi
      for side in "${order[@]}"; do
        log "round $r/$rounds: $side"
        if [[ $side == base ]]; then lbl=$label_base sha=$base_sha; else lbl=$label_head sha=$head_sha; fi
        run_side "$side" "$lbl" "$sha" real_time --runs 1 --repetitions "$reps" --min-time "$min_time"
      done
    done
  else
    # Instruction counts are deterministic: one run a side.
    for side in base head; do
      log "instructions: $side (under valgrind)"
      if [[ $side == base ]]; then lbl=$label_base sha=$base_sha; else lbl=$label_head sha=$head_sha; fi
      run_side "$side" "$lbl" "$sha" instructions
    done
  fi
  log "$m measured in $((SECONDS - t1)) s"
  rc=0
  "$mdtune" bench compare --db "$db" --metric "$m" --baseline "$label_base" --candidate "$label_head" \
    --threshold "$threshold" --alpha "$alpha" "${compare_args[@]}" || rc=$?
  "$mdtune" bench compare --db "$db" --metric "$m" --baseline "$label_base" --candidate "$label_head" \
    --threshold "$threshold" --alpha "$alpha" "${compare_args[@]}" --format markdown >>"$report" || true
  # Beside instruction counts, wall time informs unless MDT_PERF_WALL_BLOCKS=1.
  if [[ $m == real_time && ${#metrics[@]} -gt 1 && ${MDT_PERF_WALL_BLOCKS:-0} != 1 && ($rc == 1 || $rc == 3) ]]; then
    log "wall time: exit $rc (not blocking: instruction counts decide; MDT_PERF_WALL_BLOCKS=1 to block)"
    rc=0
  fi
  case $rc in
    0) ;;
    1) status=1 ;;
    3) ((status == 1)) || status=3 ;;
    *) echo "ci_perf.sh: comparison failed (exit $rc)" >&2; exit 2 ;;
  esac
done
[[ -n ${GITHUB_STEP_SUMMARY:-} ]] && cat "$report" >>"$GITHUB_STEP_SUMMARY"
case $status in 0) outcome=pass ;; 1) outcome='FAIL (regression)' ;; *) outcome='INCONCLUSIVE (see the report)' ;; esac
log "done in $((SECONDS - t0)) s: $outcome; report $report, db $db"
exit $status
