// Run-time choice of a task placement: parse_placement("random:seed=7"), as
// parse_policy is for chunk policies, and placement_choice, the options' field
// that takes a placement or its spec.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/mapping/any_placement.hpp>
#include <loopsched/spec.hpp>

#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace loopsched {

/// The placement names parse_placement() accepts besides chunk policies' specs.
inline std::vector<std::string_view> placement_names() {
    return {kazouris_placement::name,
            self_scheduling_placement::name,
            april_placement::name,
            "steal",
            "steal-half",
            dlpt_placement::name,
            random_placement::name,
            round_robin_placement::name,
            objects_placement::name,
            messages_placement::name};
}

namespace detail {

/// A placement from its arguments: its from_spec(), or, for one without
/// parameters, itself (refusing any key=value).
template <class P, class... Args>
P placement_from(std::string_view name, std::vector<spec_args::pair> pairs, Args&&... made_with) {
    if constexpr (requires { P::from_spec; }) {
        return P::from_spec(spec_args(name, std::span<std::string_view const>(P::keys), std::move(pairs), "placement"));
    } else {
        (void)spec_args(name, std::span<std::string_view const>(), std::move(pairs), "placement");
        return P(std::forward<Args>(made_with)...);
    }
}

} // namespace detail

/// Builds a placement from `NAME[:key=value,...]`: "kazouris", "ss", "april",
/// "steal", "steal-half", "dlpt", "random[:seed=N]", "round-robin", "objects",
/// "messages", or a chunk policy's spec ("fss", "w-af", "gss:min=4") for a
/// farm's task stream. Unknown names and keys raise spec_error listing the
/// valid ones; bad values raise spec_error or invalid_parameter naming them.
inline any_placement parse_placement(std::string_view spec) {
    auto const colon = spec.find(':');
    std::string_view const name = spec.substr(0, colon);
    std::string_view const args = colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
    auto const is_policy = [&] {
        std::string_view bare = name;
        for (auto prefix : {synchronized_weighted_prefix, dmps_prefix, synchronized_prefix, weighted_prefix})
            if (bare.starts_with(prefix)) bare.remove_prefix(prefix.size());
        auto const names = policy_names();
        return std::ranges::find(names, bare) != names.end();
    };
    auto const names = placement_names(); // "ss" is also a chunk policy's name: the placement's comes first
    if (std::ranges::find(names, name) == names.end() && is_policy()) return chunked_placement{parse_policy(spec)};
    if (colon != std::string_view::npos && args.empty())
        throw spec_error("loopsched: placement spec '" + std::string(spec) + "' has ':' but no key=value");
    auto pairs = detail::split_arguments(spec, args, "placement");
    if (name == kazouris_placement::name) return detail::placement_from<kazouris_placement>(name, std::move(pairs));
    if (name == self_scheduling_placement::name)
        return detail::placement_from<self_scheduling_placement>(name, std::move(pairs));
    if (name == april_placement::name) return detail::placement_from<april_placement>(name, std::move(pairs));
    if (name == "steal" || name == "steal-half")
        return detail::placement_from<steal_placement>(name, std::move(pairs), name == "steal-half");
    if (name == dlpt_placement::name) return detail::placement_from<dlpt_placement>(name, std::move(pairs));
    if (name == random_placement::name) return detail::placement_from<random_placement>(name, std::move(pairs));
    if (name == round_robin_placement::name)
        return detail::placement_from<round_robin_placement>(name, std::move(pairs));
    if (name == objects_placement::name) return detail::placement_from<objects_placement>(name, std::move(pairs));
    if (name == messages_placement::name) return detail::placement_from<messages_placement>(name, std::move(pairs));
    std::string valid;
    for (auto n : names) valid += (valid.empty() ? "" : ", ") + std::string(n);
    throw spec_error("loopsched: unknown placement '" + std::string(name) + "' in spec '" + std::string(spec) +
                     "'; valid: " + valid + ", or a chunk policy's spec (" + detail::known_names() + ")");
}

/// A placement as an option takes it: a value (any placement, the user's
/// EstimatePlacement included), or its spec, parsed when the run checks its
/// arguments so that a bad spec fails on every rank alike.
class placement_choice {
public:
    placement_choice(char const* spec) : held_(std::string(spec)) {}
    placement_choice(std::string spec) : held_(std::move(spec)) {}
    placement_choice(std::string_view spec) : held_(std::string(spec)) {}
    placement_choice(any_placement p) : held_(std::move(p)) {}
    template <class P>
    requires(!std::is_same_v<std::remove_cvref_t<P>, placement_choice> && !std::is_same_v<P, any_placement> &&
             !std::is_convertible_v<P, std::string_view> && std::is_constructible_v<any_placement, P>)
            placement_choice(P p)
            : held_(any_placement(std::move(p))) {}

    /// The placement; a spec is parsed here, and a bad one raises
    /// invalid_parameter naming `parameter` (the option) and the spec.
    [[nodiscard]] any_placement resolve(std::string_view parameter = "placement") const {
        auto const* spec = std::get_if<std::string>(&held_);
        if (spec == nullptr) return std::get<any_placement>(held_);
        try {
            return parse_placement(*spec);
        } catch (spec_error const& e) {
            std::string_view why = e.what();
            if (why.starts_with("loopsched: ")) why.remove_prefix(11);
            throw invalid_parameter(std::string(parameter), *spec, why);
        }
    }
    /// The spec as given, or nullptr for a value.
    [[nodiscard]] std::string const* given_spec() const noexcept { return std::get_if<std::string>(&held_); }
    /// Its text: the spec as given, or the value's canonical spec.
    [[nodiscard]] std::string spec() const {
        if (auto const* spec = std::get_if<std::string>(&held_)) return *spec;
        return std::get<any_placement>(held_).spec();
    }
    friend std::ostream& operator<<(std::ostream& out, placement_choice const& c) { return out << c.spec(); }

private:
    std::variant<std::string, any_placement> held_;
};

} // namespace loopsched
