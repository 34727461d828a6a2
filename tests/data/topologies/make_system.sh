#!/usr/bin/env bash
# The steps every family's make.sh shares (pdb2gmx, solvation, EM, NVT, references); each
# family's make.sh sets FF, WATER, BOX, SPACING, GRID, EXTRA, TITLE and MAXWARN, then sources this.
set -euo pipefail
export GMX_MAXBACKUP=-1
GMX=${GMX:-gmx}
GMX_D=${GMX_D:-gmx_d}
RUN=${RUN:-nice -n 19}
NVT_STEPS=${NVT_STEPS:-1000}
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-${TMPDIR:-/tmp}/mdcore-topologies/$FF}
mkdir -p "$work"

# Nonbonded settings of the EM and the NVT run (those of the DHFR set: rc 1.0, shifted LJ and Coulomb, PME;
# the grid spacing is SPACING, set above).
nonbonded() {
cat <<M
cutoff-scheme           = Verlet
pbc                     = xyz
coulombtype             = PME
rcoulomb                = 1.0
coulomb-modifier        = Potential-shift
vdw-type                = Cut-off
vdw-modifier            = Potential-shift
rvdw                    = 1.0
DispCorr                = no
fourierspacing          = $SPACING
pme-order               = 4
ewald-rtol              = 1e-5
M
}

# Single point settings: $1 = one of pme (rerun.mdp), fswitch (CHARMM), rf (GROMOS), pswitch (LJ
# potential-switch 0.8-1.0 nm), each optionally with the suffix _dispcorr (DispCorr = EnerPres; with
# pswitch AllEnerPres, which corrects the repulsion too).
rerun_mdp() {
local form=${1%_dispcorr} dispcorr=no
if [ "$form" != "$1" ]; then
  if [ "$form" = pswitch ]; then dispcorr=AllEnerPres; else dispcorr=EnerPres; fi
fi
cat <<M
integrator      = md
nsteps          = 0
dt              = 0.001
cutoff-scheme   = Verlet
pbc             = xyz
M
case $form in
pme) cat <<M
coulombtype     = PME
rcoulomb        = 1.0
vdwtype         = Cut-off
vdw-modifier    = Potential-shift
coulomb-modifier= Potential-shift
rvdw            = 1.0
M
;;
fswitch) cat <<M
; CHARMM's recommended nonbonded settings: LJ force-switched from 1.0 to 1.2 nm, PME with rc 1.2
coulombtype     = PME
rcoulomb        = 1.2
vdwtype         = Cut-off
vdw-modifier    = Force-switch
rvdw-switch     = 1.0
coulomb-modifier= Potential-shift
rvdw            = 1.2
M
;;
rf) cat <<M
; GROMOS-style reaction field (epsilon-rf 62) with rc 1.4 for Coulomb and LJ (LJ potential-shifted;
; the Verlet scheme always shifts the reaction-field potential to zero at rc)
coulombtype     = Reaction-Field
epsilon-rf      = 62
rcoulomb        = 1.4
vdwtype         = Cut-off
vdw-modifier    = Potential-shift
coulomb-modifier= Potential-shift
rvdw            = 1.4
M
;;
pswitch) cat <<M
coulombtype     = PME
rcoulomb        = 1.0
vdwtype         = Cut-off
vdw-modifier    = Potential-switch
rvdw-switch     = 0.8
coulomb-modifier= Potential-shift
rvdw            = 1.0
M
;;
esac
cat <<M
DispCorr        = $dispcorr
M
[ "$form" = rf ] || cat <<M
fourier-nx      = $GRID
fourier-ny      = $GRID
fourier-nz      = $GRID
pme-order       = 4
ewald-rtol      = 1e-5
M
cat <<M
nstcalcenergy   = 1
nstenergy       = 1
nstfout         = 1
constraints     = none
M
}

