// loop_statistics printed as a table: the definition of its operator<<, at
// the end of statistics.hpp when header-only, once in loopsched::compiled
// otherwise (which includes statistics.hpp first).
#pragma once

#include <loopsched/config.hpp>

#include <initializer_list>
#include <ios>
#include <ostream>

namespace loopsched {

namespace detail {
/// One row of the table (the widths as std::setw would give them, without <iomanip>).
inline void print_statistics_row(std::ostream& out, int rank, double compute, double wait, double comm,
                                 index_t iterations, index_t chunks) {
    out.width(6);
    out << rank;
    for (double v : {compute, wait, comm}) {
        out.width(12);
        out << v;
    }
    out.width(12);
    out << iterations;
    out.width(8);
    out << chunks << '\n';
}
} // namespace detail

LOOPSCHED_DECL std::ostream& operator<<(std::ostream& out, loop_statistics const& s) {
    char const* const heads[] = {"rank", "T_comp(s)", "T_wait(s)", "T_comm(s)", "iterations", "chunks"};
    int const widths[] = {6, 12, 12, 12, 12, 8};
    for (int i = 0; i < 6; ++i) {
        out.width(widths[i]);
        out << heads[i];
    }
    out << '\n';
    auto const flags = out.flags();
    auto const precision = out.precision(); // the caller's numbers after the table print as before it
    out.setf(std::ios_base::fixed, std::ios_base::floatfield);
    out.precision(4);
    for (auto const& w : s.workers)
        detail::print_statistics_row(out, w.rank, w.compute_seconds, w.wait_seconds, w.comm_seconds, w.iterations,
                                     w.chunks);
    if (!s.groups.empty()) {
        out << "groups (by sub-master rank):\n";
        for (auto const& g : s.groups)
            detail::print_statistics_row(out, g.rank, g.compute_seconds, g.wait_seconds, g.comm_seconds, g.iterations,
                                         g.chunks);
    }
    out << "T_p = " << s.parallel_seconds << " s, " << s.iterations() << " iterations in " << s.chunks() << " chunks";
    if (s.reissued > 0) out << " (" << s.reissued << " re-issued, " << s.dropped << " dropped)";
    if (s.partner_splits > 0) out << " (" << s.partner_splits << " partner splits)";
    for (std::size_t i = 0; i < s.departed.size(); ++i) out << (i ? ", " : "; left: rank ") << s.departed[i];
    for (std::size_t i = 0; i < s.lost.size(); ++i) out << (i ? ", " : "; lost: rank ") << s.lost[i];
    if (!s.scheme.empty()) out << "; scheme " << s.scheme;
    out << '\n';
    out.flags(flags);
    out.precision(precision);
    return out;
}

} // namespace loopsched
