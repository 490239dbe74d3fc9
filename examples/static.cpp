// static: Ciorba's static analysis of a uniform-dependence loop nest over
// [1, size_1] x ... x [1, size_n]: OET, the bounds LB, UB and LB3, BSDA's
// minimum processors OP and its schedule as Table 3.1 prints it (a row per
// processor, a column per step); for 2-D loops, the optimal hyperplane, and
// with --mapping the processor of every chain along d_c and the points sent.
//   static --deps "(3,1),(4,2),(2,2)" --size 10x10
//   static --deps "(1,3),(2,2),(4,1)" --size 10x10 --mapping cps --processors 5
#include "cli.hpp"

#include <loopsched/dependence/bsda.hpp>
#include <loopsched/dependence/chains.hpp>
#include <loopsched/dependence/hyperplane.hpp>

#include <cctype>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace loopsched;
using namespace loopsched::examples;

namespace {

/// "(3,1),(4,2)" as vectors of components; every vector must have the same
/// length. A hand-written scanner: <regex> alone took a third of this file's compile time.
std::vector<std::vector<index_t>> parse_vectors(std::string const& text) {
    std::vector<std::vector<index_t>> out;
    std::size_t at = 0;
    auto skip_spaces = [&] {
        while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    };
    auto expect = [&](bool ok) { detail::require(ok, "--deps", text, "must list vectors such as (3,1),(4,2)"); };
    auto integer = [&] {
        skip_spaces();
        std::size_t const begin = at;
        if (at < text.size() && text[at] == '-') ++at;
        while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
        expect(at > begin && std::isdigit(static_cast<unsigned char>(text[at - 1])));
        return std::stoll(text.substr(begin, at - begin));
    };
    for (skip_spaces(); at < text.size(); skip_spaces()) {
        if (!out.empty()) { // vectors are separated by commas
            expect(text[at] == ',');
            ++at;
            skip_spaces();
        }
        expect(at < text.size() && text[at] == '(');
        std::size_t const begin = at++;
        std::vector<index_t> v{integer()};
        for (skip_spaces(); at < text.size() && text[at] == ','; skip_spaces()) {
            ++at;
            v.push_back(integer());
        }
        expect(at < text.size() && text[at] == ')');
        ++at;
        detail::require(out.empty() || v.size() == out.front().size(), "--deps", text.substr(begin, at - begin),
                        "must have as many components as the first vector");
        out.push_back(std::move(v));
    }
    expect(!out.empty());
    return out;
}

/// "10x10" as extents.
std::vector<index_t> parse_size(std::string const& text) {
    std::vector<index_t> out;
    std::stringstream parts(text);
    for (std::string c; std::getline(parts, c, 'x');) {
        detail::require(!c.empty() && c.find_first_not_of("0123456789") == std::string::npos, "--size", text,
                        "must be extents such as 10x10");
        out.push_back(std::stoll(c));
        detail::require(out.back() >= 1, "--size", text, "must have every extent >= 1");
    }
    return out;
}

template <std::size_t N>
std::string point_text(std::array<index_t, N> const& p) {
    return to_string<N>(p);
}

template <std::size_t N>
int analyse(std::vector<std::vector<index_t>> const& vectors, std::vector<index_t> const& size, bool print_table,
            std::string const& mapping, std::size_t processors, std::vector<double> const& powers) {
    std::vector<distance_vector<N>> v;
    for (auto const& c : vectors) {
        distance_vector<N> d{};
        std::copy(c.begin(), c.end(), d.begin());
        v.push_back(d);
    }
    dependence_set<N> const deps(std::move(v));
    typename box<N>::point lower{}, upper{};
    for (std::size_t d = 0; d < N; ++d) lower[d] = 1, upper[d] = size[d] + 1;
    box<N> const space(lower, upper);
    if (mapping.empty()) {
        time_steps<N> const t(space, deps);
        auto const b = bounds_of(t);
        auto const r = minimum_processors(t);
        std::cout << "points=" << t.size() << " OET=" << t.oet() << " LB=" << b.lb() << " (LB1=" << b.lb1
                  << " LB2=" << b.lb2 << ") UB=" << b.ub << " LB3=" << b.lb3 << " OP=" << r.processors
                  << " idle_slots=" << r.schedule.idle_slots() << '\n';
        std::cout << "|ECT_i|:";
        for (auto s : t.ect_sizes()) std::cout << ' ' << s;
        std::cout << "\n|CR_i|:";
        for (auto s : t.crucial_sizes()) std::cout << ' ' << s;
        std::cout << "\nBSDA tried:";
        for (auto [p, yes] : r.tried) std::cout << ' ' << p << (yes ? " yes" : " no") << ';';
        std::cout << '\n';
        if (auto const why = schedule_violation(r.schedule, t)) {
            std::cerr << "static: BSDA's schedule is illegal: " << *why << '\n';
            return 1;
        }
        {
            std::array<index_t, N> terminal{};
            for (std::size_t k = 0; k < N; ++k) terminal[k] = size[k] - 1;
            std::cout << "optimal hyperplane: " << to_string(optimal_hyperplane(deps, terminal)) << '\n';
        }
        if (print_table) {
            auto const table = r.schedule.table();
            std::size_t width = 4;
            for (auto const& row : table)
                for (auto const& cell : row)
                    if (cell) width = std::max(width, point_text<N>(*cell).size() + 1);
            std::cout << "processor";
            for (std::uint32_t s = 1; s <= r.schedule.steps(); ++s) std::cout << std::setw(static_cast<int>(width)) << s;
            std::cout << '\n';
            for (std::size_t p = 0; p < table.size(); ++p) {
                std::cout << std::setw(9) << p;
                for (auto const& cell : table[p])
                    std::cout << std::setw(static_cast<int>(width)) << (cell ? point_text<N>(*cell) : "-");
                std::cout << '\n';
            }
        }
        return 0;
    }
    if constexpr (N == 2) {
        chain_set const chains(space, deps);
        std::optional<chain_mapping> m;
        if (mapping == "cyclic") m = map_cyclic(chains, processors);
        else if (mapping == "cps") m = map_cps(chains, processors);
        else if (mapping == "acs") m = map_acs(chains, powers.empty() ? std::vector<double>(processors, 1.0) : powers);
        else detail::require(false, "--mapping", mapping, "must be cyclic, cps or acs");
        std::cout << "d_c=" << to_string<2>(chains.along()) << " offsets:";
        for (auto const& d : deps.vectors()) std::cout << ' ' << to_string<2>(d) << "->" << chains.offset(d);
        std::cout << "\nchains=" << chains.keys().size() << " processors=" << m->processors();
        if (m->split[0] != 0) std::cout << " split=" << m->split[0] << '+' << m->split[1];
        std::cout << '\n';
        for (index_t k : chains.keys())
            std::cout << "chain offset=" << point_text<2>(chains.start(k)) << " points=" << chains.size(k)
                      << " processor=" << m->processor_of(k) << '\n';
        auto const cyclic_volume = communication_volume(chains, map_cyclic(chains, m->processors()));
        std::cout << "volume=" << communication_volume(chains, *m) << " cyclic_volume=" << cyclic_volume << '\n';
        return 0;
    }
    detail::require(false, "--mapping", mapping, "needs a 2-D loop (chains are lines in the plane)");
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    command_line line("static_schedule",
                      "Ciorba's static schedules of a uniform-dependence loop nest: OET, LB, UB, LB3, BSDA's minimum "
                      "processors and schedule, the optimal hyperplane; or the chain mappings and what they send.",
                      "static_schedule --deps \"(3,1),(4,2),(2,2)\" --size 10x10   (./run static -- FLAGS)");
    std::string deps_text = "(3,1),(4,2),(2,2)", size_text = "10x10", mapping;
    bool no_table = false;
    std::size_t processors = 5;
    std::vector<double> powers;
    line.add_option("--deps", deps_text, "the dependence vectors, lexicographically positive")->capture_default_str();
    line.add_option("--size", size_text, "the extents of [1, size_1] x ... (2 to 5 dimensions)")->capture_default_str();
    line.add_flag("--no-table", no_table, "leave out the schedule table");
    line.add_option("--mapping", mapping, "cyclic, cps or acs: map the chains along d_c instead (2-D)");
    line.add_option("--processors", processors, "processors for --mapping")->capture_default_str();
    line.add_option("--powers", powers, "each processor's available power V/Q for --mapping acs")->delimiter(',');
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        auto const vectors = parse_vectors(deps_text);
        auto const size = parse_size(size_text);
        detail::require(size.size() == vectors.front().size(), "--size", size_text,
                        "must have one extent per component of the dependence vectors (" +
                                std::to_string(vectors.front().size()) + ")");
        if (!powers.empty()) processors = powers.size();
        switch (size.size()) {
        case 2: return analyse<2>(vectors, size, !no_table, mapping, processors, powers);
        case 3: return analyse<3>(vectors, size, !no_table, mapping, processors, powers);
        case 4: return analyse<4>(vectors, size, !no_table, mapping, processors, powers);
        case 5: return analyse<5>(vectors, size, !no_table, mapping, processors, powers);
        default: detail::require(false, "--size", size_text, "must have 2 to 5 dimensions");
        }
    } catch (error const& e) {
        std::cerr << "static: " << e.what() << '\n';
        return 2;
    } catch (std::out_of_range const&) {
        std::cerr << "static: a number in --deps or --size is too large\n";
        return 2;
    }
    return 2;
}
