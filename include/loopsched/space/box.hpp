// box<N>: the N-dimensional half-open rectangle loopsched schedules, and its
// one-dimensional special case, the index range.
#pragma once

#include <loopsched/detail/arithmetic.hpp>
#include <loopsched/detail/iota.hpp>
#include <loopsched/error.hpp>

#include <array>
#include <cstddef>

namespace loopsched {

/// The rectangle [lower_0, upper_0) x ... x [lower_{N-1}, upper_{N-1}).
/// Dimension 0 is the outermost loop.
template <std::size_t N>
class box {
    static_assert(N >= 1, "loopsched::box needs at least one dimension");

public:
    static constexpr std::size_t rank = N;
    using point = std::array<index_t, N>;

    constexpr box() = default;

    /// The box [lower, upper); every upper must be >= its lower.
    constexpr box(point const& lower, point const& upper) : lower_(lower), upper_(upper) {
        for (std::size_t d = 0; d < N; ++d)
            if (upper_[d] < lower_[d]) [[unlikely]]
                detail::fail_box_bounds(d, lower_[d], upper_[d]);
    }

    /// The box [0, extents).
    static constexpr box from_extents(point const& extents) { return box(point{}, extents); }

    [[nodiscard]] constexpr point const& lower() const noexcept { return lower_; }
    [[nodiscard]] constexpr point const& upper() const noexcept { return upper_; }

    [[nodiscard]] constexpr index_t extent(std::size_t dim) const {
        check_dim(dim);
        return upper_[dim] - lower_[dim];
    }

    [[nodiscard]] constexpr index_t size() const noexcept {
        index_t total = 1;
        for (std::size_t d = 0; d < N; ++d) total *= upper_[d] - lower_[d];
        return total;
    }

    [[nodiscard]] constexpr bool empty() const noexcept { return size() == 0; }

    /// The sub-box with positions [first, last) along `dim`, counted from lower(dim).
    [[nodiscard]] constexpr box slice(std::size_t dim, index_t first, index_t last) const {
        check_dim(dim);
        if (first < 0 || first > last || last > extent(dim)) [[unlikely]]
            detail::fail_box_slice(first, last, extent(dim));
        box part = *this;
        part.lower_[dim] = lower_[dim] + first;
        part.upper_[dim] = lower_[dim] + last;
        return part;
    }

    /// The absolute indices along `dim`, as a range.
    [[nodiscard]] constexpr auto indices(std::size_t dim = 0) const {
        check_dim(dim);
        return iota_range(lower_[dim], upper_[dim]);
    }

    [[nodiscard]] constexpr bool contains(point const& p) const noexcept {
        for (std::size_t d = 0; d < N; ++d)
            if (p[d] < lower_[d] || p[d] >= upper_[d]) return false;
        return true;
    }

    friend constexpr bool operator==(box const&, box const&) = default;

private:
    static constexpr void check_dim(std::size_t dim) {
        if (dim >= N) [[unlikely]]
            detail::fail_box_dimension(dim, N);
    }

    point lower_{};
    point upper_{};
};

/// The one-dimensional iteration space [first, last) of a plain loop.
using index_range = box<1>;

constexpr index_range make_range(index_t first, index_t last) { return index_range({first}, {last}); }
constexpr index_range make_range(index_t count) { return make_range(0, count); }

} // namespace loopsched
