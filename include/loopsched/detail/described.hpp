// Options declared once: an options struct lists each of its own options, as
// name, field and rule, in a friend `describe(o, f)`, and the rules between
// them in a friend `check_rules(o)` beside it; those drive the options' checks
// (check_described) and fingerprint (described_fingerprint).
#pragma once

#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/error.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace loopsched::detail {

/// What a numeric option must be: finite if asked, within [least, most] (each
/// end open if asked); `requirement` is the error's wording. A default rule
/// admits every value (flags, counts where 0 means "none").
struct option_rule {
    double least = -std::numeric_limits<double>::infinity();
    double most = std::numeric_limits<double>::infinity();
    bool finite = false;
    char const* requirement = nullptr;
    bool open_least = false, open_most = false;

    [[nodiscard]] constexpr bool admits(double v) const noexcept {
        if (requirement == nullptr) return true;
        if (finite && !std::isfinite(v)) return false;
        return (open_least ? v > least : v >= least) && (open_most ? v < most : v <= most); // false for NaN
    }
};

inline constexpr option_rule any_value{};
inline constexpr option_rule at_least_one{1.0, std::numeric_limits<double>::infinity(), false, "must be >= 1"};
inline constexpr option_rule not_negative{0.0, std::numeric_limits<double>::infinity(), false, "must be >= 0"};
inline constexpr option_rule fraction{0.0, 1.0, true, "must be in [0, 1]"};

/// Seconds: finite and >= 0; `requirement` says what 0 means where it means something.
constexpr option_rule seconds(char const* requirement = "must be >= 0 seconds") {
    return {0.0, std::numeric_limits<double>::infinity(), true, requirement};
}

/// Any finite number; `requirement` says what a negative one means.
constexpr option_rule finite_number(char const* requirement) {
    return {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(), true, requirement};
}

/// Throws invalid_parameter("options.NAME", ...) for the first option of `o`
/// its description's rule does not admit, then for the first rule between
/// options (`check_rules`, where the options declare one) that fails.
template <class Options>
void check_described(Options const& o) {
    describe(o, [](char const* name, auto const& value, option_rule const& rule) {
        using V = std::remove_cvref_t<decltype(value)>;
        if constexpr (std::is_arithmetic_v<V>)
            if (!rule.admits(static_cast<double>(value)))
                fail_requirement(std::string("options.") + name, value, rule.requirement);
    });
    if constexpr (requires { check_rules(o); }) check_rules(o);
}

/// The fingerprint of every option `o` describes, for the agreement.
template <class Options>
std::uint64_t described_fingerprint(Options const& o) {
    fingerprint f;
    describe(o, [&f](char const*, auto const& value, option_rule const&) { f.add(value); });
    return f.value();
}

} // namespace loopsched::detail
