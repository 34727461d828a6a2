#include "launcher_flags.h"

#include "mdtune/core/input_error.h"
#include "mdtune/process/command_line.h"

namespace mdtune::cli {

std::vector<std::string> launcher_words(const std::optional<std::string>& launcher,
                                        const std::vector<std::string>& launcher_args) {
    std::vector<std::string> words;
    if (launcher) {
        try {
            words = process::split_command_line(*launcher);
        } catch (const process::CommandLineError& e) {
            throw InputError("--launcher: " + std::string(e.what()) + " in '" + *launcher + "'");
        }
    }
    words.insert(words.end(), launcher_args.begin(), launcher_args.end());
    return words;
}

}  // namespace mdtune::cli
