#!/usr/bin/env bash
# Rebuilds the gromos54a7 test system in this folder: the peptide Leu-Asp-Lys-Pro-Val (DHFR residues 36-40,
# heavy atoms in peptide.pdb) with gromos54a7 + SPC water and one Na+/Cl- pair in a 3.1 nm cube:
#   pdb2gmx (-ignh, NH3+/COO- termini) -> editconf (cubic 3.1 nm) -> solvate (spc216.gro)
#   -> genion (1 NA + 1 CL) -> steepest-descent EM (at most 500 steps, no constraints)
#   -> 2 ps NVT at 300 K (h-bonds, v-rescale) -> conf.gro (with velocities)
#   -> double-precision single-point references: energies.json, forces.txt, interactions.json
#   and energies_rf.json (GROMOS reaction field: epsilon-rf 62, rc 1.4 nm)
# The approach (and the reference() code) follows the script that made the DHFR reference in ../../dhfr-jac.
# Needs GROMACS 2022.5 (gmx = mixed precision, gmx_d = double precision, and the force fields of
# its share/gromacs/top; the Debian "gromacs" package provides all three) and python3.
#
# Usage: ./make.sh [all|top|em|nvt|refs|peptide]   (default: all; each stage uses the previous one's output)
#   peptide: recreates peptide.pdb from the DHFR set's conf.gro (not part of "all"; DHFR_GRO=path overrides)
# Environment: GMX, GMX_D (binaries), RUN (prefix, default "nice -n 19"), WORK (scratch folder, default
#              $TMPDIR/mdcore-topologies/gromos54a7), NVT_STEPS (default 1000 = 2 ps).
FF=gromos54a7
WATER=spc
BOX=3.1        # nm, cubic
# PME grid spacing of the EM and NVT runs, and the explicit grid of the references (what grompp picks for
# that spacing in this box). Not the usual 0.12 nm here: in the 3.1 nm box it gives a 28^3 grid, with
# which mixed-precision mdrun -nt 1 is not reproducible (FFTW's float transforms of that size vary in
# the last bit from run to run, and the EM then diverges). 0.10 nm gives 32^3, which reproduces exactly.
SPACING=0.10
GRID=32
EXTRA="rf pswitch_dispcorr"   # extra single points: rerun_<x>.mdp -> energies_<x>.json
TITLE="Leu-Asp-Lys-Pro-Val (DHFR 36-40) gromos54a7 + SPC, 1 NaCl"
# The system is neutral (NH3+/COO- termini, Asp-, Lys+, Na+, Cl-). grompp's one warning is GROMOS's
# "parametrized with a physically incorrect multiple-time-stepping scheme for a twin-range cut-off"
# (about how the force field was parametrised, on GROMACS' tracker), given for any GROMOS topology: hence -maxwarn 1 on every grompp call.
MAXWARN="-maxwarn 1"
source "$(dirname "$0")/../make_system.sh"
