// How a DOACROSS loop is cut: the scheduling dimension u_c (chunks), the
// synchronization dimension u_s (synchronization points), how far dependences
// reach back across chunks, and the skew that makes subchunks legal.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/error.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>

namespace loopsched {

/// A legal way to pipeline a loop nest of rank N.
///
/// Chunks are ranges along u_c; each chunk runs subchunk after subchunk along
/// u_s, and the next chunk's worker follows it through the synchronization
/// points. Position c of a chunk starting at a runs, in subchunk t, the u_s
/// positions [t h - skew (c - a), (t + 1) h - skew (c - a)): with skew 0 the
/// subchunks are the rectangles of Ciorba; a vector with a negative u_s
/// component (a look-ahead, like Floyd-Steinberg's (1,-1)) needs
/// skew = max ceil(-d_s / d_c), so that its source never lies in a later subchunk.
struct doacross_layout {
    std::size_t chunk_dim = 0; ///< u_c
    std::size_t sync_dim = 1;  ///< u_s
    index_t reach = 0;         ///< largest u_c component: the halo a chunk needs from the one before
    index_t skew = 0;          ///< u_s shift per u_c position inside a chunk (0: rectangular subchunks)

    friend constexpr bool operator==(doacross_layout const&, doacross_layout const&) = default;
};

namespace detail {

/// The layout for (u_c, u_s) = (c, s), or why it is illegal (with the vector at fault).
template <DependenceSet D>
std::optional<doacross_layout> try_layout(D const& deps, std::size_t c, std::size_t s, std::string* why) {
    doacross_layout l{c, s, 0, 0};
    for (auto const& v : deps.vectors()) {
        auto const& d = static_cast<distance_vector<D::rank> const&>(v);
        if (d[c] < 0) {
            if (why)
                *why = "dependence vector " + to_string<D::rank>(d) +
                       " has a negative component along u_c = dimension " + std::to_string(c) +
                       ": a chunk would need data from a later chunk";
            return std::nullopt;
        }
        if (d[s] < 0 && d[c] == 0) {
            if (why)
                *why = "dependence vector " + to_string<D::rank>(d) + " points back along u_s = dimension " +
                       std::to_string(s) + " inside one position of u_c = dimension " + std::to_string(c) +
                       ": no subchunk order along u_s can run it";
            return std::nullopt;
        }
        l.reach = std::max(l.reach, d[c]);
        if (d[s] < 0) l.skew = std::max(l.skew, ceil_div(-d[s], d[c]));
    }
    return l;
}

} // namespace detail

/// The layout for a user's choice of u_c and u_s; throws invalid_parameter
/// naming the offending vector when the pair is illegal.
template <DependenceSet D>
doacross_layout make_layout(D const& deps, std::size_t chunk_dim, std::size_t sync_dim) {
    static_assert(D::rank >= 2, "loopsched: a DOACROSS loop needs at least two dimensions (u_c and u_s)");
    detail::require(chunk_dim < D::rank, "scheduling dimension u_c", chunk_dim, "must be < the loop nest's rank");
    detail::require(sync_dim < D::rank, "synchronization dimension u_s", sync_dim, "must be < the loop nest's rank");
    detail::require(sync_dim != chunk_dim, "synchronization dimension u_s", sync_dim, "must differ from u_c");
    for (auto const& v : deps.vectors())
        detail::require(is_lexicographically_positive<D::rank>(v), "dependence vector", to_string<D::rank>(v),
                        "must be lexicographically positive: its first non-zero component > 0");
    std::string why;
    auto l = detail::try_layout(deps, chunk_dim, sync_dim, &why);
    if (!l)
        detail::require(false, "dimensions (u_c, u_s)",
                        "(" + std::to_string(chunk_dim) + ", " + std::to_string(sync_dim) + ")", why);
    return *l;
}

/// The library's choice: among the legal pairs, one without skew if there is
/// one; then, as in Ciorba's experiments, u_s along the largest extent and
/// u_c along the largest remaining one; ties go to the outer dimension.
/// Throws invalid_parameter naming a vector when no pair is legal.
template <DependenceSet D>
doacross_layout choose_layout(D const& deps, std::array<index_t, D::rank> const& extents) {
    static_assert(D::rank >= 2, "loopsched: a DOACROSS loop needs at least two dimensions (u_c and u_s)");
    for (auto const& v : deps.vectors())
        detail::require(is_lexicographically_positive<D::rank>(v), "dependence vector", to_string<D::rank>(v),
                        "must be lexicographically positive: its first non-zero component > 0");
    std::optional<doacross_layout> best;
    std::string first_reason;
    auto better = [&](doacross_layout const& a, doacross_layout const& b) {
        if ((a.skew == 0) != (b.skew == 0)) return a.skew == 0;
        if (extents[a.sync_dim] != extents[b.sync_dim]) return extents[a.sync_dim] > extents[b.sync_dim];
        if (extents[a.chunk_dim] != extents[b.chunk_dim]) return extents[a.chunk_dim] > extents[b.chunk_dim];
        return false; // scanned outer first: the earlier pair stays
    };
    for (std::size_t s = 0; s < D::rank; ++s)
        for (std::size_t c = 0; c < D::rank; ++c) {
            if (c == s) continue;
            std::string why;
            auto l = detail::try_layout(deps, c, s, first_reason.empty() ? &first_reason : &why);
            if (l && (!best || better(*l, *best))) best = l;
        }
    if (!best) detail::require(false, "dependence set", "of the loop", "has no legal (u_c, u_s) pair: " + first_reason);
    return *best;
}

} // namespace loopsched
