// The command lines of the example and benchmark programs: CLI11, with a usage
// example in every --help, and the same help after an error that names the flag.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

namespace loopsched::examples {

/// True on the first MPI rank, or outside mpiexec: every rank parses the same
/// command line, and one copy of the help is enough.
inline bool first_rank() {
    for (char const* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
        if (char const* value = std::getenv(name)) return std::string_view(value) == "0";
    return true;
}

/// A program's flags. Declare them on it as on a CLI::App, then
/// `if (auto code = line.parse(argc, argv)) return *code;`.
class command_line : public CLI::App {
public:
    command_line(std::string const& name, std::string const& what, std::string const& example) : CLI::App(what, name) {
        footer("Example:\n  " + example);
        get_formatter()->column_width(34);
    }

    /// Parses argv. Returns the exit code when the program should stop here:
    /// 0 after --help, 2 after a flag it does not know or a value it cannot read.
    std::optional<int> parse(int argc, char** argv) {
        try {
            CLI::App::parse(argc, argv);
            return std::nullopt;
        } catch (CLI::CallForHelp const&) {
            if (first_rank()) std::cout << help();
            return 0;
        } catch (CLI::ParseError const& e) {
            // A flag it does not know is the first thing to say, before a required one missing.
            std::string reason = e.what();
            if (auto const extra = remaining(); !extra.empty()) {
                reason = "The following argument" + std::string(extra.size() > 1 ? "s were" : " was") + " not expected:";
                for (auto const& a : extra) reason += " " + a;
            }
            if (first_rank()) std::cerr << get_name() << ": " << reason << "\n\n" << help();
            return 2;
        }
    }
};

} // namespace loopsched::examples
