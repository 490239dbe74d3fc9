// Divide-and-conquer test helpers: a tree's depth (the bound on a worker's
// nested waits) and a wide, shallow tree that keeps tasks moving while
// problems wait.
#pragma once

#include "../../examples/dnc_problems.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace loopsched::testing {

/// The tree's depth by the sequential recursion: the root's is 0.
template <class Problem, class Ops>
std::uint64_t tree_depth(Problem const& p, Ops const& ops) {
    if (ops.is_leaf(p)) return 0;
    std::uint64_t deepest = 0;
    for (auto const& c : ops.divide(p)) deepest = std::max(deepest, tree_depth(c, ops));
    return deepest + 1;
}

/// A wide, shallow tree: `fanout` children per node for `levels` levels,
/// cheap leaves. Many tasks move between workers while problems wait.
struct wide_tree {
    std::uint32_t fanout = 24, levels = 3;
    struct node {
        std::uint64_t id = 0;
        std::uint32_t level = 0;
    };
    [[nodiscard]] bool is_leaf(node const& p) const { return p.level >= levels; }
    [[nodiscard]] std::uint64_t solve(node const& p) const { return examples::uneven_tree::mix(p.id + 3); }
    [[nodiscard]] std::vector<node> divide(node const& p) const {
        std::vector<node> out;
        for (std::uint32_t i = 0; i < fanout; ++i) out.push_back({p.id * fanout + i + 1, p.level + 1});
        return out;
    }
    [[nodiscard]] std::uint64_t combine(node const&, std::span<std::uint64_t> r) const {
        std::uint64_t h = 0;
        for (auto x : r) h = examples::uneven_tree::mix(h * 31 + x);
        return h;
    }
};

} // namespace loopsched::testing
