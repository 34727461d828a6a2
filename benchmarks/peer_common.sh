# Sourced with the script's arguments by the peer comparison scripts and dd_scaling.sh
# (`source "$(dirname "$0")/peer_common.sh" "$@"`): what every comparison of mdcore with another
# engine needs — the arguments (peer_args.sh), the error exit, the mdcore binary and the checks
# of its settings, and the run directory. Messages start with the script's name (PEER_NAME).

source "$(dirname "${BASH_SOURCE[0]}")/peer_args.sh"
peer_script_args "$0" "$@"
PEER_NAME=$(basename "$0" .sh)

die() { echo "$PEER_NAME: $*" >&2; exit 1; }

# The water-24k box's md.mdp in mdcore's flags (GROMACS' 52^3 grid, its v-rescale
# thermostat, energies every 100 steps), for the scripts that run that box beside GROMACS.
WATER24K_MDP_ARGS="--pme-spacing 0.125 --thermostat v-rescale --tau-t 0.1 --temperature 300 --nstcalcenergy 100"

build_dir=${MDT_BUILD_DIR:-build}
mdcore_bin="$build_dir/bin/mdcore"

require_mdcore() {
  [[ -x "$mdcore_bin" ]] || die "$mdcore_bin not found: build mdcore first with 'bash scripts/bootstrap.sh' (from $(pwd))"
}

require_positive_integers() {  # names of the variables to check
  local v
  for v in "$@"; do
    [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"
  done
}

# MD_WARMUP untimed steps must leave some of the MD_STEPS timed.
require_timed_steps() {
  [[ "$MD_WARMUP" =~ ^[0-9]+$ && "$MD_WARMUP" -lt "$MD_STEPS" ]] || die "MD_WARMUP must be below MD_STEPS"
}

# Sets tmp: a fresh run directory, removed on exit unless KEEP_TMP=1.
make_run_dir() {
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/$PEER_NAME.XXXXXX")
  if [[ "${KEEP_TMP:-0}" == 1 ]]; then
    echo "$PEER_NAME: keeping run files in $tmp" >&2
  else
    trap 'rm -rf "$tmp"' EXIT
  fi
}
