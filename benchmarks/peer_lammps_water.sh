#!/usr/bin/env bash
# Peer comparison on SPC/E water: the same boxes (1,000 and 8,000 molecules, i.e. about
# 3,000 and 24,000 atoms; rc 1.0 nm; PME / PPPM; rigid water; dt 2 fs; NVE; 1000 steps)
# run by mdcore and by Debian's LAMMPS on 2 cores (mdcore --threads 2, LAMMPS
# mpirun -np 2), interleaved
#   (LAMMPS box 1, mdcore box 1, LAMMPS box 2, mdcore box 2) x REPEATS
# so slow drifts of a shared machine hit both engines alike. Prints the median ns/day
# of each engine, the ratio mdcore/LAMMPS, mdcore's energy drift (checked against its
# config.drift_tolerance) and both engines' split of the step time over tasks.
#
# The boxes come from `mdcore run --system water --nwater N --steps 0 --out-gro`
# (a relaxed SPC/E box at 300 K). mdcore runs that .gro with a self-contained SPC/E
# topology written here (SETTLE); the script converts the same .gro (positions and
# velocities) into a LAMMPS data file (units real, atom_style full, bonds + angle held
# rigid by fix shake).
#
# Usage: benchmarks/peer_lammps_water.sh [--help]   (from any directory; settings are environment variables)
# Environment:
#   REPEATS=2          repetitions of the interleaved sequence (median reported)
#   SIZES="1000 8000"  box sizes in water molecules
#   MDCORE_ARGS=""     extra flags for mdcore run, e.g. "--cluster 4x4 --simd avx2"
#   MDT_BUILD_DIR=build   build directory holding bin/mdcore (as scripts/bootstrap.sh)
#   MPIRUN_ARGS="--bind-to none"   flags for mpirun (default leaves ranks unpinned, like
#                      mdcore's OpenMP threads; set MPIRUN_ARGS="" for Open MPI's binding)
#   FORCE_CHECK=1      compare both engines' step-0 forces on the smallest box with a
#                      LAMMPS Ewald sum at 1e-10 (a few seconds; FORCE_CHECK=0 skips it)
#   KEEP_TMP=1         keep the run directory (boxes, inputs, logs, JSON reports)
# Exit status: 0 ok; 1 a run failed or mdcore's drift exceeded its tolerance; 2 an unknown argument.
#
# Notes on what is compared: both engines start from the same positions and
# velocities, with the same potential (SPC/E, LJ cut and shifted at 1.0 nm, Ewald
# real space cut at 1.0 nm, no dispersion correction) and time step. Long range:
# mdcore's smooth PME with ewald_rtol 1e-5 (erfc(beta rc)/rc relative size of the
# real-space cut), LAMMPS' PPPM with relative force accuracy 1e-5; the two targets
# are taken as comparable, though they are defined differently: FORCE_CHECK measures
# both engines' actual force error (mdcore's default order-4 PME came out ~4x less
# accurate than PPPM 1e-5 on the 3,000-atom box; --pme-order 5 matched it). LAMMPS
# runs its OPT pair style (-sf opt) where present. LAMMPS' "Loop time" covers all 1000 steps (double
# precision, neighbor list rebuilt when an atom moved half the 2 Å skin); mdcore's
# ms_per_step covers steps 100..999 (--warmup 100; mixed precision, Verlet-buffer
# rlist and dynamic pruning).
set -euo pipefail
source "$(dirname "$0")/peer_lammps_common.sh" "$@"
cd "$(dirname "$0")/.."

REPEATS=${REPEATS:-2}
SIZES=${SIZES:-"1000 8000"}
FORCE_CHECK=${FORCE_CHECK:-1}
MDCORE_ARGS=${MDCORE_ARGS:-}
MPIRUN_ARGS=${MPIRUN_ARGS-"--bind-to none"}
STEPS=1000
WARMUP=100
CORES=2
DT_FS=2.0

