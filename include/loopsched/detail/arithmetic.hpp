// Integer and floating helpers shared by the chunk formulas.
#pragma once

#include <cmath>
#include <cstdint>
#include <numeric>

namespace loopsched {

/// Iteration counts and indices. Signed so that formula intermediates
/// (F - i*D) can go negative before they are clamped.
using index_t = std::int64_t;

namespace detail {

constexpr index_t ceil_div(index_t a, index_t b) noexcept { return (a + b - 1) / b; }

// Products of decimal-looking reals such as 1265 * 0.4 land a hair below the
// integer in binary; the slack keeps floor/ceil on the intended side.
inline constexpr double rounding_slack = 1e-9;

inline index_t floor_real(double x) noexcept {
    return static_cast<index_t>(std::floor(x + rounding_slack * (1.0 + std::abs(x))));
}
inline index_t ceil_real(double x) noexcept {
    return static_cast<index_t>(std::ceil(x - rounding_slack * (1.0 + std::abs(x))));
}

/// True when the double holds a whole number (lets formulas stay in integers).
inline bool is_whole(double x) noexcept { return std::floor(x) == x; }

} // namespace detail
} // namespace loopsched
