// Tiles of a uniform-dependence loop nest and their static placement: the
// space cut into blocks (skewed along the outermost dimension where a vector
// points back), the tiles' own dependences, and which worker runs each tile
// in which order under SDS or a chain mapping (Ciorba, 3.4 and 4.2).
#pragma once

#include <loopsched/dependence/chains.hpp>
#include <loopsched/dependence/hyperplane.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/detail/arithmetic.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/doacross_mapping.hpp>
#include <loopsched/space/box.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace loopsched {

/// The space cut into tiles of `extents` points in skewed coordinates
/// q_0 = p_0, q_k = p_k + s_k p_0 (relative to the space's lower corner): a
/// vector with a negative component k and a positive first one gets s_k =
/// ceil(-d_k / d_0), so that every vector has only non-negative components in
/// q and tiles may run in lexicographic order. Tiles are numbered row-major.
template <std::size_t N>
class tiling {
public:
    using point = typename box<N>::point;

    tiling(box<N> const& space, std::span<distance_vector<N> const> vectors, point const& extents)
        : space_(space), extents_(extents) {
        for (std::size_t d = 0; d < N; ++d)
            detail::require(extents[d] >= 1, "tile[" + std::to_string(d) + "]", extents[d], "must be >= 1");
        for (auto const& v : vectors)
            for (std::size_t k = 1; k < N; ++k)
                if (v[0] > 0 && v[k] < 0) skew_[k] = std::max(skew_[k], detail::ceil_div(-v[k], v[0]));
        for (auto const& v : vectors) {
            auto const q = skewed(v);
            for (std::size_t k = 0; k < N; ++k)
                detail::require(q[k] >= 0, "dependence vector", to_string<N>(v),
                                "must not point back along a dimension unless its first component is positive "
                                "(tiles are skewed along the outermost dimension only)");
        }
        std::size_t total = 1;
        for (std::size_t k = 0; k < N; ++k) {
            index_t const reach = space.extent(k) + (space.extent(0) > 0 ? skew_[k] * (space.extent(0) - 1) : 0);
            counts_[k] = std::max<index_t>(1, detail::ceil_div(reach, extents[k]));
            total *= static_cast<std::size_t>(counts_[k]);
        }
        count_ = space.empty() ? 0 : total;
        // Tile offsets: a point of tile t reads q - d', in tile t - delta with
        // delta_k between floor(d'_k / T_k) and ceil(d'_k / T_k).
        for (auto const& v : vectors) {
            auto const q = skewed(v);
            point lo{}, hi{};
            for (std::size_t k = 0; k < N; ++k) lo[k] = q[k] / extents[k], hi[k] = detail::ceil_div(q[k], extents[k]);
            point delta = lo;
            while (true) {
                if (std::ranges::any_of(delta, [](index_t c) { return c != 0; }) &&
                    std::ranges::find(deps_, delta) == deps_.end())
                    deps_.push_back(delta);
                std::size_t k = N;
                while (k-- > 0) {
                    if (++delta[k] <= hi[k]) break;
                    delta[k] = lo[k];
                    if (k == 0) goto done;
                }
            }
        done:;
        }
        std::ranges::sort(deps_);
    }

    [[nodiscard]] box<N> const& space() const noexcept { return space_; }
    [[nodiscard]] point const& extents() const noexcept { return extents_; }
    [[nodiscard]] point const& skew() const noexcept { return skew_; }
    /// Tiles along each dimension.
    [[nodiscard]] point const& counts() const noexcept { return counts_; }
    [[nodiscard]] std::size_t size() const noexcept { return count_; }
    /// The tiles' dependence vectors (non-negative, non-zero): tile t needs tile t - delta.
    [[nodiscard]] std::span<distance_vector<N> const> dependences() const noexcept { return deps_; }

