# Sourced by the GROMACS peer scripts (run from the repository root): finds a
# runnable gmx and builds the water-24k run input with GROMACS' own SPC/E files.

# Prints the gmx to use: $GMX, else `gmx` on PATH, else a GROMACS 2024.6 AVX-512 build
# unpacked into /tmp/gmx from the tarball below, which only the project's machines
# provide beside the clone (with the run-time libraries in `libs` installed).
# Returns 1 when none runs here (Debian's 2022.5 package stops with "compiled to use
# the rdtscp CPU instruction" where the VM hides rdtscp); $1 names the calling script in the note printed then.
gmx_locate() {
  local who=$1 bin=""
  if [[ -n "${GMX:-}" ]]; then bin=$GMX
  elif command -v gmx >/dev/null 2>&1; then bin=$(command -v gmx)
  elif [[ -x /tmp/gmx/inst/bin/gmx ]]; then bin=/tmp/gmx/inst/bin/gmx
  else
    local tarball=../shared/tools/gromacs-2024.6-avx512.tar.xz
    [[ -f "$tarball" ]] || return 1
    local libs=(libfftw3-single3 libblas3 liblapack3 libmuparser2v5 libgfortran5) missing=() p
    for p in "${libs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
    if ((${#missing[@]})); then
      local sudo_cmd=(); [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
      DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null >&2 || return 1
    fi
    mkdir -p /tmp/gmx && tar -C /tmp/gmx -xJf "$tarball" || return 1
    bin=/tmp/gmx/inst/bin/gmx
  fi
  [[ -x "$bin" ]] || return 1
  if ! "$bin" --version 2>&1 | grep -q 'GROMACS version'; then
    echo "$who: NOTE: $bin does not run here: $("$bin" --version 2>&1 | tail -n 2 | tr '\n' ' ')" >&2
    return 1
  fi
  echo "$bin"
}

# "2024.6" for a runnable gmx, "" for none.
gmx_version_of() {
  [[ -n "$1" ]] || return 0
  "$1" --version 2>&1 | grep -m1 'GROMACS version' | sed 's/.*version: *//'
}

# gmx_prepare_tpr GMX WORKDIR BOXDIR: WORKDIR/w24k.tpr from BOXDIR's conf.gro and
# md.mdp with GROMACS' OPLS-AA SPC/E (grompp's output in WORKDIR/grompp.log).
gmx_prepare_tpr() {
  local bin=$1 work=$2 box=$3 top_dir
  top_dir=$(cd "$(dirname "$bin")/../share/gromacs/top" 2>/dev/null && pwd || true)
  cat > "$work/topol_gmx.top" <<TOP
#include "oplsaa.ff/forcefield.itp"
#include "oplsaa.ff/spce.itp"
[ system ]
SPC/E water w24k
[ molecules ]
SOL 8051
TOP
  (cd "$work" && GMXLIB="$top_dir" "$bin" -quiet grompp -f "$OLDPWD/$box/md.mdp" -c "$OLDPWD/$box/conf.gro" \
      -p topol_gmx.top -o w24k.tpr -maxwarn 1 > grompp.log 2>&1)
}
