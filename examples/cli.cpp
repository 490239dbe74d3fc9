// CLI11 for every example and benchmark program, compiled once: a program that
// includes CLI11 itself pays about 8 s of compile time for it.
#include "cli.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string_view>

namespace loopsched::examples {

bool first_rank() {
    for (char const* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
        if (char const* value = std::getenv(name)) return std::string_view(value) == "0";
    return true;
}

option* option::capture_default_str() {
    o_->capture_default_str();
    return this;
}
option* option::delimiter(char separator) {
    o_->delimiter(separator);
    return this;
}
option* option::check(value_check const& c) {
    switch (c.what) {
    case value_check::kind::positive: o_->check(CLI::PositiveNumber); break;
    case value_check::kind::range: // whole bounds as integers: "in range 1 to 10", not "1.000000 to 10.000000"
        if (c.low == std::floor(c.low) && c.high == std::floor(c.high))
            o_->check(CLI::Range(static_cast<long long>(c.low), static_cast<long long>(c.high)));
        else
            o_->check(CLI::Range(c.low, c.high));
        break;
    case value_check::kind::member: o_->check(CLI::IsMember(c.members)); break;
    }
    return this;
}
option* option::required() {
    o_->required();
    return this;
}
option* option::take_last() {
    o_->take_last();
    return this;
}

command_line::command_line(std::string const& name, std::string const& what, std::string const& example)
        : app_(std::make_unique<CLI::App>(what, name)) {
    app_->footer("Example:\n  " + example);
    app_->get_formatter()->column_width(34);
}
command_line::~command_line() = default;

option* command_line::keep(CLI::Option* o) {
    return &options_.emplace_back(o);
}
option* command_line::add(std::string const& name, target value, std::string const& description) {
    return keep(std::visit([&](auto* v) { return app_->add_option(name, *v, description); }, value));
}
option* command_line::add_flag(std::string const& name, bool& value, std::string const& description) {
    return keep(app_->add_flag(name, value, description));
}

std::optional<int> command_line::parse(int argc, char** argv) {
    try {
        app_->parse(argc, argv);
        return std::nullopt;
    } catch (CLI::CallForHelp const&) {
        if (first_rank()) std::cout << app_->help();
        return 0;
    } catch (CLI::ParseError const& e) {
        // A flag it does not know is the first thing to say, before a required one missing.
        std::string reason = e.what();
        if (auto const extra = app_->remaining(); !extra.empty()) {
            reason = "The following argument" + std::string(extra.size() > 1 ? "s were" : " was") + " not expected:";
            for (auto const& a : extra) reason += " " + a;
        }
        if (first_rank()) std::cerr << app_->get_name() << ": " << reason << "\n\n" << app_->help();
        return 2;
    }
}

} // namespace loopsched::examples