    [[nodiscard]] point coordinates(std::size_t tile) const noexcept {
        point c{};
        for (std::size_t k = N; k-- > 0;) {
            c[k] = static_cast<index_t>(tile % static_cast<std::size_t>(counts_[k]));
            tile /= static_cast<std::size_t>(counts_[k]);
        }
        return c;
    }
    [[nodiscard]] std::size_t number(point const& c) const noexcept {
        std::size_t n = 0;
        for (std::size_t k = 0; k < N; ++k) n = n * static_cast<std::size_t>(counts_[k]) + static_cast<std::size_t>(c[k]);
        return n;
    }
    [[nodiscard]] bool holds(point const& c) const noexcept {
        for (std::size_t k = 0; k < N; ++k)
            if (c[k] < 0 || c[k] >= counts_[k]) return false;
        return true;
    }
    /// The tile holding point p of the space.
    [[nodiscard]] std::size_t tile_of(point const& p) const noexcept {
        point rel{};
        for (std::size_t k = 0; k < N; ++k) rel[k] = p[k] - space_.lower()[k];
        auto const q = skewed(rel);
        point c{};
        for (std::size_t k = 0; k < N; ++k) c[k] = q[k] / extents_[k];
        return number(c);
    }

    /// f(box) for the tile's points in lexicographic order: one box without
    /// skew, else one box per position along the first dimension.
    template <class F>
    void for_each_part(std::size_t tile, F&& f) const {
        auto const c = coordinates(tile);
        index_t const first = c[0] * extents_[0], last = std::min(first + extents_[0], space_.extent(0));
        bool const skewed_tiles = std::ranges::any_of(skew_, [](index_t s) { return s != 0; });
        auto part_for = [&](index_t row_lo, index_t row_hi, index_t row_for_skew) {
            point lo{}, hi{};
            lo[0] = space_.lower()[0] + row_lo, hi[0] = space_.lower()[0] + row_hi;
            for (std::size_t k = 1; k < N; ++k) {
                index_t const shift = skew_[k] * row_for_skew;
                lo[k] = space_.lower()[k] + std::clamp(c[k] * extents_[k] - shift, index_t{0}, space_.extent(k));
                hi[k] = space_.lower()[k] + std::clamp((c[k] + 1) * extents_[k] - shift, index_t{0}, space_.extent(k));
                if (lo[k] >= hi[k]) return;
            }
            if (lo[0] < hi[0]) f(box<N>(lo, hi));
        };
        if (!skewed_tiles) return part_for(first, last, 0);
        for (index_t r = first; r < last; ++r) part_for(r, r + 1, r);
    }
    /// The smallest box holding the tile's points (empty if it has none).
    [[nodiscard]] box<N> bounds(std::size_t tile) const {
        point lo = space_.upper(), hi = space_.lower();
        bool any = false;
        for_each_part(tile, [&](box<N> const& b) {
            any = true;
            for (std::size_t k = 0; k < N; ++k) lo[k] = std::min(lo[k], b.lower()[k]), hi[k] = std::max(hi[k], b.upper()[k]);
        });
        return any ? box<N>(lo, hi) : box<N>(space_.lower(), space_.lower());
    }
    [[nodiscard]] index_t points(std::size_t tile) const {
        index_t n = 0;
        for_each_part(tile, [&](box<N> const& b) { n += b.size(); });
        return n;
    }
    /// The tiles tile t reads from (t - delta inside the tiling).
    [[nodiscard]] std::vector<std::size_t> sources(std::size_t tile) const { return neighbours(tile, -1); }
    /// The tiles that read from tile t.
    [[nodiscard]] std::vector<std::size_t> dependents(std::size_t tile) const { return neighbours(tile, +1); }

private:
    [[nodiscard]] point skewed(point const& v) const noexcept {
        point q = v;
        for (std::size_t k = 1; k < N; ++k) q[k] += skew_[k] * v[0];
        return q;
    }
    [[nodiscard]] std::vector<std::size_t> neighbours(std::size_t tile, int sign) const {
        auto const c = coordinates(tile);
        std::vector<std::size_t> out;
        for (auto const& d : deps_) {
            point n = c;
            for (std::size_t k = 0; k < N; ++k) n[k] += sign * d[k];
            if (holds(n)) out.push_back(number(n));
        }
        return out;
    }

    box<N> space_;
    point extents_{}, skew_{}, counts_{};
    std::size_t count_ = 0;
    std::vector<distance_vector<N>> deps_;
};

