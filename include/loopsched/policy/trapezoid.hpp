// The trapezoid of TSS (Tzen & Ni): first chunk F, last L, N steps, decrement D.
// Shared by TSS, TFSS, DTSS and DTFSS.
#pragma once

#include <loopsched/detail/arithmetic.hpp>

#include <algorithm>
#include <cmath>

namespace loopsched::detail {

struct trapezoid {
    index_t first = 1; ///< F
    index_t last = 1;  ///< L
    index_t steps = 0; ///< N = ceil(2I / (F + L))
    index_t decrement = 0; ///< D = floor((F - L) / (N - 1))

    /// Seed 001's rule for I iterations shared by `processors` (p, or A for the
    /// distributed schemes): F = floor(I / 2p) unless given, never below L.
    static trapezoid make(index_t iterations, double processors, index_t first_given, index_t last) {
        trapezoid t;
        t.last = last;
        t.first = first_given > 0 ? first_given
                                  : std::max(last, detail::floor_real(static_cast<double>(iterations) / (2.0 * processors)));
        t.steps = ceil_div(2 * iterations, t.first + t.last);
        t.decrement = t.steps > 1 ? (t.first - t.last) / (t.steps - 1) : 0;
        return t;
    }

    /// The i-th chunk of the formula sequence (0-based), never below L.
    [[nodiscard]] index_t chunk(index_t i) const noexcept { return std::max(last, first - i * decrement); }

    /// The chunk at a fractional step (see tss::state::commit); equals chunk(i) at whole steps.
    [[nodiscard]] index_t chunk_at(double step) const noexcept {
        return std::max(last, first - floor_real(step * static_cast<double>(decrement)));
    }

    /// Sum of chunks i .. i+count-1.
    [[nodiscard]] index_t sum(index_t i, index_t count) const noexcept {
        index_t total = 0;
        for (index_t j = 0; j < count; ++j) total += chunk(i + j);
        return total;
    }
};

} // namespace loopsched::detail
