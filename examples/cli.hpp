// A small command-line reader shared by the example programs: --name value pairs
// and --switches, with errors that name the flag.
#pragma once

#include <loopsched/error.hpp>

#include <charconv>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched::examples {

class options {
public:
    /// `known` lists the accepted options that take a value, `switches` those
    /// that take none (all without "--").
    options(int argc, char** argv, std::set<std::string> known, std::set<std::string> switches = {}) {
        for (int i = 1; i < argc; ++i) {
            std::string_view arg = argv[i];
            if (arg == "--") continue;
            if (!arg.starts_with("--")) throw error("unexpected argument '" + std::string(arg) + "'");
            std::string name(arg.substr(2));
            if (switches.contains(name)) {
                values_[name] = "1";
                continue;
            }
            if (!known.contains(name)) {
                std::string list;
                for (auto const& k : known) list += " --" + k;
                for (auto const& k : switches) list += " --" + k;
                throw error("unknown option --" + name + "; options:" + list);
            }
            if (i + 1 >= argc) throw error("option --" + name + " needs a value");
            values_[name] = argv[++i];
        }
    }

    [[nodiscard]] bool has(std::string const& name) const { return values_.contains(name); }
    [[nodiscard]] bool flag(std::string const& name) const { return has(name); }

    [[nodiscard]] double real(std::string const& name, double fallback) const {
        if (!has(name)) return fallback;
        return parse<double>(name, values_.at(name));
    }

    [[nodiscard]] std::string text(std::string const& name, std::string fallback = {}) const {
        auto it = values_.find(name);
        return it == values_.end() ? fallback : it->second;
    }

    [[nodiscard]] long long integer(std::string const& name, long long fallback) const {
        if (!has(name)) return fallback;
        return parse<long long>(name, values_.at(name));
    }

    /// A comma-separated list of numbers, e.g. --powers 3,3,1,1
    [[nodiscard]] std::vector<double> reals(std::string const& name) const {
        std::vector<double> out;
        if (!has(name)) return out;
        std::string_view rest = values_.at(name);
        while (true) {
            auto comma = rest.find(',');
            out.push_back(parse<double>(name, rest.substr(0, comma)));
            if (comma == std::string_view::npos) break;
            rest.remove_prefix(comma + 1);
        }
        return out;
    }

private:
    template <class T>
    static T parse(std::string const& name, std::string_view text) {
        T value{};
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
            throw error("option --" + name + " expects a number, got '" + std::string(text) + "'");
        return value;
    }

    std::map<std::string, std::string> values_;
};

} // namespace loopsched::examples
