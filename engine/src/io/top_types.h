#pragma once
// The [ bondtypes ], [ constrainttypes ], [ angletypes ] and [ dihedraltypes ]
// tables and grompp's rules for matching a molecule's interaction to them: an
// entry matches forwards or backwards; dihedral entries may hold wildcards ('X')
// and the first entry with the most non-wildcard matches wins; consecutive
// type-9 lines for the same types are all applied; a repeated non-9 entry with
// other parameters replaces the earlier one.
#include <array>
#include <map>
#include <string>
#include <vector>

#include "io/text_input.h"

namespace mdcore {

// Which table a directive line or a molecule's interaction uses; dihedral
// function types 1 and 9 share one table, as in grompp.
struct BondedTableKey {
    enum class Kind { Bond, Constraint, Angle, Dihedral } kind = Kind::Bond;
    int funct = 0;
    auto operator<=>(const BondedTableKey&) const = default;
};

class BondedTypeTables {
public:
    // Bonded-type names get small integer ids; "X" is the wildcard (-1) for dihedrals.
    int bonded_type_id(const std::string& name);
    // The id of a known name, or -2 when no type of that name was declared.
    int find_bonded_type_id(const std::string& name) const;

    // Adds one type line (types as ids, -1 wildcard). Throws InputError at `where`
    // for a second, different block of type-9 parameters for the same types.
    void add(const BondedTableKey& key, const std::vector<int>& types, const std::vector<double>& params,
             bool allow_repeat, const input::Where& where);

    // The parameter sets that apply to an interaction of these bonded types: one,
    // several (consecutive type-9 lines) or none.
    std::vector<const std::vector<double>*> find(const BondedTableKey& key, const std::vector<int>& types) const;

private:
    struct Entry {
        std::vector<int> types;
        std::vector<double> params;
    };
    // Each line is stored forwards and then backwards, so a forward match suffices.
    std::map<BondedTableKey, std::vector<Entry>> tables_;
    std::map<std::string, int> ids_;
};

}  // namespace mdcore
