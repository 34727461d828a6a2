# Sourced with the script's arguments by the peer_lammps_*.sh scripts: what both LAMMPS
# comparisons share — finding (or installing) LAMMPS and its OPT pair style and the
# oversubscription note — besides what every peer comparison shares (peer_common.sh).

source "$(dirname "${BASH_SOURCE[0]}")/peer_common.sh" "$@"

first_on_path() {  # names; prints the path of the first one found
  local c
  for c in "$@"; do
    if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi
  done
  return 1
}

# Sets lmp_bin, lmp_help and lmp_version: the first of the given executable names on PATH,
# else Debian's 'lammps' package installed.
find_lammps() {  # names to try, in order
  if ! lmp_bin=$(first_on_path "$@"); then
    echo "$PEER_NAME: LAMMPS not found; installing Debian's 'lammps' package" >&2
    local sudo_cmd=()
    [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends lammps openmpi-bin >/dev/null
    lmp_bin=$(first_on_path "$@") || die "LAMMPS still not found after 'apt-get install lammps' (try 'bash scripts/bootstrap.sh --peers')"
  fi
  lmp_help=$("$lmp_bin" -h 2>&1 || true)
  lmp_version=$(grep -m1 -o 'Large-scale Atomic/Molecular Massively Parallel Simulator - .*' <<<"$lmp_help" |
    sed 's/^.*Simulator - //' || true)
}

# Sets suffix_args and pair_style_used: the OPT variant of the pair style where this LAMMPS has it.
use_opt_pair_style() {  # pair_style
  suffix_args=(-sf opt)
  pair_style_used="$1/opt"
  if ! grep -q "$1/opt" <<<"$lmp_help"; then
    echo "$PEER_NAME: NOTE: this LAMMPS has no OPT package (no $1/opt); running plain $1" >&2
    suffix_args=()
    pair_style_used=$1
  fi
}

# Sets ncores; with fewer cores visible than runs use, mpirun may oversubscribe (a note says so).
allow_oversubscription() {  # cores the runs use
  ncores=$(nproc 2>/dev/null || echo 1)
  if ((ncores < $1)); then
    echo "$PEER_NAME: NOTE: only $ncores core(s) visible; $1-core runs are oversubscribed" >&2
    MPIRUN_ARGS="--oversubscribe $MPIRUN_ARGS"
  fi
}
