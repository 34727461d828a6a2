// grompp's bonded-type tables (see top_types.h for the rules).
#include "io/top_types.h"

#include <algorithm>

namespace mdcore {

int BondedTypeTables::bonded_type_id(const std::string& name) {
    if (name == "X") return -1;
    const auto [it, inserted] = ids_.try_emplace(name, static_cast<int>(ids_.size()));
    return it->second;
}

int BondedTypeTables::find_bonded_type_id(const std::string& name) const {
    if (name == "X") return -1;
    const auto it = ids_.find(name);
    return it == ids_.end() ? -2 : it->second;
}

void BondedTypeTables::add(const BondedTableKey& key, const std::vector<int>& types,
                           const std::vector<double>& params, bool allow_repeat, const input::Where& where) {
    std::vector<Entry>& table = tables_[key];
    const std::vector<int> reversed(types.rbegin(), types.rend());
    // A line directly after one for the same types (in the same direction) continues its block.
    const bool continues_block = allow_repeat && table.size() >= 2 && table[table.size() - 2].types == types;
    bool append = true;
    for (Entry& e : table) {
        if (e.types != types && e.types != reversed) continue;
        const bool same_params = e.params == params;
        if (allow_repeat) {
            if (continues_block) continue;
            if (same_params) {
                append = false;  // force fields repeat identical type-9 blocks across files
            } else {
                input::fail(where, "a second block of type-9 dihedral parameters for the same atom types, with "
                                   "different parameters or after a block of several lines, is not supported "
                                   "(grompp refuses it too)");
            }
        } else {
            append = false;
            e.params = params;  // the later definition wins, as in grompp
        }
    }
    if (!append) return;
    table.push_back({types, params});
    table.push_back({reversed, params});
}

namespace {

// Non-wildcard matches of a dihedral entry, or -1 when it does not match.
int exact_matches(const std::vector<int>& entry, const std::vector<int>& types) {
    int exact = 0;
    for (std::size_t i = 0; i < types.size(); ++i) {
        if (entry[i] == types[i]) ++exact;
        else if (entry[i] != -1) return -1;
    }
    return exact;
}

}  // namespace

std::vector<const std::vector<double>*> BondedTypeTables::find(const BondedTableKey& key,
                                                               const std::vector<int>& types) const {
    std::vector<const std::vector<double>*> found;
    const auto it = tables_.find(key);
    if (it == tables_.end()) return found;
    const std::vector<Entry>& table = it->second;
    if (key.kind != BondedTableKey::Kind::Dihedral) {
        for (const Entry& e : table)
            if (e.types == types) {
                found.push_back(&e.params);
                break;
            }
        return found;
    }
    // The first entry with the most exact (non-wildcard) matches.
    int best = -1;
    std::size_t best_index = table.size();
    for (std::size_t i = 0; i < table.size() && best < static_cast<int>(types.size()); ++i) {
        const int m = exact_matches(table[i].types, types);
        if (m > best) {
            best = m;
            best_index = i;
        }
    }
    if (best_index == table.size()) return found;
    found.push_back(&table[best_index].params);
    // Further lines of the same block (type 9): every second entry, same types.
    for (std::size_t i = best_index + 2; i < table.size() && table[i].types == table[best_index].types; i += 2)
        found.push_back(&table[i].params);
    return found;
}

}  // namespace mdcore
