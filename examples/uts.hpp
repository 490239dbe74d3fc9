// The Unbalanced Tree Search benchmark (UTS, Olivier et al., LCPC 2006) as a
// divide-and-conquer problem: trees defined by a splittable random number
// generator built on SHA-1 (Nettle's), so every node's children follow from
// the node alone and any traversal counts the same nodes. Our own code after
// the benchmark's definition: a node's state is 20 bytes; the root's is
// SHA-1(16 zero bytes, the seed as 4 big-endian bytes); child i's is
// SHA-1(parent state, i as 4 big-endian bytes); a node's random number is its
// state's last 4 bytes, big-endian, masked to 31 bits, over 2^31.
#pragma once

#include <loopsched/algorithm/divide_and_conquer.hpp>

#include <boost/container/small_vector.hpp>

#include <nettle/sha1.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace loopsched::examples {

/// SHA-1 of a short message, with no per-call setup: OpenSSL 3's one-shot
/// SHA1() builds a digest context per call, which cost twice the hash itself
/// (314 ns against Nettle's 52 ns for a node's 24 bytes, on this project's machine).
template <std::size_t N>
std::array<std::uint8_t, 20> sha1(std::array<std::uint8_t, N> const& message) {
    sha1_ctx context;
    sha1_init(&context);
    sha1_update(&context, message.size(), message.data());
    std::array<std::uint8_t, 20> digest;
    sha1_digest(&context, digest.size(), digest.data());
    return digest;
}

/// One node: its generator state and depth.
struct uts_node {
    std::array<std::uint8_t, 20> state{};
    std::int32_t height = 0;
};

/// A tree's parameters, as UTS's command line names them.
struct uts_tree {
    enum shape_kind : int { binomial = 0, geometric = 1 };
    enum geo_shape : int { linear = 0, expdec = 1, cyclic = 2, fixed = 3 };
    shape_kind type = geometric; ///< -t
    geo_shape shape = linear;    ///< -a
    int gen_mx = 6;              ///< -d: the geometric tree's depth scale
    double b0 = 4.0;             ///< -b: the root's branching factor
    double q = 0.0;              ///< -q: a binomial node's chance of having children
    int m = 0;                   ///< -m: a binomial node's number of children
    int seed = 0;                ///< -r

    static constexpr int max_children = 100; // UTS's cap (the binomial root excepted)

    /// The named trees of UTS's sample set.
    static uts_tree named(std::string const& name) {
        if (name == "T1") return {geometric, fixed, 10, 4.0, 0.0, 0, 19};          // 4,130,071 nodes
        if (name == "T3") return {binomial, linear, 6, 2000.0, 0.124875, 8, 42};   // 4,112,897 nodes
        if (name == "T1-small") return {geometric, fixed, 6, 4.0, 0.0, 0, 19};     // for tests
        if (name == "T3-small") return {binomial, linear, 6, 200.0, 0.124, 8, 42}; // for tests
        if (name == "T1-medium") return {geometric, fixed, 8, 4.0, 0.0, 0, 19};   // for tests at scale
        if (name == "T1L") return {geometric, fixed, 13, 4.0, 0.0, 0, 29};         // 102,181,082 nodes
        throw std::invalid_argument("unknown UTS tree '" + name + "' (T1, T3, T1L, T1-small, T3-small)");
    }

    [[nodiscard]] uts_node root() const {
        std::array<std::uint8_t, 20> seed_block{};
        auto const s = static_cast<std::uint32_t>(seed);
        for (int i = 0; i < 4; ++i)
            seed_block[16 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(s >> (24 - 8 * i));
        uts_node r;
        r.state = sha1(seed_block);
        return r;
    }
    [[nodiscard]] static uts_node child(uts_node const& parent, int i) {
        std::array<std::uint8_t, 24> block{};
        std::memcpy(block.data(), parent.state.data(), 20);
        auto const n = static_cast<std::uint32_t>(i);
        for (int b = 0; b < 4; ++b)
            block[20 + static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(n >> (24 - 8 * b));
        uts_node c;
        c.state = sha1(block);
        c.height = parent.height + 1;
        return c;
    }
    /// The node's random number in [0, 1).
    [[nodiscard]] static double uniform(uts_node const& n) {
        std::uint32_t const b = (std::uint32_t{n.state[16]} << 24) | (std::uint32_t{n.state[17]} << 16) |
                                (std::uint32_t{n.state[18]} << 8) | std::uint32_t{n.state[19]};
        return static_cast<double>(b & 0x7fffffffu) / 2147483648.0;
    }

    [[nodiscard]] int children(uts_node const& n) const {
        int count = 0;
        if (type == binomial) {
            if (n.height == 0) return static_cast<int>(std::floor(b0)); // the root: b0 children (no cap)
            count = uniform(n) < q ? m : 0;
        } else {
            double b = b0;
            if (n.height > 0) {
                double const d = n.height;
                switch (shape) {
                case expdec: b = b0 * std::pow(d, -std::log(b0) / std::log(static_cast<double>(gen_mx))); break;
                case cyclic:
                    b = n.height > 5 * gen_mx ? 0.0 : std::pow(b0, std::sin(2.0 * 3.141592653589793 * d / gen_mx));
                    break;
                case fixed: b = n.height < gen_mx ? b0 : 0.0; break;
                case linear: b = b0 * (1.0 - d / static_cast<double>(gen_mx)); break;
                }
            }
            double const p = 1.0 / (1.0 + b); // a geometric distribution of mean b
            count = static_cast<int>(std::floor(std::log(1.0 - uniform(n)) / std::log(1.0 - p)));
        }
        return std::min(count, max_children);
    }

    /// Nodes of the subtree at `n`, by plain recursion.
    [[nodiscard]] std::uint64_t count(uts_node const& n) const {
        std::uint64_t total = 1;
        int const k = children(n);
        for (int i = 0; i < k; ++i) total += count(child(n, i));
        return total;
    }
};

/// UTS as divide and conquer: a node's result is its subtree's node count.
struct uts_search {
    uts_tree tree;
    [[nodiscard]] bool is_leaf(uts_node const& n) const { return tree.children(n) <= 0; }
    [[nodiscard]] std::uint64_t solve(uts_node const&) const { return 1; }
    /// The children, inline up to 8 (no allocation per node: the plain traversal has none).
    [[nodiscard]] boost::container::small_vector<uts_node, 8> divide(uts_node const& n) const {
        int const k = tree.children(n);
        boost::container::small_vector<uts_node, 8> out;
        out.reserve(static_cast<std::size_t>(k));
        for (int i = 0; i < k; ++i) out.push_back(uts_tree::child(n, i));
        return out;
    }
    [[nodiscard]] std::uint64_t combine(uts_node const&, std::span<std::uint64_t> r) const {
        std::uint64_t total = 1;
        for (auto x : r) total += x;
        return total;
    }
};

} // namespace loopsched::examples