# Double-precision single point of conf.gro: $1 = .mdp, $2 = energies json, $3 = forces file or "-",
# $4 = file for the interaction counts of the .tpr or "-".
reference() {
  local mdp=$1 json=$2 forces=$3 counts=$4 tag
  tag=$(basename "$json" .json)
  (cd "$work"
   $RUN "$GMX_D" grompp -f "$mdp" -c "$here/conf.gro" -p "$here/topol.top" -o "$tag.tpr" -po "$tag.mdout.mdp" $MAXWARN >"$tag.grompp.log" 2>&1
   $RUN "$GMX_D" mdrun -nt 1 -s "$tag.tpr" -rerun "$here/conf.gro" -e "$tag.edr" -o "$tag.trr" -g "$tag.log" >"$tag.mdrun.log" 2>&1
   echo "$(seq -s ' ' 1 150) 0" | $RUN "$GMX_D" energy -dp -f "$tag.edr" -o "$tag.xvg" >"$tag.energy.log" 2>&1
   GMX_PRINT_LONGFORMAT=1 $RUN "$GMX_D" dump -f "$tag.trr" >"$tag.forces.dump" 2>/dev/null
   $RUN "$GMX_D" dump -s "$tag.tpr" >"$tag.tpr.dump" 2>/dev/null
   # A rerun stores no pressure: the dispersion correction's pressure comes from a 0-step run.
   local pres_xvg=-
   if grep -qiE "^DispCorr *= *(All)?EnerPres" "$mdp"; then
     $RUN "$GMX_D" mdrun -nt 1 -s "$tag.tpr" -nsteps 0 -e "$tag.step0.edr" -g "$tag.step0.log" -o "$tag.step0.trr" \
       -c "$tag.step0.gro" >"$tag.step0.mdrun.log" 2>&1
     printf "Pres.-DC\n0\n" | $RUN "$GMX_D" energy -dp -f "$tag.step0.edr" -o "$tag.step0.xvg" >"$tag.step0.energy.log" 2>&1
     pres_xvg=$tag.step0.xvg
   fi
   python3 - "$tag.xvg" "$tag.forces.dump" "$json" "$forces" "$here/conf.gro" "$tag.tpr.dump" "$counts" "$here/topol.top" "$pres_xvg" <<'PY'
import json, re, sys
xvg, dump, out_json, out_forces, gro, tpr_dump, out_counts, top, pres_xvg = sys.argv[1:]
names, values = [], None
for line in open(xvg):
    m = re.match(r'@ s(\d+) legend "(.*)"', line)
    if m:
        names.append(m.group(2))
    elif not line.startswith(('#', '@')) and line.strip():
        values = [float(x) for x in line.split()][1:]
        break
# every potential-energy term GROMACS reports: the terms up to and including "Potential"
terms = {}
for name, value in zip(names, values):
    terms[name] = value
    if name == 'Potential':
        break
# and the dispersion correction's pressure, from the 0-step run's single selected term
if pres_xvg != '-':
    for line in open(pres_xvg):
        if not line.startswith(('#', '@')) and line.strip():
            terms['Pres. DC (bar)'] = float(line.split()[1])
            break
natoms = int(open(gro).readlines()[1])
f, inside = [], False
for line in open(dump):
    if re.match(r'\s+f \(\d+x3\):', line):
        inside = True
        continue
    if inside:
        m = re.match(r'\s+f\[\s*\d+\]=\{\s*([-\d.e+]+),\s*([-\d.e+]+),\s*([-\d.e+]+)\}', line)
        if m:
            f.append([float(m.group(i)) for i in (1, 2, 3)])
        elif f:
            break
assert len(f) == natoms, (len(f), natoms)
json.dump({'energies_kJ_per_mol': terms, 'natoms': natoms}, open(out_json, 'w'), indent=1)
if out_forces != '-':
    with open(out_forces, 'w') as out:
        out.write('# fx fy fz per atom in kJ/mol/nm, same order as conf.gro\n')
        for v in f:
            out.write('%.8e %.8e %.8e\n' % tuple(v))
print(out_json, json.dumps(terms))
if out_counts != '-':
    # interaction counts per molecule type, as `gmx dump -s` lists them (moltype blocks, then the
    # molblocks giving how many molecules of each type the system has)
    moltypes, cur, sec, blocks, blk = {}, None, None, [], None
    for line in open(tpr_dump):
        m = re.match(r'\s+moltype \((\d+)\):', line)
        if m:
            cur = {'name': None, 'counts': {}}; moltypes[int(m.group(1))] = cur; sec = None; blk = None; continue
        m = re.match(r'\s+molblock \((\d+)\):', line)
        if m:
            blk = {}; blocks.append(blk); cur = None; continue
        if blk is not None:
            m = re.match(r'\s+moltype\s+=\s+(\d+)', line)
            if m: blk['moltype'] = int(m.group(1))
            m = re.match(r'\s+#molecules\s+=\s+(\d+)', line)
            if m: blk['n'] = int(m.group(1))
        if cur is not None:
            m = re.match(r'\s+name="(.*)"', line)
            if m and cur['name'] is None: cur['name'] = m.group(1)
            m = re.match(r'\s{6}(\S.*):$', line)
            if m: sec = m.group(1)
            # one line per interaction: "<index> type=<parameter index> (<FUNCTION>) <atoms>"
            m = re.match(r'\s+\d+ type=\s*\d+ \((\w+)\)', line)
            if m and sec is not None:
                key = '%s [%s]' % (sec, m.group(1))
                cur['counts'][key] = cur['counts'].get(key, 0) + 1
    out = {'natoms': natoms, 'moltypes': [], 'total': {}}
    per = {}
    for b in blocks:
        mt = moltypes[b['moltype']]
        per.setdefault(b['moltype'], 0); per[b['moltype']] += b['n']
    for i, n in sorted(per.items()):
        mt = moltypes[i]
        out['moltypes'].append({'name': mt['name'], 'molecules': n, 'counts': mt['counts']})
        for k, v in mt['counts'].items():
            out['total'][k] = out['total'].get(k, 0) + n * v
    # and the lines of topol.top's own (inline) molecule types, per directive and function type
    natoms_of = {'bonds': 2, 'pairs': 2, 'angles': 3, 'dihedrals': 4, 'cmap': 5, 'settles': 1}
    lines, mol, sec = {}, None, None
    for line in open(top):
        line = line.split(';')[0].strip()
        if not line or line.startswith('#'):
            continue
        m = re.match(r'\[\s*(\w+)\s*\]', line)
        if m:
            sec = m.group(1)
            continue
        if sec == 'moleculetype':
            mol = line.split()[0]; lines[mol] = {}
        elif mol is not None and sec in natoms_of:
            f = line.split()[natoms_of[sec]]
            key = '[ %s ] funct %s' % (sec, f)
            lines[mol][key] = lines[mol].get(key, 0) + 1
    out['topology_lines'] = lines
    json.dump(out, open(out_counts, 'w'), indent=1)
PY
  )
}

