// A user's GROMACS box as a SystemDescriptor.
#include "mdtune/core/system_files.h"

#include <memory>

#include "mdcore/gromacs_input.h"
#include "mdcore/system_summary.h"
#include "mdtune/core/feasibility.h"
#include "mdtune/core/file_text.h"
#include "mdtune/core/input_error.h"
#include "mdtune/process/digest.h"

namespace mdtune::inline core {
namespace {

// The file's bytes for the digest, within the limit its reader applies afterwards.
std::string file_bytes(const std::string& path, const char* flag, std::size_t max_bytes) {
    FileText file = read_file_text(path, max_bytes);
    if (!file.ok()) throw InputError(std::string(flag) + ": " + path + ": cannot read the file: it " + file.error);
    return std::move(file.text);
}

}  // namespace

SystemDescriptor describe_system_files(const std::string& gro, const std::string& top, const std::string& mdp) {
    process::Fnv1a digest;
    digest.update("gro\n");
    digest.update(file_bytes(gro, "--gro", mdcore::kMaxGroFileBytes));
    digest.update("\ntop\n");
    digest.update(file_bytes(top, "--top", mdcore::kMaxTextFileBytes));
    if (!mdp.empty()) {  // only then: a box without an .mdp keeps its digest
        digest.update("\nmdp\n");
        digest.update(file_bytes(mdp, "--mdp", mdcore::kMaxMdpFileBytes));
    }
    mdcore::GromacsRunInput input;
    mdcore::System& system = input.system;
    try {
        input = mdcore::read_gromacs_run_input(gro, top, mdp);
        system.validate();
    } catch (const mdcore::InputError& e) {
        throw InputError(e.what());
    } catch (const std::invalid_argument& e) {
        throw InputError(gro + ": " + e.what());
    }
    SystemDescriptor d;
    d.gro = gro;
    d.top = top;
    d.mdp = mdp;
    d.files_digest = digest.hex();
    d.natoms = static_cast<long>(system.natoms());
    remember_system_summary(d, std::make_shared<const mdcore::SystemSummary>(mdcore::summarize(system)), input.pme);
    return d;
}

}  // namespace mdtune::core
