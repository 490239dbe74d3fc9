// The trapezoid of TSS (Tzen & Ni): first chunk F, last L, N steps, decrement D.
// Shared by TSS, TFSS, DTSS and DTFSS. Its sums are in closed form and in
// 128-bit arithmetic: a loop may have 2^63 - 1 iterations, a stage billions of chunks.
#pragma once

#include <loopsched/detail/arithmetic.hpp>

#include <algorithm>
#include <cmath>

namespace loopsched::detail {

struct trapezoid {
    index_t first = 1;     ///< F
    index_t last = 1;      ///< L
    index_t steps = 0;     ///< N = ceil(2I / (F + L))
    index_t decrement = 0; ///< D = floor((F - L) / (N - 1))

    /// Chronopoulos et al.'s rule for I iterations shared by `processors` (p, or A for the
    /// distributed schemes): F = floor(I / 2p) unless given, never below L.
    static trapezoid make(index_t iterations, double processors, index_t first_given, index_t last) {
        trapezoid t;
        t.last = last;
        // floor(I / 2p) in integers when p is whole (as it is but for the distributed
        // schemes' A): near 2^63 a double would round I.
        index_t const half_share = is_whole(processors) && processors < 0x1p52
                                           ? iterations / (2 * static_cast<index_t>(processors))
                                           : floor_real(static_cast<double>(iterations) / (2.0 * processors));
        t.first = first_given > 0 ? first_given : std::max(last, half_share);
        auto const width = static_cast<wide_index>(t.first) + t.last;
        t.steps = static_cast<index_t>((2 * static_cast<wide_index>(iterations) + width - 1) / width);
        t.decrement = t.steps > 1 ? (t.first - t.last) / (t.steps - 1) : 0;
        return t;
    }

    /// The i-th chunk of the formula sequence (0-based), never below L.
    [[nodiscard]] index_t chunk(index_t i) const noexcept {
        return std::max(last, first - saturating_mul(std::max<index_t>(i, 0), decrement));
    }

    /// The chunk at a fractional step (see tss::state::commit); equals chunk(i) at whole steps.
    [[nodiscard]] index_t chunk_at(double step) const noexcept {
        return std::max(last, first - floor_real(step * static_cast<double>(decrement)));
    }

    /// Sum of chunks i .. i+count-1 (at most index_max): the arithmetic series
    /// down to where the formula reaches L, then L each.
    [[nodiscard]] index_t sum(index_t i, index_t count) const noexcept {
        if (count <= 0) return 0;
        using wide = wide_index;
        wide const a = std::max<index_t>(i, 0), b = a + count;
        // First index whose formula chunk is at most L.
        wide const floor_at = decrement > 0 ? (static_cast<wide>(first) - last + decrement - 1) / decrement : b;
        wide const sloped_end = std::min(b, std::max(a, floor_at));
        wide const n = sloped_end - a;
        wide total = n * first - static_cast<wide>(decrement) * (a + sloped_end - 1) * n / 2;
        total += (b - sloped_end) * last;
        return total >= static_cast<wide>(index_max) ? index_max : static_cast<index_t>(total);
    }
};

} // namespace loopsched::detail