peptide() { # only needed to recreate peptide.pdb: DHFR residues 36-40, heavy atoms, renumbered 1-5
  local src=${DHFR_GRO:-$here/../../dhfr-jac/conf.gro}
  cd "$work"
  { echo "DHFR residues 36-40 (LEU ASP LYS PRO VAL), heavy atoms"
    awk 'NR>2 {r=substr($0,1,5)+0; n=substr($0,11,5); gsub(/ /,"",n); if (r>=36 && r<=40 && n !~ /^H/) c++} END{print c}' "$src"
    awk 'NR>2 {r=substr($0,1,5)+0; n=substr($0,11,5); gsub(/ /,"",n); if (r>=36 && r<=40 && n !~ /^H/) print substr($0,1,44)}' "$src"
    tail -n 1 "$src"; } > frag.gro
  $RUN "$GMX" editconf -f frag.gro -o "$here/peptide.pdb" -resnr 1 >peptide.editconf.log 2>&1
}

top() {
  cd "$work"
  cp "$here/peptide.pdb" peptide.pdb
  # -ignh: the hydrogens are (re)built by pdb2gmx with the force field's names; default termini (NH3+, COO-)
  $RUN "$GMX" pdb2gmx -f peptide.pdb -o pep.gro -p topol.top -i posre.itp -ff "$FF" -water "$WATER" -ignh >pdb2gmx.log 2>&1
  $RUN "$GMX" editconf -f pep.gro -o box.gro -bt cubic -box "$BOX" -c >editconf.log 2>&1
  $RUN "$GMX" solvate -cp box.gro -cs spc216.gro -p topol.top -o solv.gro >solvate.log 2>&1
  em_mdp > em.mdp
  $RUN "$GMX" grompp -f em.mdp -c solv.gro -p topol.top -o ions.tpr -po ions.mdout.mdp $MAXWARN >ions.grompp.log 2>&1
  # one Na+ Cl- pair replaces two waters (fixed seed); genion appends "NA 1" and "CL 1" to topol.top
  echo SOL | $RUN "$GMX" genion -s ions.tpr -p topol.top -o start.gro -pname NA -nname CL -np 1 -nn 1 -seed 1 >genion.log 2>&1
  # pdb2gmx's header names this machine's paths: drop those comment lines; name the system.
  sed -i -E '/^;\s+(Executable|Data prefix|Working dir):/d' topol.top posre.itp
  sed -i -E "/^\[ system \]/,/^\[ molecules \]/ { /^[^;[]/ s|.*|$TITLE| }" topol.top
  cp topol.top posre.itp "$here/"
}

