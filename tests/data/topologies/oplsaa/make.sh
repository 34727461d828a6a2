#!/usr/bin/env bash
# Rebuilds the oplsaa test system in this folder: the peptide Leu-Asp-Lys-Pro-Val (DHFR residues 36-40,
# heavy atoms in peptide.pdb) with oplsaa + SPC/E water and one Na+/Cl- pair in a 3.0 nm cube:
#   pdb2gmx (-ignh, NH3+/COO- termini) -> editconf (cubic 3.0 nm) -> solvate (spc216.gro)
#   -> genion (1 NA + 1 CL) -> steepest-descent EM (at most 500 steps, no constraints)
#   -> 2 ps NVT at 300 K (h-bonds, v-rescale) -> conf.gro (with velocities)
#   -> double-precision single-point references: energies.json, forces.txt, interactions.json
# The approach (and the reference() code) follows the script that made the DHFR reference in ../../dhfr-jac.
# Needs GROMACS 2022.5 (gmx = mixed precision, gmx_d = double precision, and the force fields of
# its share/gromacs/top; the Debian "gromacs" package provides all three) and python3.
#
# Usage: ./make.sh [all|top|em|nvt|refs|peptide]   (default: all; each stage uses the previous one's output)
#   peptide: recreates peptide.pdb from the DHFR set's conf.gro (not part of "all"; DHFR_GRO=path overrides)
# Environment: GMX, GMX_D (binaries), RUN (prefix, default "nice -n 19"), WORK (scratch folder, default
#              $TMPDIR/mdcore-topologies/oplsaa), NVT_STEPS (default 1000 = 2 ps).
FF=oplsaa
WATER=spce
BOX=3.0        # nm, cubic
SPACING=0.12   # PME grid spacing of the EM and NVT runs
GRID=25       # PME grid of the references: what grompp picks for fourierspacing 0.12 in this box
EXTRA="pme_dispcorr"   # extra single points: rerun_<x>.mdp -> energies_<x>.json
TITLE="Leu-Asp-Lys-Pro-Val (DHFR 36-40) oplsaa + SPC/E, 1 NaCl"
# The system is neutral (NH3+/COO- termini, Asp-, Lys+, Na+, Cl-) and grompp warns about nothing:
# every grompp call runs without -maxwarn.
MAXWARN=""
source "$(dirname "$0")/../make_system.sh"
