// Integer and floating helpers shared by the chunk formulas: rounding that
// stays on the intended side, and arithmetic that cannot overflow at the edges
// of index_t (a loop of 2^63 - 1 iterations is legal).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

namespace loopsched {

/// Iteration counts and indices. Signed so that formula intermediates
/// (F - i*D) can go negative before they are clamped.
using index_t = std::int64_t;

namespace detail {

inline constexpr index_t index_max = std::numeric_limits<index_t>::max();

/// Room for the products and sums of two index_t (GCC's and Clang's 128-bit
/// integer; __extension__ keeps -Wpedantic quiet about it).
__extension__ typedef __int128 wide_index;

/// ceil(a / b) for a >= 0, b > 0, without the a + b - 1 that overflows near the limit.
constexpr index_t ceil_div(index_t a, index_t b) noexcept { return a / b + (a % b != 0 ? 1 : 0); }

/// floor(a / b) for any signs (integer division truncates toward zero).
constexpr index_t floor_div(index_t a, index_t b) noexcept {
    index_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

/// a + b and a * b for non-negative operands, stopping at index_max instead of wrapping.
constexpr index_t saturating_add(index_t a, index_t b) noexcept { return a > index_max - b ? index_max : a + b; }
constexpr index_t saturating_mul(index_t a, index_t b) noexcept {
    return a != 0 && b > index_max / a ? index_max : a * b;
}

/// A finite real as an index, clamped to [lo, hi] (NaN gives lo): the one way
/// a formula's real turns into a count, so that no huge or infinite value
/// reaches a conversion whose result would be undefined.
constexpr index_t clamp_to_index(double x, index_t lo = 0, index_t hi = index_max) noexcept {
    if (!(x > static_cast<double>(lo))) return lo;
    // Doubles at or above 2^63 do not convert; hi as a double may round up to 2^63.
    if (x >= static_cast<double>(hi)) return hi;
    return static_cast<index_t>(x);
}

// Products of decimal-looking reals such as 1265 * 0.4 land a hair below the
// integer in binary; floor and ceil first snap a value that close to an
// integer onto it. Snapping, not adding the slack: a count near 2^63 must not
// move by the slack's thousands.
inline constexpr double rounding_slack = 1e-9;

/// x, or the integer it lies a hair from (a relative 1e-9, at most 1e-6, and
/// always a few units in the last place).
inline double snapped(double x) noexcept {
    double const r = std::round(x), magnitude = std::abs(x);
    double const slack = std::max(std::min(rounding_slack * (1.0 + magnitude), 1e-6), 4.0 * magnitude * 0x1p-52);
    return std::abs(x - r) <= slack ? r : x;
}

/// floor and ceil of a real, as an index clamped to [0, index_max] (formulas
/// clip their chunks at zero anyway, and nothing exceeds the iteration count).
inline index_t floor_real(double x) noexcept { return clamp_to_index(std::floor(snapped(x))); }
inline index_t ceil_real(double x) noexcept { return clamp_to_index(std::ceil(snapped(x))); }

/// True when the double holds a whole number (lets formulas stay in integers).
inline bool is_whole(double x) noexcept { return std::isfinite(x) && std::floor(x) == x; }

} // namespace detail
} // namespace loopsched
