#pragma once
// What resolve_config reads of a System, without its particles: the atom count,
// box, composition (atoms of equal mass, LJ type and charge as one class), LJ
// matrix, constraints and the physical settings. A summary of a 48,000-atom box is
// a handful of classes, so resolving a config from it costs microseconds whatever
// the size; a System is summarised once (O(N)), and a generated kind is summarised
// without generating it, from the same composition its generator uses.
#include <cstdint>
#include <string>
#include <vector>

#include "mdcore/engine.h"
#include "mdcore/generators.h"
#include "mdcore/physical_settings.h"
#include "mdcore/system.h"

namespace mdcore {

struct AtomClass {
    double mass = 0.0;  // amu
    int lj_type = 0;
    double charge = 0.0;  // e
    double count = 0.0;   // atoms
    // The heaviest atom this one is constrained to (GROMACS' rule for the Verlet
    // buffer): its mass and the constraint length; 0 when unconstrained.
    double constraint_mass = 0.0;    // amu
    double constraint_length = 0.0;  // nm
};

// The physical settings (rc, dt, ...) are its base, as they are System's.
struct SystemSummary : PhysicalSettings {
    std::string kind;
    long natoms = 0;
    Box box;
    std::vector<AtomClass> classes;  // ordered by (mass, type, charge)
    LjMatrix lj;
    long settles = 0;
    long distance_constraints = 0;     // kept by LINCS
    long bonded_interactions = 0;      // bonds, angles, dihedrals, 1-4 pairs, CMAP, restraints
    bool topology = false;             // exclusions or atom names (the memory estimate counts them)
    double update_group_radius = 0.0;  // largest update group (a settled water), nm: the DD halo

    double charged_atoms() const;
    double number_density() const { return box.volume() > 0 ? natoms / box.volume() : 0.0; }
    double mass_density_g_cm3() const;
};

// O(N) once; the summary resolves every config exactly as the System does.
SystemSummary summarize(const System& system);

// The summary of what make_named_system(kind, natoms, seed) builds (water kinds:
// natoms / 3 molecules, ion pairs replacing waters), without building it. Throws
// std::invalid_argument as the generator would (no atoms, too many ions, memory).
SystemSummary named_system_summary(SystemKind kind, long natoms, std::uint64_t seed);
SystemSummary lj_fluid_summary(const LjFluidSpec& spec, const char* kind = "lj");
SystemSummary water_summary(const WaterSpec& spec);

// resolve_config (mdcore/engine.h) on a summary: the same rules and messages.
EffectiveConfig resolve_config(const SystemSummary& system, const RunConfig& config, const RunControl& control,
                               const ResolveOptions& options = {});

}  // namespace mdcore