/// Tile extents for a mapping over `workers` workers: the mapping's own, or 4
/// tiles per worker along the first two dimensions and the whole extent along
/// the others (0 in the mapping's list: chosen so too).
template <std::size_t N>
typename box<N>::point tile_extents(box<N> const& space, doacross_mapping const& m, std::size_t workers) {
    detail::require(m.tile.empty() || m.tile.size() == N, "mapping tile", m.tile.size(),
                    "must give one extent per dimension (" + std::to_string(N) + ") or none");
    typename box<N>::point e{};
    for (std::size_t k = 0; k < N; ++k) {
        index_t const given = m.tile.empty() ? 0 : m.tile[k];
        detail::require(given >= 0, "mapping tile[" + std::to_string(k) + "]", given, "must be >= 0 (0: chosen)");
        index_t const extent = std::max<index_t>(1, space.extent(k));
        e[k] = given > 0 ? given
                         : (k < 2 ? std::max<index_t>(1, detail::ceil_div(extent, static_cast<index_t>(4 * workers)))
                                  : extent);
    }
    return e;
}

/// Which worker runs each tile, and each worker's tiles in the order it runs
/// them (an order every dependence agrees with, so no worker waits forever).
struct tile_placement {
    std::vector<std::uint32_t> owner;              ///< per tile
    std::vector<std::vector<std::size_t>> order;   ///< per worker
};

/// The placement of a tiling's tiles on `workers` workers by `m`; `powers`
/// (one per worker, available V/Q) only matter to ACS.
template <std::size_t N>
tile_placement place_tiles(tiling<N> const& t, doacross_mapping const& m, std::size_t workers,
                           std::span<double const> powers = {}) {
    detail::require(workers >= 1, "workers", workers, "must be >= 1");
    tile_placement out;
    out.owner.assign(t.size(), 0);
    out.order.assign(workers, {});
    if (t.size() == 0) return out;
    using rule = doacross_mapping::rule;
    auto const counts = t.counts();
    if (m.how == rule::sds) {
        typename box<N>::point upper{};
        for (std::size_t k = 0; k < N; ++k) upper[k] = counts[k] - 1;
        hyperplane<N> h;
        h.a.fill(1); // no tile dependence: any order, the diagonal
        if (!t.dependences().empty())
            h = optimal_hyperplane(
                    dependence_set<N>(std::vector<distance_vector<N>>(t.dependences().begin(), t.dependences().end())),
                    upper);
        hyperplane_walk<N> const walk(h, upper);
        std::size_t position = 0;
        for (index_t k = walk.k_min(); k <= walk.k_max(); ++k)
            for (auto c = walk.first(k); c; c = walk.successor(*c)) {
                std::size_t const tile = t.number(*c);
                auto const w = static_cast<std::uint32_t>(position++ % workers);
                out.owner[tile] = w;
                out.order[w].push_back(tile);
            }
        return out;
    }
    // Chains of tiles in the plane of the first two dimensions.
    std::vector<distance_vector<2>> plane;
    for (auto const& d : t.dependences())
        if ((d[0] != 0 || d[1] != 0) && std::ranges::find(plane, distance_vector<2>{d[0], d[1]}) == plane.end())
            plane.push_back({d[0], d[1]});
    if (plane.empty()) plane.push_back({1, 0}); // no dependence across the plane: rows of tiles
    chain_set const chains(box<2>({0, 0}, {counts[0], counts[1]}), dependence_set<2>(plane));
    chain_mapping const cm = [&] {
        if (m.how == rule::cyclic) return map_cyclic(chains, workers);
        if (m.how == rule::cps) return map_cps(chains, workers);
        std::vector<double> p(powers.begin(), powers.end());
        if (p.empty()) p.assign(workers, 1.0);
        detail::require(p.size() == workers, "powers", p.size(), "must give one per worker for ACS");
        return map_acs(chains, p);
    }();
    for (std::size_t tile = 0; tile < t.size(); ++tile) {
        auto const c = t.coordinates(tile);
        auto const w = cm.processor_of(chains.key({c[0], c[1]}));
        out.owner[tile] = w;
        out.order[w].push_back(tile); // row-major: a topological order of non-negative dependences
    }
    return out;
}

template <std::size_t N>
tile_placement doacross_tile_state::place(tiling<N> const& tiles) const {
    return place_tiles(tiles, mapping, workers, powers);
}

} // namespace loopsched
