// Chains of a 2-D uniform-dependence loop along its communication vector d_c
// and the mappings of chains to processors (Ciorba, 3.4): cyclic, CPS's
// split by offsets, ACS's shares by available power, and the communication
// volume each implies.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/error.hpp>
#include <loopsched/space/box.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loopsched {

/// The communication vector: the dependence vector with the smallest absolute
/// coordinates, as section 0.2 suggests: the smallest largest coordinate, then
/// the smallest sum, then the first in the set ((2,2) before (1,3) and (4,1)).
template <DependenceSet D>
distance_vector<D::rank> communication_vector(D const& deps) {
    auto const v = deps.vectors();
    detail::require(!v.empty(), "dependence set", 0, "needs at least one vector for a communication vector");
    auto weight = [](auto const& d) {
        std::pair<index_t, index_t> w{0, 0}; // largest, sum
        for (index_t c : d) {
            index_t const a = c < 0 ? -c : c;
            w.first = std::max(w.first, a);
            w.second += a;
        }
        return w;
    };
    return *std::ranges::min_element(v, {}, weight);
}

/// The chains of a 2-D box along d_c: the lines j = r + lambda d_c through its
/// points. A chain is named by its key, the cross product of d_c's primitive
/// direction u with j - L, which is the same along a line; key 0 is the chain
/// of L, positive keys lie below d_c (offsets (x, 0)), negative ones above
/// (offsets (0, y)). A dependence d moves data from chain k to chain k + offset(d).
class chain_set {
public:
    template <DependenceSet D>
    requires(D::rank == 2) chain_set(box<2> const& space, D const& deps, std::optional<distance_vector<2>> along = {})
        : space_(space), vectors_(deps.vectors().begin(), deps.vectors().end()) {
        detail::require(!space.empty(), "iteration space", space.size(), "must hold at least one point");
        d_c_ = along ? *along : communication_vector(deps);
        detail::require(d_c_[0] != 0 || d_c_[1] != 0, "communication vector", to_string<2>(d_c_), "must not be zero");
        index_t const g = std::gcd(d_c_[0], d_c_[1]);
        u_ = {d_c_[0] / g, d_c_[1] / g};
        // The corners bound the keys.
        index_t const w = space.extent(0) - 1, h = space.extent(1) - 1;
        key_min_ = std::min({key_of_offset({0, 0}), key_of_offset({w, 0}), key_of_offset({0, h}), key_of_offset({w, h})});
        key_max_ = std::max({key_of_offset({0, 0}), key_of_offset({w, 0}), key_of_offset({0, h}), key_of_offset({w, h})});
        sizes_.assign(static_cast<std::size_t>(key_max_ - key_min_ + 1), 0);
        for (index_t x = 0; x <= w; ++x)
            for (index_t y = 0; y <= h; ++y) ++sizes_[static_cast<std::size_t>(key_of_offset({x, y}) - key_min_)];
    }

    [[nodiscard]] box<2> const& space() const noexcept { return space_; }
    [[nodiscard]] distance_vector<2> const& along() const noexcept { return d_c_; }
    [[nodiscard]] std::span<distance_vector<2> const> vectors() const noexcept { return vectors_; }

    /// The chain of point j.
    [[nodiscard]] index_t key(std::array<index_t, 2> const& j) const noexcept {
        return key_of_offset({j[0] - space_.lower()[0], j[1] - space_.lower()[1]});
    }
    /// How far a dependence vector moves data across chains (0: along d_c, inside a chain).
    [[nodiscard]] index_t offset(distance_vector<2> const& d) const noexcept { return key_of_offset(d); }
    [[nodiscard]] index_t key_min() const noexcept { return key_min_; }
    [[nodiscard]] index_t key_max() const noexcept { return key_max_; }
    /// Keys from key_min() to key_max(), some possibly empty (lines between lattice points).
    [[nodiscard]] std::size_t key_count() const noexcept { return sizes_.size(); }
    /// Points on chain `key`.
    [[nodiscard]] std::size_t size(index_t key) const {
        return key < key_min_ || key > key_max_ ? 0 : sizes_[static_cast<std::size_t>(key - key_min_)];
    }
    /// The non-empty chains, by key.
    [[nodiscard]] std::vector<index_t> keys() const {
        std::vector<index_t> out;
        for (index_t k = key_min_; k <= key_max_; ++k)
            if (size(k) != 0) out.push_back(k);
        return out;
    }
    /// The first point of a chain, relative to L: its offset r (one coordinate 0 when d_c >= 0).
    [[nodiscard]] std::array<index_t, 2> start(index_t key) const {
        index_t const w = space_.extent(0) - 1, h = space_.extent(1) - 1;
        for (index_t x = 0; x <= w; ++x)
            for (index_t y = 0; y <= h; ++y)
                if (key_of_offset({x, y}) == key) return {x, y};
        detail::require(false, "chain key", key, "names no chain of the space");
        return {};
    }

private:
    [[nodiscard]] index_t key_of_offset(std::array<index_t, 2> const& r) const noexcept {
        return u_[1] * r[0] - u_[0] * r[1];
    }

