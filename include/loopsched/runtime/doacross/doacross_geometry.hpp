// What every rank of a DOACROSS loop derives alike: the subchunks (tiles) of a
// chunk along u_s, the communication set each tile produces for the next
// chunk, the region a rank holds; and the DOACROSS engine's own messages.
#pragma once

#include <loopsched/dependence/layout.hpp>
#include <loopsched/detail/arithmetic.hpp>
#include <loopsched/space/box.hpp>

#include <algorithm>
#include <cstddef>
#include <utility>

namespace loopsched::detail {

template <std::size_t N>
struct doacross_geometry {
    box<N> space;
    doacross_layout layout;
    index_t h = 1;
    index_t input_halo = 0; ///< at most the largest extent: beyond it there is nothing to read

    doacross_geometry(box<N> const& s, doacross_layout const& l, index_t interval, index_t halo)
            : space(s), layout(l), h(interval),
              input_halo(std::min(halo, std::max(s.extent(l.chunk_dim), s.extent(l.sync_dim)))) {}

    [[nodiscard]] index_t extent_c() const { return space.extent(layout.chunk_dim); }
    [[nodiscard]] index_t extent_s() const { return space.extent(layout.sync_dim); }

    /// Subchunks of a chunk `width` positions wide.
    [[nodiscard]] index_t tiles(index_t width) const {
        if (extent_s() == 0 || width == 0) return 0;
        return ceil_div(saturating_add(extent_s(), saturating_mul(layout.skew, width - 1)), h);
    }
    /// u_s positions [lo, hi) of position c, in the chunk starting at a, in tile t.
    [[nodiscard]] std::pair<index_t, index_t> span(index_t a, index_t c, index_t t) const {
        index_t const shift = layout.skew * (c - a);
        auto at = [&](index_t tile) { return std::clamp(saturating_mul(tile, h) - shift, index_t{0}, extent_s()); };
        return {at(t), at(t + 1)};
    }
    [[nodiscard]] box<N> part(index_t c0, index_t c1, index_t s0, index_t s1) const {
        return space.slice(layout.chunk_dim, c0, c1).slice(layout.sync_dim, s0, s1);
    }
    /// f(box) for each non-empty piece of tile t of the chunk starting at a,
    /// restricted to the u_c positions [c0, c1): one box without skew, one per
    /// position with it (each position's u_s range is shifted).
    template <class F>
    void for_each_piece(index_t a, index_t t, index_t c0, index_t c1, F&& f) const {
        if (c0 >= c1) return;
        if (layout.skew == 0) {
            auto [lo, hi] = span(a, a, t);
            if (lo < hi) f(part(c0, c1, lo, hi));
            return;
        }
        // span() and part() per position, inlined: a skewed chunk of w positions
        // has about w pieces per tile, and a simulated body costs little more
        // than this loop (it was 40% of the model-h sweep's simulations).
        // skew > 0 (layout.hpp), so the positions whose range is not empty are
        // those with top - es < shift < bottom: only they are visited.
        index_t const es = extent_s();
        if (es == 0) return;
        std::size_t const cd = layout.chunk_dim, sd = layout.sync_dim;
        index_t const top = saturating_mul(t, h), bottom = saturating_mul(t + 1, h);
        index_t const from = floor_div(top - es, layout.skew) + 1, to = ceil_div(bottom, layout.skew); // c - a
        index_t const first = from >= c1 - a ? c1 : std::max(c0, a + from);
        index_t const last = to >= c1 - a ? c1 : a + to;
        auto lower = space.lower(), upper = space.upper();
        index_t const c_origin = lower[cd], s_origin = lower[sd];
        for (index_t c = first; c < last; ++c) {
            index_t const shift = layout.skew * (c - a);
            lower[cd] = c_origin + c;
            upper[cd] = c_origin + c + 1;
            lower[sd] = s_origin + std::max(top - shift, index_t{0});
            upper[sd] = s_origin + std::min(bottom - shift, es);
            f(box<N>(lower, upper));
        }
    }
    /// The region a rank holds for the chunk [a, a + w): the chunk, the halo
    /// the dependences reach back to, and the read-only positions after it.
    [[nodiscard]] box<N> window_region(index_t a, index_t w) const {
        return space.slice(layout.chunk_dim, std::max<index_t>(0, a - layout.reach), rows_end(a, w));
    }
    /// The end of the u_c positions a chunk [a, a + w) holds: its own and the input halo after it.
    [[nodiscard]] index_t rows_end(index_t a, index_t w) const {
        return std::min(extent_c(), a + w + std::min(input_halo, extent_c()));
    }
    /// The first u_c position of the chunk [a, a + w) that the next chunk reads.
    [[nodiscard]] index_t halo_first(index_t a, index_t w) const { return std::max(a, a + w - layout.reach); }
    /// How many tiles of the previous chunk (prev_width wide) tile t needs: its
    /// own index, plus the skew's lag across the previous chunk.
    [[nodiscard]] index_t tiles_needed(index_t t, index_t prev_width) const {
        return std::min(tiles(prev_width), saturating_add(t + 1, ceil_div(saturating_mul(layout.skew, prev_width), h)));
    }
};

/// A chunk granted: its place in the sequence, where it lies, who holds the
/// one before (whose communication sets it needs), and the interval h.
struct work_message {
    index_t index = 0, first = 0, size = 0;
    int from = -1; ///< rank holding the previous chunk; -1: this is the first chunk
    int padding_ = 0;
    index_t prev_first = 0, prev_size = 0;
    index_t h = 1;
};
/// The chunk granted to the holder of the newest chunk, joined to the end of it.
struct extension_message {
    index_t index = 0, first = 0, size = 0;
};
/// Where the sets of chunk `index` go: the holder of the next chunk.
struct successor_message {
    index_t index = 0;
    int to = 0;
    int padding_ = 0;
};
/// A data message: `tiles` communication sets of chunk `index` from `first_tile` on.
struct data_header {
    index_t index = 0, first_tile = 0, tiles = 0;
};

} // namespace loopsched::detail