em_mdp() {
  cat <<'M'
integrator              = steep
emtol                   = 1000
emstep                  = 0.01
nsteps                  = 500
M
  nonbonded
  echo "constraints             = none"
}

em() {
  cd "$work"
  em_mdp > em.mdp
  $RUN "$GMX" grompp -f em.mdp -c start.gro -p "$here/topol.top" -o em.tpr -po em.mdout.mdp $MAXWARN >em.grompp.log 2>&1
  $RUN "$GMX" mdrun -nt 1 -s em.tpr -deffnm em >em.mdrun.log 2>&1
  grep -E "converged|Maximum force|Potential Energy" em.log | tail -4
}

nvt() {
  cd "$work"
  { cat <<M
integrator              = md
dt                      = 0.002
nsteps                  = $NVT_STEPS
M
    nonbonded
    cat <<'M'
verlet-buffer-tolerance = 0.005
tcoupl                  = V-rescale
tc-grps                 = System
tau-t                   = 0.1
ref-t                   = 300
nsttcouple              = 10
ld-seed                 = 1
pcoupl                  = no
comm-mode               = Linear
nstcomm                 = 100
constraints             = h-bonds
constraint-algorithm    = lincs
lincs-order             = 4
lincs-iter              = 1
nstcalcenergy           = 100
nstenergy               = 100
nstlog                  = 100
nstxout                 = 0
nstvout                 = 0
nstfout                 = 0
nstxout-compressed      = 0
continuation            = no
gen-vel                 = yes
gen-temp                = 300
gen-seed                = 1
M
  } > nvt.mdp
  $RUN "$GMX" grompp -f nvt.mdp -c em.gro -p "$here/topol.top" -o nvt.tpr -po nvt.mdout.mdp $MAXWARN >nvt.grompp.log 2>&1
  $RUN "$GMX" mdrun -nt 1 -s nvt.tpr -deffnm nvt -c "$here/conf.gro" >nvt.mdrun.log 2>&1
  echo "4 0" | $RUN "$GMX" energy -f nvt.edr -o nvt_temp.xvg 2>/dev/null | grep -E "^Temperature" || true
}

refs() {
  cd "$work"
  rerun_mdp pme > "$here/rerun.mdp"
  reference "$here/rerun.mdp" "$here/energies.json" "$here/forces.txt" "$here/interactions.json"
  for extra in $EXTRA; do
    rerun_mdp "$extra" > "$here/rerun_$extra.mdp"
    reference "$here/rerun_$extra.mdp" "$here/energies_$extra.json" - -
  done
}

case "${1:-all}" in
  all) top; em; nvt; refs ;;
  peptide|top|em|nvt|refs) "$1" ;;
  *) echo "usage: $0 [all|peptide|top|em|nvt|refs]" >&2; exit 2 ;;
esac
