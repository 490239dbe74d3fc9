// The command lines of the example and benchmark programs: CLI11 behind a
// narrow interface compiled once (cli.cpp), with a usage example in every
// --help and the same help after an error that names the flag.
#pragma once

#include <deque>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace loopsched::examples {

/// True on the first MPI rank, or outside mpiexec: every rank parses the same
/// command line, and one copy of the help is enough.
bool first_rank();

/// A check on a flag's value: positive_number, in_range(low, high), one_of({...}).
struct value_check {
    enum class kind { positive, range, member } what;
    double low = 0.0, high = 0.0;
    std::vector<std::string> members;
};
inline value_check const positive_number{value_check::kind::positive, 0.0, 0.0, {}};
inline value_check in_range(double low, double high) { return {value_check::kind::range, low, high, {}}; }
inline value_check one_of(std::initializer_list<char const*> names) {
    return {value_check::kind::member, 0.0, 0.0, {names.begin(), names.end()}};
}

/// One flag of a command_line; its setters chain as CLI11's do.
class option {
public:
    explicit option(CLI::Option* o) : o_(o) {}
    option* capture_default_str();
    option* delimiter(char separator);
    option* check(value_check const& c);
    option* required();
    option* take_last(); ///< given twice, the last one counts
private:
    CLI::Option* o_;
};

/// A program's flags: declare them with add_option and add_flag, then
/// `if (auto code = line.parse(argc, argv)) return *code;`.
class command_line {
public:
    /// What add_option can write to: the types the programs read.
    using target = std::variant<int*, unsigned*, long*, unsigned long*, long long*, unsigned long long*, double*,
                                std::string*, std::vector<int>*, std::vector<long>*, std::vector<long long>*,
                                std::vector<unsigned long>*, std::vector<double>*, std::vector<std::string>*>;

    command_line(std::string const& name, std::string const& what, std::string const& example);
    ~command_line();
    command_line(command_line const&) = delete;
    command_line& operator=(command_line const&) = delete;

    template <class T>
    option* add_option(std::string const& name, T& value, std::string const& description = {}) {
        return add(name, target(&value), description);
    }
    option* add_flag(std::string const& name, bool& value, std::string const& description = {});

    /// Parses argv. Returns the exit code when the program should stop here:
    /// 0 after --help, 2 after a flag it does not know or a value it cannot read.
    std::optional<int> parse(int argc, char** argv);

private:
    option* add(std::string const& name, target value, std::string const& description);
    option* keep(CLI::Option* o);

    std::unique_ptr<CLI::App> app_;
    std::deque<option> options_; ///< a deque: the pointers add_option returned stay valid
};

} // namespace loopsched::examples
