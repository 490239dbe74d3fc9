// Divide-and-conquer runs checked on the in-process transport: the result
// against the sequential recursion, each leaf solved once, each problem
// handled once, waits no deeper than the tree (check_run), for every setup.
#pragma once

#include "dnc_checks.hpp"

#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/transport/in_process.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

namespace loopsched::testing {

inline constexpr char const* placements[] = {"kazouris", "april", "steal", "steal-half"};

/// Counts every problem the ops see, over all ranks: with the sequential
/// count, "each problem handled once".
template <class Ops>
struct counted {
    Ops ops;
    std::atomic<std::uint64_t>* leaves;
    template <class P>
    bool is_leaf(P const& p) {
        return ops.is_leaf(p);
    }
    template <class P>
    auto solve(P const& p) {
        ++*leaves;
        return ops.solve(p);
    }
    template <class P>
    auto divide(P const& p) {
        return ops.divide(p);
    }
    template <class P, class R>
    auto combine(P const& p, std::span<R> r) {
        return ops.combine(p, r);
    }
};

template <class Problem, class Ops>
std::uint64_t count_leaves(Problem const& p, Ops const& ops) {
    if (ops.is_leaf(p)) return 1;
    std::uint64_t n = 0;
    for (auto const& c : ops.divide(p)) n += count_leaves(c, ops);
    return n;
}
template <class Problem, class Ops>
std::uint64_t count_nodes(Problem const& p, Ops const& ops) {
    if (ops.is_leaf(p)) return 1;
    std::uint64_t n = 1;
    for (auto const& c : ops.divide(p)) n += count_nodes(c, ops);
    return n;
}

/// Runs `problem` on `ranks` threads and checks the result, the leaves solved
/// and the problems handled against the sequential recursion, and that the
/// divided problems waiting at once on a worker's stack never outnumber the
/// tree's levels.
template <class Problem, class Ops>
void check_run(int ranks, Problem const& problem, Ops const& ops, dnc_options const& o) {
    auto const expected = sequential_divide_and_conquer(problem, Ops(ops));
    std::atomic<std::uint64_t> leaves{0};
    std::mutex m;
    std::vector<dnc_worker_statistics> rows;
    in_process::run(ranks, [&](in_process::endpoint& t) {
        counted<Ops> c{ops, &leaves};
        auto out = divide_and_conquer(t, problem, c, o);
        if (t.rank() == o.root) {
            CHECK(out.value == expected);
            std::lock_guard lock(m);
            rows = out.workers;
        }
    });
    CHECK(leaves.load() == count_leaves(problem, ops));
    std::uint64_t nodes = 0, tasks = 0, given = 0, received = 0;
    std::uint64_t const depth = testing::tree_depth(problem, ops);
    for (auto const& w : rows) {
        CAPTURE(w.rank);
        CHECK(w.peak_waits <= depth);
        nodes += w.nodes;
        tasks += w.tasks;
        given += w.given;
        received += w.received;
    }
    bool const dedicated = !o.master_computes.value_or(true) && ranks > 1;
    CHECK(rows.size() == static_cast<std::size_t>(dedicated ? ranks - 1 : ranks));
    CHECK(nodes == count_nodes(problem, ops));
    CHECK(received == given + 1); // every task sent was received once; the manager sent the first
    CHECK(tasks >= 1);
}

/// check(ranks, options) for every placement named, 1-4 ranks, a computing and a dedicated manager.
template <class Names, class Check>
void on_every_setup(Names const& names, Check check) {
    for (char const* placement : names)
        for (int ranks = 1; ranks <= 4; ++ranks)
            for (bool computes : {true, false}) {
                CAPTURE(placement);
                CAPTURE(ranks);
                CAPTURE(computes);
                dnc_options o;
                o.placement = placement;
                o.master_computes = computes;
                check(ranks, o);
            }
}

/// Whether options of type O have a `deterministic` to set (the task algorithms' do not).
template <class O>
concept settable_deterministic = requires(O& o) {
    o.deterministic = true;
};

} // namespace loopsched::testing
