#include "cli/launcher_flags.h"

#include "mdcore/cli_args.h"
#include "mdtune/process/command_line.h"

namespace mdtune::cli {

std::vector<std::string> take_repeated_flag(Args& args, const std::string& name,
                                            const std::map<std::string, bool>& takes_value) {
    const std::string flag = "--" + name;
    std::vector<std::string> values;
    Args kept;
    for (std::size_t k = 0; k < args.size(); ++k) {
        const std::string& a = args[k];
        if (a == flag) {
            if (k + 1 >= args.size()) throw mdcore::cli::UsageError(flag + " needs a value");
            values.push_back(args[++k]);
            continue;
        }
        if (a.rfind(flag + "=", 0) == 0) {
            values.push_back(a.substr(flag.size() + 1));
            continue;
        }
        kept.push_back(a);
        // Another flag's value is kept with it, whatever it looks like.
        const auto other = a.rfind("--", 0) == 0 ? takes_value.find(a.substr(2)) : takes_value.end();
        if (other != takes_value.end() && other->second && k + 1 < args.size()) kept.push_back(args[++k]);
    }
    args = std::move(kept);
    return values;
}

std::vector<std::string> launcher_words(const std::optional<std::string>& launcher,
                                        const std::vector<std::string>& launcher_args) {
    std::vector<std::string> words;
    if (launcher) {
        try {
            words = process::split_command_line(*launcher);
        } catch (const process::CommandLineError& e) {
            throw mdcore::cli::UsageError("--launcher: " + std::string(e.what()) + " in '" + *launcher + "'");
        }
    }
    words.insert(words.end(), launcher_args.begin(), launcher_args.end());
    return words;
}

}  // namespace mdtune::cli
