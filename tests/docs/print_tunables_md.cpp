// Prints docs/user/tunables.md from the tunable table (mdcore::tunables()), so the
// reference page cannot drift from the code: the docs.TunablesPageMatchesTable
// test compares this output with the committed page.
//   print_tunables_md            the page on stdout
//   print_tunables_md FILE       the page into FILE (the docs_tunables target)
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include "mdcore/tunables.h"

namespace {

std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

// A table cell: a '|' would end the cell.
std::string cell(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

std::string values(const mdcore::TunableInfo& t) {
    std::string out;
    switch (t.kind) {
        case mdcore::TunableKind::Integer:
            out = "integer, " + number(t.min) + " to " + number(t.max);
            break;
        case mdcore::TunableKind::Real:
            out = "number above " + number(t.min) + ", at most " + number(t.max);
            break;
        case mdcore::TunableKind::Choice:
            for (std::string_view c : t.choices) out += (out.empty() ? "" : ", ") + ("`" + std::string(c) + "`");
            out = "one of " + out;
            break;
        case mdcore::TunableKind::Grid:
            out = "grid `NXxNYxNZ`, positive sizes";
            break;
    }
    if (t.accepts_auto) out += ", or `auto`";
    return out;
}

void print(std::ostream& out) {
    out << "<!-- Generated from the tunable table (engine/src/system/tunables.cpp) by\n"
           "     tests/docs/print_tunables_md.cpp. Do not edit by hand: run\n"
           "     cmake --build build --target docs_tunables\n"
           "     The ctest test docs.TunablesPageMatchesTable fails while this page and the table disagree. -->\n"
           "# Tunables\n\n"
           "Every setting mdtune can tune is one row of the tunable table in the engine.\n"
           "The same row gives the key in a TOML space (`[space]`) and in the trial database,\n"
           "the `mdcore run` flag, the accepted values and the default.\n"
           "The tuner, the feasibility check and the models all read this table.\n\n"
           "- **Key**: the name in a space file (`[space]`) and in the database's config text.\n"
           "- **Values**: what the value check accepts. A value outside is refused (exit 2).\n"
           "- **Machine-bound**: the machine limits the value further (cores, CPU SIMD levels, GPUs, ranks).\n"
           "  The feasibility check judges that per machine, not the value check.\n"
           "- **Default**: what mdcore uses when the flag is not given.\n\n"
           "Table order is the order of the database's canonical config text.\n"
           "New tunables go at the end ([adding a tunable](../developer/adding-a-tunable.md)).\n\n"
           "| key | flag | values | machine-bound | default | what it sets |\n"
           "|---|---|---|---|---|---|\n";
    for (const mdcore::TunableInfo& t : mdcore::tunables())
        out << "| `" << t.name << "` | `" << t.flag << ' ' << cell(t.placeholder) << "` | " << cell(values(t)) << " | "
            << (t.machine_bound ? "yes" : "no") << " | " << cell(t.default_doc) << " | " << cell(t.help) << " |\n";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 2) {
        std::cerr << "usage: print_tunables_md [FILE]\n";
        return 2;
    }
    std::ostringstream page;
    print(page);
    if (argc == 1) {
        std::cout << page.str();
        return std::cout ? 0 : 1;
    }
    std::ofstream file(argv[1], std::ios::binary);
    file << page.str();
    if (!file.flush()) {
        std::cerr << "print_tunables_md: cannot write " << argv[1] << "\n";
        return 1;
    }
    return 0;
}
