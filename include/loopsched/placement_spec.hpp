// Run-time choice of a task placement: parse_placement("random:seed=7"), as
// parse_policy is for chunk policies, and resolve(), which parses the spec an
// option's placement_choice holds.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/mapping/any_placement.hpp>
#include <loopsched/mapping/placement_choice.hpp>
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
            messages_placement::name,
            dynamic_mapping::name,
            static_block_mapping::name,
            static_cyclic_mapping::name,
            "sds",
            "chains-cyclic",
            "cps",
            "acs"};
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

/// Builds a placement from `NAME[:key=value,...]`: for tasks "kazouris", "ss",
/// "april", "steal", "steal-half", "dlpt", "random[:seed=N]", "round-robin",
/// "objects", "messages", or a chunk policy's spec ("fss", "w-af",
/// "gss:min=4") for a farm's task stream; for a DOALL loop's chunks
/// "dynamic", "block", "cyclic"; for a DOACROSS loop's tiles "sds",
/// "chains-cyclic", "cps", "acs" (see parse_mapping, parse_doacross_mapping). Unknown names and keys raise spec_error listing the
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
    if (name == dynamic_mapping::name) return detail::placement_from<dynamic_mapping>(name, std::move(pairs));
    if (name == static_block_mapping::name) return detail::placement_from<static_block_mapping>(name, std::move(pairs));
    if (name == static_cyclic_mapping::name)
        return detail::placement_from<static_cyclic_mapping>(name, std::move(pairs));
    using tile_rule = doacross_mapping::rule;
    for (auto [tiles, rule] : {std::pair{"sds", tile_rule::sds}, std::pair{"chains-cyclic", tile_rule::cyclic},
                               std::pair{"cps", tile_rule::cps}, std::pair{"acs", tile_rule::acs}})
        if (name == tiles) {
            auto m = detail::placement_from<doacross_mapping>(name, std::move(pairs));
            m.how = rule;
            return m;
        }
    std::string valid;
    for (auto n : names) valid += (valid.empty() ? "" : ", ") + std::string(n);
    throw spec_error("loopsched: unknown placement '" + std::string(name) + "' in spec '" + std::string(spec) +
                     "'; valid: " + valid + ", or a chunk policy's spec (" + detail::known_names() + ")");
}

/// A hierarchical farm's two levels from `BETWEEN/WITHIN` (each a
/// parse_placement() spec), e.g. "ss/kazouris" or "fss/af", with the
/// hierarchy's default parameters (group size chosen, sub-masters only schedule).
inline placement_choice::levels parse_farm_hierarchy(std::string_view spec) {
    auto const slash = spec.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == spec.size() ||
        spec.find('/', slash + 1) != std::string_view::npos)
        throw spec_error("loopsched: a hierarchical farm's spec has two levels, BETWEEN/WITHIN: " + std::string(spec));
    return {parse_placement(spec.substr(0, slash)), parse_placement(spec.substr(slash + 1))};
}

/// A DOALL loop's mapping by name: "dynamic", "block" or "cyclic" (parse_placement's).
inline any_mapping parse_mapping(std::string_view name) {
    try {
        any_placement const p = parse_placement(name);
        if (auto const* m = p.mapping()) return *m;
    } catch (spec_error const&) { // named below, as a mapping
    }
    throw invalid_parameter("mapping", std::string(name), "one of: dynamic, block, cyclic");
}

/// A DOACROSS loop's tile mapping by name: "sds", "cyclic" (the chains'
/// round robin, also "chains-cyclic"), "cps" or "acs", with the tiles' extents
/// (empty: chosen); parse_placement's.
inline doacross_mapping parse_doacross_mapping(std::string_view name, std::vector<index_t> tile = {}) {
    try {
        any_placement const p = parse_placement(name == static_cyclic_mapping::name ? "chains-cyclic" : name);
        if (auto const* m = p.tiles()) return {m->how, std::move(tile)};
    } catch (spec_error const&) { // named below, as a mapping
    }
    throw invalid_parameter("mapping", std::string(name), "one of: sds, cyclic, cps, acs");
}

/// `choice` as a value: a spec parsed, "BETWEEN/WITHIN" as two levels with
/// the hierarchy's default parameters. A bad spec raises invalid_parameter
/// naming `parameter` (the option) and the spec.
inline placement_choice resolve(placement_choice const& choice, std::string_view parameter = "placement") {
    std::string const* given = choice.given_spec();
    if (given == nullptr) return choice;
    try {
        if (given->find('/') == std::string::npos) return parse_placement(*given);
        return parse_farm_hierarchy(*given);
    } catch (spec_error const& e) {
        std::string_view why = e.what();
        if (why.starts_with("loopsched: ")) why.remove_prefix(11);
        throw invalid_parameter(std::string(parameter), *given, why);
    }
}

namespace detail {

/// resolve(choice), its error kept for the run's checks to raise on every rank.
inline resolved_choice resolve_choice(placement_choice const& choice, std::string_view parameter) {
    try {
        return {resolve(choice, parameter), nullptr};
    } catch (...) {
        return {any_placement{}, std::current_exception()};
    }
}

} // namespace detail
} // namespace loopsched