    box<2> space_;
    std::vector<distance_vector<2>> vectors_;
    distance_vector<2> d_c_{}, u_{};
    index_t key_min_ = 0, key_max_ = 0;
    std::vector<std::size_t> sizes_;
};

/// Which processor runs each chain: processor_of(key).
class chain_mapping {
public:
    chain_mapping(index_t key_min, std::vector<std::uint32_t> processors, std::size_t count)
        : key_min_(key_min), of_(std::move(processors)), count_(count) {}

    [[nodiscard]] std::uint32_t processor_of(index_t key) const { return of_.at(static_cast<std::size_t>(key - key_min_)); }
    [[nodiscard]] std::size_t processors() const noexcept { return count_; }
    /// CPS's split of the processors: below d_c and above it (0 above: no split).
    std::array<std::size_t, 2> split{0, 0};

private:
    index_t key_min_;
    std::vector<std::uint32_t> of_;
    std::size_t count_;
};

/// Points sent between processors: one per (point, dependence) whose source
/// lies in the space and on another processor's chain.
inline std::size_t communication_volume(chain_set const& chains, chain_mapping const& m) {
    std::size_t volume = 0;
    auto const& s = chains.space();
    for (index_t x = s.lower()[0]; x < s.upper()[0]; ++x)
        for (index_t y = s.lower()[1]; y < s.upper()[1]; ++y) {
            std::uint32_t const here = m.processor_of(chains.key({x, y}));
            for (auto const& d : chains.vectors())
                if (std::array<index_t, 2> const src{x - d[0], y - d[1]}; s.contains(src))
                    volume += m.processor_of(chains.key(src)) != here ? 1 : 0;
        }
    return volume;
}

namespace detail {
inline std::uint32_t cyclic(index_t key, std::size_t p) {
    auto const n = static_cast<index_t>(p);
    return static_cast<std::uint32_t>(((key % n) + n) % n);
}
} // namespace detail

/// Cyclic mapping [MA01]: chain k on processor k mod P, so C_(0,0), C_(P,0),
/// C_(2P,0), ... share a processor.
inline chain_mapping map_cyclic(chain_set const& chains, std::size_t processors) {
    detail::require(processors >= 1, "processors", processors, "must be >= 1");
    std::vector<std::uint32_t> of(chains.key_count());
    for (index_t k = chains.key_min(); k <= chains.key_max(); ++k)
        of[static_cast<std::size_t>(k - chains.key_min())] = detail::cyclic(k, processors);
    return {chains.key_min(), std::move(of), processors};
}