require_positive_integers REPEATS
require_mdcore
[[ "$FORCE_CHECK" == 0 || "$FORCE_CHECK" == 1 ]] || die "FORCE_CHECK must be 0 or 1 (got '$FORCE_CHECK')"
read -r -a sizes <<<"$SIZES"
((${#sizes[@]} > 0)) || die "SIZES is empty"
for n in "${sizes[@]}"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "SIZES must be positive integers (water molecules), got '$n'"
done
mdcore_bin=$(cd "$(dirname "$mdcore_bin")" && pwd)/$(basename "$mdcore_bin")  # runs below cd elsewhere
command -v python3 >/dev/null || die "python3 is needed to convert the box and parse the reports"

# --- LAMMPS -----------------------------------------------------------------
find_lammps lmp lmp_mpi lmp_openmpi lmp_stable lmp_serial
for style in lj/cut/coul/long pppm shake; do
  grep -qw -- "$style" <<<"$lmp_help" || die "$lmp_bin lacks the '$style' style (needs the KSPACE, MOLECULE and RIGID packages)"
done
use_opt_pair_style lj/cut/coul/long
grep -q '^MPI v' <<<"$lmp_help" ||
  die "$lmp_bin is a serial build; this comparison runs LAMMPS as mpirun -np $CORES (install Debian's 'lammps' package)"
command -v mpirun >/dev/null || die "mpirun not found (apt-get install openmpi-bin) for the $CORES-rank LAMMPS runs"

allow_oversubscription "$CORES"

# --- run directory -------------------------------------------------------------
make_run_dir

# SPC/E: the force field both engines get (GROMACS units: nm, kJ/mol, e).
SIGMA_OW=0.316557     # nm
EPS_OW=0.650194       # kJ/mol
Q_OW=-0.8476
Q_HW=0.4238
M_OW=15.9994
M_HW=1.008
D_OH=0.1              # nm
D_HH=0.163299         # nm, 2 d_OH sin(109.47°/2), as mdcore's water generator
ANGLE_HOH=109.47      # degrees

write_top() {  # nwater file
  cat >"$2" <<EOF
; SPC/E water for peer_lammps_water.sh (rigid, SETTLE)
[ defaults ]
; nbfunc comb-rule
1 2

[ atomtypes ]
; name at.num mass charge ptype sigma epsilon
OW 8 $M_OW 0.0 A $SIGMA_OW $EPS_OW
HW 1 $M_HW 0.0 A 0.0 0.0

[ moleculetype ]
SOL 2

[ atoms ]
1 OW 1 SOL OW 1 $Q_OW $M_OW
2 HW 1 SOL HW1 1 $Q_HW $M_HW
3 HW 1 SOL HW2 1 $Q_HW $M_HW

[ settles ]
1 1 $D_OH $D_HH

[ exclusions ]
1 2 3
2 1 3
3 1 2

[ system ]
water

[ molecules ]
SOL $1
EOF
}

# .gro (nm, nm/ps) -> LAMMPS data file (units real: Å, Å/fs), one molecule per water.
gro_to_data() {  # gro data nwater
  python3 - "$@" "$Q_OW" "$Q_HW" "$M_OW" "$M_HW" <<'PY'
import sys
gro, data, nwater = sys.argv[1], sys.argv[2], int(sys.argv[3])
q_o, q_h, m_o, m_h = (float(x) for x in sys.argv[4:8])
lines = open(gro).read().splitlines()
try:
    natoms = int(lines[1].split()[0])
except (IndexError, ValueError):
    sys.exit("%s: no atom count on line 2" % gro)
if natoms != 3 * nwater or len(lines) < natoms + 3:
    sys.exit("%s: %d atoms (%d lines), expected %d waters" % (gro, natoms, len(lines), nwater))
first = lines[2]
dots = [i for i, c in enumerate(first) if c == "." and i >= 20]
if len(dots) < 6:
    sys.exit("%s: no velocities in the .gro (need positions and velocities)" % gro)
w = dots[1] - dots[0]          # GROMACS: fields of width w, positions w-5 decimals, velocities w-4
pos, vel = [], []
for k in range(natoms):
    line = lines[2 + k]
    name = line[10:15].strip()
    if name != ("OW", "HW1", "HW2")[k % 3]:
        sys.exit("%s: atom %d is '%s'; expected OW, HW1, HW2 per water" % (gro, k + 1, name))
    p = [float(line[20 + i * w:20 + (i + 1) * w]) for i in range(3)]
    v0 = 20 + 3 * w
    v = [float(line[v0 + i * w:v0 + (i + 1) * w]) for i in range(3)]
    pos.append(p)
    vel.append(v)
box = [float(x) for x in lines[natoms + 2].split()]
if len(box) not in (3, 9) or any(abs(x) > 0 for x in box[3:]):
    sys.exit("%s: only rectangular boxes are supported (box line %r)" % (gro, lines[natoms + 2]))
L = [10.0 * b for b in box[:3]]                      # nm -> Å
with open(data, "w") as f:
    f.write("SPC/E water from %s: %d molecules (units real)\n\n" % (gro, nwater))
    f.write("%d atoms\n%d bonds\n%d angles\n\n" % (natoms, 2 * nwater, nwater))
    f.write("2 atom types\n1 bond types\n1 angle types\n\n")
    for d, ax in enumerate("xyz"):
        f.write("0.0 %.6f %slo %shi\n" % (L[d], ax, ax))
    f.write("\nMasses\n\n1 %.6g\n2 %.6g\n" % (m_o, m_h))
    f.write("\nAtoms # full\n\n")
    for k, p in enumerate(pos):
        mol, typ, q = k // 3 + 1, 1 if k % 3 == 0 else 2, q_o if k % 3 == 0 else q_h
        x = [(10.0 * p[d]) % L[d] for d in range(3)]   # wrap into [0, L); bonds use the closest image
        f.write("%d %d %d %.4f %.6f %.6f %.6f\n" % (k + 1, mol, typ, q, x[0], x[1], x[2]))
    f.write("\nVelocities\n\n")
    for k, v in enumerate(vel):                      # nm/ps -> Å/fs
        f.write("%d %.8f %.8f %.8f\n" % (k + 1, 0.01 * v[0], 0.01 * v[1], 0.01 * v[2]))
    f.write("\nBonds\n\n")
    for m in range(nwater):
        o = 3 * m + 1
        f.write("%d 1 %d %d\n%d 1 %d %d\n" % (2 * m + 1, o, o + 1, 2 * m + 2, o, o + 2))
    f.write("\nAngles\n\n")
    for m in range(nwater):
        o = 3 * m + 1
        f.write("%d 1 %d %d %d\n" % (m + 1, o + 1, o, o + 2))
PY
}

eps_kcal=$(awk -v e="$EPS_OW" 'BEGIN { printf "%.7f", e / 4.184 }')     # kJ/mol -> kcal/mol
sigma_ang=$(awk -v s="$SIGMA_OW" 'BEGIN { printf "%.5f", s * 10 }')     # nm -> Å
rc_ang=10.0
r0_ang=$(awk -v d="$D_OH" 'BEGIN { print d * 10 }')
# LAMMPS input. md: the timed run (SHAKE, NVE). Otherwise a "kspace_style ..." line
# for a step-0 force dump without bonded terms (the force-accuracy check).
write_lammps_input() {  # file md|"kspace_style ..."
  local kspace="kspace_style    pppm 1.0e-5" bonded
  if [[ "$2" == md ]]; then
    bonded="bond_style      harmonic
bond_coeff      1 1000.0 $r0_ang
angle_style     harmonic
angle_coeff     1 100.0 $ANGLE_HOH"
  else
    kspace=$2
    bonded="bond_style      zero
bond_coeff      1 $r0_ang
angle_style     zero
angle_coeff     1 $ANGLE_HOH"
  fi
  {
    cat <<EOF
# SPC/E water, rc $rc_ang Å, LJ shifted, Coulomb by ${kspace#kspace_style }
units           real
atom_style      full
boundary        p p p
read_data       \${data}

pair_style      lj/cut/coul/long $rc_ang
pair_modify     shift yes
pair_coeff      1 1 $eps_kcal $sigma_ang
pair_coeff      2 2 0.0 0.0
pair_coeff      1 2 0.0 0.0
$kspace
$bonded
special_bonds   lj/coul 0.0 0.0 0.0

neighbor        2.0 bin
neigh_modify    every 1 delay 0 check yes

EOF
    if [[ "$2" == md ]]; then
      cat <<EOF
fix             1 all nve
fix             2 all shake 0.0001 20 0 b 1 a 1
timestep        $DT_FS

thermo_style    custom step temp pe ke etotal evdwl ecoul elong
thermo_modify   norm no
thermo          100
run             $STEPS
EOF
    else
      cat <<EOF
pair_modify     table 0
dump            f all custom 1 \${forces} id fx fy fz
dump_modify     f sort id format float %.10e
run             0
EOF
    fi
  } >"$1"
}
write_lammps_input "$tmp/in.water" md

results="$tmp/results.jsonl"   # one JSON object per run
: >"$results"
time_cmd=()
[[ -x /usr/bin/time ]] && time_cmd=(/usr/bin/time -f %P -o "$tmp/cpu")

cpu_per_core() {  # whole process incl. setup, per core
  [[ -s "$tmp/cpu" ]] && awk -v c="$CORES" '/%$/ { sub("%", "", $1); printf "%.1f", $1 / c }' "$tmp/cpu"
  return 0
}

# Appends one run's JSON record to $results and prints its line (mdcore's names its cluster and SIMD).
record_run() {  # record
  echo "$1" >>"$results"
  python3 -c '
import json, sys
r = json.loads(sys.argv[1])
engine = {"lammps": "LAMMPS"}.get(r["engine"], r["engine"])
kernel = "%s/%s, " % (r["cluster"], r["simd"]) if r["engine"] == "mdcore" else ""
print("  %s %5d atoms, repeat %d: %7.3f ns/day  (%.2f ms/step, T %.0f->%.0f K, drift %+.2e kJ/mol/ps/atom, %s%s%% CPU per core)"
      % (engine, r["natoms"], r["rep"], r["ns_per_day"], r["ms_per_step"], r["t_start"], r["t_end"], r["drift"],
         kernel, "%.0f" % r["cpu"] if r["cpu"] is not None else "?"))' "$1"
}

run_lammps() {  # nwater repeat
  local nw=$1 rep=$2 dir="$tmp/w$1" log="$tmp/w$1/log.lammps.$2" out="$tmp/w$1/out.lammps.$2"
  # shellcheck disable=SC2206  # MPIRUN_ARGS is split into flags on purpose
  local cmd=(mpirun -np "$CORES" $MPIRUN_ARGS "$lmp_bin" "${suffix_args[@]}" -var data water.data
             -in "$tmp/in.water" -log "$log" -screen none -nocite)
  rm -f "$tmp/cpu"
  (cd "$dir" && OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
     "${time_cmd[@]}" "${cmd[@]}" >"$out" 2>&1) ||
    { tail -n 20 "$out" "$log" >&2 2>/dev/null || true; die "LAMMPS run failed: ${cmd[*]}"; }
  local parsed
  parsed=$(python3 - "$log" "$nw" "$rep" "$CORES" "$STEPS" "$DT_FS" "$(cpu_per_core)" <<'PY'
import json, re, sys
log, nw, rep, cores, steps, dt_fs, cpu = sys.argv[1:8]
nw, rep, cores, steps, dt_fs = int(nw), int(rep), int(cores), int(steps), float(dt_fs)
text = open(log).read()
m = re.search(r"^Loop time of (\S+) on (\d+) procs for (\d+) steps with (\d+) atoms", text, re.M)
if not m:
    sys.exit("no 'Loop time' line in %s" % log)
loop, procs, nsteps, natoms = float(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4))
if procs != cores or nsteps != steps or natoms != 3 * nw:
    sys.exit("unexpected LAMMPS run: %s (expected %d procs, %d steps, %d atoms)" % (m.group(0), cores, steps, 3 * nw))
p = re.search(r"^Performance: (\S+) ns/day", text, re.M)
ns_day = float(p.group(1)) if p else steps * dt_fs * 1e-6 / loop * 86400.0
# thermo block: header "Step Temp PotEng KinEng TotEng E_vdwl E_coul E_long"
rows = []
lines = text.splitlines()
for i, line in enumerate(lines):
    if line.split()[:2] == ["Step", "Temp"]:
        hdr = line.split()
        for l in lines[i + 1:]:
            f = l.split()
            if len(f) != len(hdr) or not re.match(r"^\d+$", f[0]):
                break
            rows.append(dict(zip(hdr, (float(x) for x in f))))
        break
if len(rows) < 2:
    sys.exit("no thermo output in %s" % log)
# energy drift: least-squares slope of TotEng, kcal/mol/fs -> kJ/mol/ps per atom
t = [r["Step"] * dt_fs for r in rows]
e = [r["TotEng"] for r in rows]
tm, em = sum(t) / len(t), sum(e) / len(e)
slope = sum((a - tm) * (b - em) for a, b in zip(t, e)) / sum((a - tm) ** 2 for a in t)
drift = slope * 4.184 * 1000.0 / natoms
split = {}
for s in re.finditer(r"^(Pair|Bond|Kspace|Neigh|Comm|Output|Modify|Other)\s*\|\s*([0-9.e+-]+)\s*\|\s*([0-9.e+-]+)",
                     text, re.M):
    split[s.group(1)] = float(s.group(3)) * 1000.0 / steps          # avg over ranks, ms/step
if not split:
    sys.exit("no 'MPI task timing breakdown' in %s" % log)
split["Other"] = loop * 1000.0 / steps - sum(split.values())   # its min/max columns are empty
def grab(pat, cast=str):
    g = re.search(pat, text, re.M)
    return cast(g.group(1).strip()) if g else None
start = rows[0]
rec = dict(engine="lammps", nwater=nw, rep=rep, natoms=natoms, ns_per_day=ns_day,
           ms_per_step=loop * 1000.0 / steps, drift=drift, split=split, cpu=float(cpu) if cpu else None,
           e_start_kj=dict(lj=start["E_vdwl"] * 4.184, coul=(start["E_coul"] + start["E_long"]) * 4.184),
           t_start=start["Temp"], t_end=rows[-1]["Temp"],
           pppm=dict(g_ewald=grab(r"G vector \(1/distance\) = (\S+)", float),
                     grid=grab(r"^\s*grid = (.*)$"), order=grab(r"stencil order = (\d+)", int),
                     rel_acc=grab(r"estimated relative force accuracy = (\S+)", float)))
print(json.dumps(rec))
PY
  ) || die "cannot parse $log"
  record_run "$parsed"
}

run_mdcore() {  # nwater repeat
  local nw=$1 rep=$2 dir="$tmp/w$1" json="$tmp/w$1/mdcore.$2.json" out="$tmp/w$1/out.mdcore.$2"
  rm -f "$tmp/cpu"
  # shellcheck disable=SC2086  # MDCORE_ARGS is split into flags on purpose
  (cd "$dir" && OMP_NUM_THREADS=$CORES "${time_cmd[@]}" "$mdcore_bin" run --gro box.gro --top spce.top \
      --steps "$STEPS" --warmup "$WARMUP" --threads "$CORES" --json "$json" $MDCORE_ARGS >"$out" 2>&1) ||
    { tail -n 20 "$out" >&2; die "mdcore run failed ($nw waters)"; }
  local parsed
  parsed=$(PYTHONPATH=benchmarks python3 - "$json" "$nw" "$rep" "$CORES" "$(cpu_per_core)" <<'PY'
import json, sys
from mdcore_report import load_timed_report
path, nw, rep, cores, cpu = sys.argv[1:6]
nw, rep, cores = int(nw), int(rep), int(cores)
d = load_timed_report(path)
ms = d["ms_per_step"]
cfg = d["config"]
if cfg["threads"] != cores:
    sys.exit("mdcore ran %s threads, expected %d" % (cfg["threads"], cores))
natoms = d["system"]["natoms"]
if natoms != 3 * nw or cfg.get("constraints") != nw or not cfg.get("pme"):
    sys.exit("unexpected mdcore run: %s atoms, %s constraints, pme %s" % (natoms, cfg.get("constraints"), cfg.get("pme")))
timed = d["steps"] - d["warmup"]
split = {k: v * 1000.0 / timed for k, v in d["timings"].items() if k != "total"}   # ms/step
s = d["energies"]["start"]
rec = dict(engine="mdcore", nwater=nw, rep=rep, natoms=natoms, ns_per_day=d["ns_per_day"], ms_per_step=ms,
           drift=d["drift_per_atom_per_ps"], tol=cfg["drift_tolerance"], split=split,
           cpu=float(cpu) if cpu else None, e_start_kj=dict(lj=s["lj"], coul=s["coulomb_sr"] + s["coulomb_recip"]),
           t_start=s["temperature"], t_end=d["energies"]["end"]["temperature"],
           cluster=cfg["cluster"], simd=cfg["simd"],
           pme=dict(grid="x".join(str(g) for g in cfg["pme_grid"]), order=cfg["pme_order"],
                    beta=cfg["ewald_beta"], rtol=cfg["ewald_rtol"]))
print(json.dumps(rec))
PY
  ) || die "cannot parse $json"
  record_run "$parsed"
}

# --- force accuracy: step-0 forces of both engines against a tight Ewald sum --------
force_check() {  # nwater
  local nw=$1 dir="$tmp/w$1" k
  mkdir -p "$dir/forces"
  write_lammps_input "$dir/forces/in.pppm" "kspace_style    pppm 1.0e-5"
  write_lammps_input "$dir/forces/in.ref" "kspace_style    ewald 1.0e-10"
  for k in pppm ref; do
    # shellcheck disable=SC2086  # MPIRUN_ARGS is split into flags on purpose
    (cd "$dir" && OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
       mpirun -np "$CORES" $MPIRUN_ARGS "$lmp_bin" -var data water.data -var forces "forces/f.$k" \
       -in "forces/in.$k" -log "forces/log.$k" -screen none -nocite >"forces/out.$k" 2>&1) ||
      { tail -n 20 "$dir/forces/out.$k" "$dir/forces/log.$k" >&2 2>/dev/null || true; die "LAMMPS force dump ($k) failed"; }
  done
  # shellcheck disable=SC2086  # MDCORE_ARGS is split into flags on purpose
  (cd "$dir" && OMP_NUM_THREADS=$CORES "$mdcore_bin" run --gro box.gro --top spce.top --steps 0 --threads "$CORES" \
     --dump-forces forces/f.mdcore $MDCORE_ARGS >forces/out.mdcore 2>&1) ||
    { tail -n 20 "$dir/forces/out.mdcore" >&2; die "mdcore force dump failed"; }
  local parsed
  parsed=$(python3 - "$dir/forces" "$nw" <<'PY'
import json, math, sys
d, nw = sys.argv[1], int(sys.argv[2])
def lammps_dump(path):
    lines = open(path).read().splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith("ITEM: ATOMS"))
    return [[float(x) for x in l.split()[1:4]] for l in lines[i + 1:]]
ref, pppm = lammps_dump(d + "/f.ref"), lammps_dump(d + "/f.pppm")
md = [[float(x) / 41.84 for x in l.split()] for l in open(d + "/f.mdcore")]   # kJ/mol/nm -> kcal/mol/Å
if not len(ref) == len(pppm) == len(md) == 3 * nw:
    sys.exit("force dumps have %d/%d/%d rows, expected %d" % (len(ref), len(pppm), len(md), 3 * nw))
rms_f = math.sqrt(sum(c * c for f in ref for c in f) / len(ref))
def rel_err(forces):
    return math.sqrt(sum((a - b) ** 2 for f, r in zip(forces, ref) for a, b in zip(f, r)) / len(ref)) / rms_f
print(json.dumps(dict(engine="forcecheck", nwater=nw, natoms=3 * nw, lammps=rel_err(pppm), mdcore=rel_err(md))))
PY
  ) || die "cannot compare the force dumps in $dir/forces"
  echo "$parsed" >>"$results"
  python3 -c '
import json, sys
r = json.loads(sys.argv[1])
print("  force check, %d atoms, step 0: relative RMS force error against LAMMPS Ewald 1e-10:"
      " LAMMPS PPPM 1e-5 %.2e, mdcore %.2e" % (r["natoms"], r["lammps"], r["mdcore"]))' "$parsed"
}

# --- boxes ---------------------------------------------------------------------
echo "peer_lammps_water: SPC/E water, ${sizes[*]} molecules, $STEPS steps of $DT_FS fs, $CORES cores, REPEATS=$REPEATS, $ncores cores visible, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo "  (CPU per core: share of the cores each run actually got; under ~90% means other load on the machine)"
echo "  LAMMPS: $lmp_bin ($lmp_version), pair style $pair_style_used + pppm 1e-5, fix shake, OMP_NUM_THREADS=1, mpirun -np $CORES $MPIRUN_ARGS"
echo "  mdcore: $mdcore_bin run --gro box.gro --top spce.top --steps $STEPS --warmup $WARMUP --threads $CORES $MDCORE_ARGS"
echo "  accuracy: LAMMPS PPPM relative force accuracy 1e-5 is taken as comparable to mdcore's PME ewald_rtol 1e-5 (FORCE_CHECK=$FORCE_CHECK)"
for nw in "${sizes[@]}"; do
  dir="$tmp/w$nw"
  mkdir -p "$dir"
  "$mdcore_bin" run --system water --nwater "$nw" --steps 0 --threads "$CORES" --out-gro "$dir/box.gro" \
      >"$dir/out.generate" 2>&1 || { tail -n 20 "$dir/out.generate" >&2; die "mdcore could not generate the $nw-water box"; }
  write_top "$nw" "$dir/spce.top"
  gro_to_data "$dir/box.gro" "$dir/water.data" "$nw" || die "cannot convert $dir/box.gro to a LAMMPS data file"
  echo "  box: $nw waters ($((3 * nw)) atoms), $(tail -n 1 "$dir/box.gro" | awk '{ printf "%.4f x %.4f x %.4f nm", $1, $2, $3 }')"
done
if [[ "$FORCE_CHECK" == 1 ]]; then
  force_check "$(printf '%s\n' "${sizes[@]}" | sort -n | head -n 1)"
fi

for ((rep = 1; rep <= REPEATS; rep++)); do
  for nw in "${sizes[@]}"; do
    run_lammps "$nw" "$rep"
    run_mdcore "$nw" "$rep"
  done
done

echo
python3 - "$results" "$pair_style_used" "$STEPS" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pair_style, steps = sys.argv[2], int(sys.argv[3])
sizes = sorted({r["nwater"] for r in rows})
def runs(engine, nw):
    return [r for r in rows if r["engine"] == engine and r["nwater"] == nw]
def med(rs, key):
    return statistics.median(r[key] for r in rs) if rs else None
def med_split(rs):
    keys = sorted({k for r in rs for k in r["split"]})
    return {k: statistics.median(r["split"].get(k, 0.0) for r in rs) for k in keys}
bad = False
print("SPC/E water, %d steps of 2 fs, 2 cores, medians over repeats; LAMMPS %s + pppm, mpirun -np 2" % (steps, pair_style))
print("%7s  %14s  %14s  %14s  %26s  %s" % ("atoms", "LAMMPS ns/day", "mdcore ns/day", "mdcore/LAMMPS",
                                           "mdcore drift (tolerance)", "mdcore split: nonbonded/pme/search/constraints/rest"))
for nw in sizes:
    L, M = runs("lammps", nw), runs("mdcore", nw)
    l, m = med(L, "ns_per_day"), med(M, "ns_per_day")
    worst = max((r["drift"] for r in M), key=abs) if M else None
    tol = M[0]["tol"] if M else None
    ok = worst is not None and abs(worst) < tol
    bad |= not ok
    fmt = lambda x: "%14.3f" % x if x is not None else "%14s" % "n/a"
    ratio = "%14.2f" % (m / l) if l and m else "%14s" % "n/a"
    drift = "%+.2e (%.0e) %s" % (worst, tol, "ok" if ok else "TOO HIGH") if worst is not None else "n/a"
    sp = med_split(M)
    tot = sum(sp.values())
    nb = sp.get("nonbonded", 0.0)
    pme = sum(v for k, v in sp.items() if k.startswith("pme"))
    srch = sp.get("search", 0.0) + sp.get("prune", 0.0)
    con = sp.get("constraints", 0.0)
    rest = tot - nb - pme - srch - con
    split = "/".join("%.0f%%" % (100.0 * x / tot) for x in (nb, pme, srch, con, rest)) if tot > 0 else "n/a"
    print("%7d  %s  %s  %s  %26s  %s" % (3 * nw, fmt(l), fmt(m), ratio, drift, split))
print("drift: kJ/mol/ps per atom, largest |value| over repeats, against mdcore's config.drift_tolerance;"
      " search includes prune, rest is update + other")

def print_tasks(engine, nw, sp, keys):  # one engine's line: its total and the listed tasks, in order
    print("  %s %6d atoms: total %.2f  %s" % (engine, 3 * nw, sum(sp.values()),
          "  ".join("%s %.2f" % (k, sp[k]) for k in keys)))

print()
print("Step time by task, ms/step (medians; mdcore over steps 100..999, LAMMPS avg over ranks, all 1000 steps)")
for nw in sizes:
    M, L = runs("mdcore", nw), runs("lammps", nw)
    if M:
        sp = med_split(M)
        order = ["nonbonded", "pme_spread", "pme_fft", "pme_solve", "pme_gather", "search", "prune",
                 "constraints", "update", "other"]
        print_tasks("mdcore", nw, sp, [k for k in order if k in sp] + [k for k in sp if k not in order])
    if L:
        sp = med_split(L)
        print_tasks("LAMMPS", nw, sp,
                    [k for k in ("Pair", "Kspace", "Neigh", "Modify", "Comm", "Bond", "Output", "Other") if k in sp])
print("  (mdcore: constraints = leap-frog update + SETTLE; LAMMPS: Pair = LJ + real-space Coulomb, Kspace = PPPM,"
      " Modify = fix nve + fix shake)")

print()
print("Long range and start state (first repeat):")
for nw in sizes:
    M, L = runs("mdcore", nw), runs("lammps", nw)
    if not (M and L):
        continue
    m, l = M[0], L[0]
    pm, pl = m["pme"], l["pppm"]
    print("  %6d atoms: mdcore PME grid %s order %d beta %.4f/nm (ewald_rtol %.0e);"
          " LAMMPS PPPM grid %s order %s g_ewald %s/nm (estimated relative force accuracy %s)"
          % (3 * nw, pm["grid"], pm["order"], pm["beta"], pm["rtol"], (pl["grid"] or "?").replace(" ", "x"),
             pl["order"], "%.4f" % (10 * pl["g_ewald"]) if pl["g_ewald"] else "?",
             "%.2e" % pl["rel_acc"] if pl["rel_acc"] else "?"))
    for k, name in (("lj", "LJ"), ("coul", "Coulomb")):
        a, b = m["e_start_kj"][k], l["e_start_kj"][k]
        print("          start %-7s mdcore %12.2f  LAMMPS %12.2f kJ/mol  (rel. diff %+.1e)" % (name, a, b, (a - b) / abs(b)))
    print("          start T  mdcore %.1f K  LAMMPS %.1f K;  LAMMPS drift %+.2e kJ/mol/ps/atom (informative)"
          % (m["t_start"], l["t_start"], max((r["drift"] for r in L), key=abs)))
print("  (mdcore's start T averages the first two half-step kinetic energies, after SETTLE has corrected the"
      " .gro's 0.001 nm rounding; LAMMPS' is the .gro velocities as read)")

for r in (r for r in rows if r["engine"] == "forcecheck"):
    ratio = r["mdcore"] / r["lammps"]
    print()
    print("Force accuracy (%d atoms, step 0, against a LAMMPS Ewald sum at 1e-10): relative RMS force error"
          % r["natoms"])
    print("  LAMMPS PPPM 1e-5 %.2e, mdcore %.2e (mdcore/LAMMPS %.2f)" % (r["lammps"], r["mdcore"], ratio))
    if ratio > 2.0:
        print("  NOTE: mdcore's long-range forces are %.1fx less accurate than LAMMPS' here, so the ratio above favours"
              " mdcore; for matched accuracy rerun with e.g. MDCORE_ARGS=\"--pme-order 5\" or a finer --pme-spacing" % ratio)
    elif ratio < 0.5:
        print("  NOTE: mdcore's long-range forces are %.1fx more accurate than LAMMPS' here, so the ratio above"
              " disfavours mdcore (a coarser --pme-spacing would match)" % (1.0 / ratio))
    else:
        print("  comparable (within a factor 2)")

cpu = [r["cpu"] for r in rows if r.get("cpu") is not None]
busy = [c for c in cpu if c < 90.0]
if busy:
    print("WARNING: %d of %d runs got under 90%% of their cores (lowest %.0f%%): the machine is busy, "
          "figures are noisy; LAMMPS' MPI ranks, which wait on each other several times a step, lose far more "
          "than mdcore's threads" % (len(busy), len(cpu), min(busy)))
sys.exit(1 if bad else 0)
PY
