// Divide-and-conquer problems for the examples, tests and benchmarks:
// Fibonacci (the work in the internal nodes), QuickSort (Karamcheti and Wah's program:
// subproblems of uneven size), N-Queens (all solutions: degree up to N), and
// an uneven tree of any degree. Each is an `ops` for divide_and_conquer.
#pragma once

#include <loopsched/algorithm/divide_and_conquer.hpp>

#include <boost/serialization/vector.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace loopsched::examples {

/// fib(n) = fib(n - 1) + fib(n - 2), leaves below `cutoff` by the loop; each
/// internal node also burns `work` iterations, so the cost is in the nodes.
struct fibonacci {
    int cutoff = 2;
    int work = 0;

    static std::uint64_t iterative(int n) {
        std::uint64_t a = 0, b = 1;
        for (int i = 0; i < n; ++i) b = std::exchange(a, b) + b;
        return a;
    }
    [[nodiscard]] bool is_leaf(int n) const { return n < cutoff; }
    [[nodiscard]] std::uint64_t solve(int n) const { return iterative(n); }
    [[nodiscard]] std::vector<int> divide(int n) const { return {n - 1, n - 2}; }
    [[nodiscard]] std::uint64_t combine(int, std::span<std::uint64_t> r) const {
        volatile std::uint64_t sink = 0;
        for (int i = 0; i < work; ++i) sink = sink + static_cast<std::uint64_t>(i);
        return r[0] + r[1];
    }
};

/// QuickSort: a vector divided around its middle element's value into the
/// smaller, equal and larger parts (three subproblems, of uneven size);
/// leaves of at most `leaf` elements are sorted directly. The result is the
/// sorted vector, as std::sort gives.
struct quicksort {
    std::size_t leaf = 64;

    [[nodiscard]] bool is_leaf(std::vector<int> const& v) const { return v.size() <= leaf; }
    [[nodiscard]] std::vector<int> solve(std::vector<int> const& v) const {
        auto s = v;
        std::ranges::sort(s);
        return s;
    }
    [[nodiscard]] std::vector<std::vector<int>> divide(std::vector<int> const& v) const {
        int const pivot = v[v.size() / 2];
        std::vector<std::vector<int>> parts(3);
        for (int x : v) parts[x < pivot ? 0 : (x == pivot ? 1 : 2)].push_back(x);
        return parts;
    }
    [[nodiscard]] std::vector<int> combine(std::vector<int> const&, std::span<std::vector<int>> parts) const {
        std::vector<int> out;
        for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
        return out;
    }
};

/// N-Queens, all solutions: a problem is a board filled in its first rows
/// (one queen per row, as a column bitmask per constraint); it divides into
/// one subproblem per safe column of the next row (degree 0 to N).
struct queens_board {
    std::int32_t n = 8, row = 0;
    std::uint32_t columns = 0, diagonals = 0, antidiagonals = 0;
};
struct nqueens {
    int sequential_rows = 3; ///< boards with this many rows left are counted by a loop, not divided

    static std::uint64_t count(queens_board b) {
        if (b.row == b.n) return 1;
        std::uint64_t total = 0;
        std::uint32_t const full = (1u << b.n) - 1;
        for (std::uint32_t free = ~(b.columns | b.diagonals | b.antidiagonals) & full; free != 0; free &= free - 1) {
            std::uint32_t const bit = free & (~free + 1);
            total += count(
                    {b.n, b.row + 1, b.columns | bit, ((b.diagonals | bit) << 1) & full, (b.antidiagonals | bit) >> 1});
        }
        return total;
    }
    [[nodiscard]] bool is_leaf(queens_board const& b) const { return b.n - b.row <= sequential_rows; }
    [[nodiscard]] std::uint64_t solve(queens_board const& b) const { return count(b); }
    [[nodiscard]] std::vector<queens_board> divide(queens_board const& b) const {
        std::vector<queens_board> out;
        std::uint32_t const full = (1u << b.n) - 1;
        for (std::uint32_t free = ~(b.columns | b.diagonals | b.antidiagonals) & full; free != 0; free &= free - 1) {
            std::uint32_t const bit = free & (~free + 1);
            out.push_back(
                    {b.n, b.row + 1, b.columns | bit, ((b.diagonals | bit) << 1) & full, (b.antidiagonals | bit) >> 1});
        }
        return out;
    }
    [[nodiscard]] std::uint64_t combine(queens_board const&, std::span<std::uint64_t> r) const {
        std::uint64_t t = 0;
        for (auto x : r) t += x;
        return t;
    }
};

/// A tree of uneven degree (0 to 4 children, from a hash of the node) whose
/// result is an order-sensitive checksum of the subtree: a result combined in
/// the wrong order, or a node lost or run twice, changes it.
struct uneven_tree {
    int depth = 9;
    struct node {
        std::uint64_t id = 1;
        std::int32_t level = 0;
    };
    static std::uint64_t mix(std::uint64_t x) {
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        return x;
    }
    [[nodiscard]] std::size_t degree(node const& p) const {
        return p.level >= depth ? 0 : (p.level == 0 ? 3 : static_cast<std::size_t>(mix(p.id) % 5));
    }
    [[nodiscard]] bool is_leaf(node const& p) const { return degree(p) == 0; }
    [[nodiscard]] std::uint64_t solve(node const& p) const { return mix(p.id + 7); }
    [[nodiscard]] std::vector<node> divide(node const& p) const {
        std::vector<node> out;
        for (std::size_t i = 0; i < degree(p); ++i) out.push_back({p.id * 5 + i + 1, p.level + 1});
        return out;
    }
    [[nodiscard]] std::uint64_t combine(node const& p, std::span<std::uint64_t> r) const {
        std::uint64_t h = mix(p.id);
        for (auto x : r) h = mix(h * 31 + x);
        return h;
    }
};

} // namespace loopsched::examples