/// CPS's split mapping: P = q_below + q_above; the chains below d_c (key >= 0)
/// cycle over the first q_below processors, those above over the other
/// q_above, so a dependence whose offset is a multiple of its side's q stays
/// on one processor (Figure 3.6: offsets 3 below and 2 above, 5 processors
/// split 3 + 2). As the thesis does, q_below and q_above are the offsets of
/// two dependence vectors, one on each side, with q_below + q_above = P (the
/// pair that sends least). The thesis leaves other P open: then every split
/// whose busiest processor holds at most 1.5 times the mean number of points
/// is tried, and the one that sends least is kept. With chains on one side
/// only, the mapping is cyclic.
inline chain_mapping map_cps(chain_set const& chains, std::size_t processors) {
    detail::require(processors >= 1, "processors", processors, "must be >= 1");
    std::size_t below_points = 0, above_points = 0;
    for (index_t k = chains.key_min(); k <= chains.key_max(); ++k) (k >= 0 ? below_points : above_points) += chains.size(k);
    if (processors < 2 || below_points == 0 || above_points == 0) return map_cyclic(chains, processors);
    auto mapping_for = [&](std::size_t below) {
        std::vector<std::uint32_t> of(chains.key_count());
        for (index_t k = chains.key_min(); k <= chains.key_max(); ++k)
            of[static_cast<std::size_t>(k - chains.key_min())] =
                    k >= 0 ? detail::cyclic(k, below)
                           : static_cast<std::uint32_t>(below) + detail::cyclic(-k, processors - below);
        chain_mapping m{chains.key_min(), std::move(of), processors};
        m.split = {below, processors - below};
        return m;
    };
    auto imbalance = [&](std::size_t below) {
        double const mean = static_cast<double>(below_points + above_points) / static_cast<double>(processors);
        return std::max(static_cast<double>(below_points) / static_cast<double>(below),
                        static_cast<double>(above_points) / static_cast<double>(processors - below)) / mean;
    };
    std::optional<chain_mapping> best;
    std::size_t best_volume = 0;
    auto consider = [&](std::size_t below) {
        auto m = mapping_for(below);
        std::size_t const v = communication_volume(chains, m);
        if (!best || v < best_volume) best = std::move(m), best_volume = v;
    };
    for (auto const& db : chains.vectors())
        for (auto const& da : chains.vectors())
            if (index_t const below = chains.offset(db), above = -chains.offset(da);
                below > 0 && above > 0 && static_cast<std::size_t>(below + above) == processors)
                consider(static_cast<std::size_t>(below));
    if (best) return *best;
    std::size_t most_even = 1;
    for (std::size_t below = 1; below < processors; ++below)
        if (imbalance(below) < imbalance(most_even)) most_even = below;
    for (std::size_t below = 1; below < processors; ++below)
        if (below == most_even || imbalance(below) <= 1.5) consider(below);
    return *best;
}

/// ACS's mapping on processors of different available power (V_i / Q_i):
/// each processor's share of the chains is proportional to its power (largest
/// remainders), and the chains are dealt in key order, each to the processor
/// furthest below its share so far, so shares interleave as in a cyclic mapping.
inline chain_mapping map_acs(chain_set const& chains, std::span<double const> powers) {
    detail::require(!powers.empty(), "powers", 0, "must name at least one processor");
    double total = 0.0;
    for (double p : powers) {
        detail::require(std::isfinite(p) && p > 0.0, "power", p, "must be finite and > 0");
        total += p;
    }
    auto const keys = chains.keys();
    std::size_t const n = powers.size();
    std::vector<std::size_t> share(n);
    std::vector<std::pair<double, std::size_t>> remainders;
    std::size_t dealt = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double const exact = static_cast<double>(keys.size()) * powers[i] / total;
        share[i] = static_cast<std::size_t>(exact);
        dealt += share[i];
        remainders.emplace_back(exact - static_cast<double>(share[i]), i);
    }
    std::ranges::stable_sort(remainders, [](auto const& a, auto const& b) { return a.first > b.first; });
    for (std::size_t r = 0; dealt < keys.size(); ++r, ++dealt) ++share[remainders[r].second];
    std::vector<std::uint32_t> of(chains.key_count(), 0);
    std::vector<std::size_t> given(n, 0);
    for (std::size_t c = 0; c < keys.size(); ++c) {
        std::size_t pick = n;
        double lag = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            if (given[i] >= share[i]) continue;
            double const behind = static_cast<double>(c + 1) * static_cast<double>(share[i]) /
                                          static_cast<double>(keys.size()) - static_cast<double>(given[i]);
            if (pick == n || behind > lag) pick = i, lag = behind;
        }
        ++given[pick];
        of[static_cast<std::size_t>(keys[c] - chains.key_min())] = static_cast<std::uint32_t>(pick);
    }
    return {chains.key_min(), std::move(of), n};
}

} // namespace loopsched
