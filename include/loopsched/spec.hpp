// Run-time choice of a policy: parse_policy("w-fss:alpha=2") and the names it knows.
#pragma once

#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/error.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <boost/hana/for_each.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched {

/// Adaptor prefixes a spec may carry, e.g. "w-fss".
inline constexpr std::string_view weighted_prefix = "w-";

/// The policy names parse_policy() accepts (without adaptor prefixes), in catalogue order.
inline std::vector<std::string_view> policy_names() {
    std::vector<std::string_view> names;
    boost::hana::for_each(policy_catalogue, [&](auto t) { names.push_back(decltype(t)::type::name); });
    return names;
}

namespace detail {

inline std::vector<spec_args::pair> split_arguments(std::string_view spec, std::string_view args) {
    std::vector<spec_args::pair> pairs;
    while (!args.empty()) {
        auto comma = args.find(',');
        std::string_view item = args.substr(0, comma);
        auto eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0)
            throw spec_error("loopsched: in policy spec '" + std::string(spec) + "', expected key=value but got '" +
                             std::string(item) + "'");
        pairs.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
        if (comma == std::string_view::npos) break;
        args.remove_prefix(comma + 1);
        if (args.empty()) throw spec_error("loopsched: policy spec '" + std::string(spec) + "' ends with ','");
    }
    return pairs;
}

inline std::string known_names() {
    std::string list;
    for (auto n : policy_names()) list += (list.empty() ? "" : ", ") + std::string(n);
    return list;
}

} // namespace detail

/// Builds a policy from `NAME[:key=value,...]`, optionally prefixed with "w-" for
/// the weighting adaptor. Unknown names and keys raise spec_error listing the
/// valid ones; bad values raise invalid_parameter or spec_error naming them.
inline any_policy parse_policy(std::string_view spec) {
    std::string_view body = spec;
    bool weighted_by_power = false;
    if (body.starts_with(weighted_prefix)) {
        weighted_by_power = true;
        body.remove_prefix(weighted_prefix.size());
    }
    auto colon = body.find(':');
    std::string_view name = body.substr(0, colon);
    std::string_view args = colon == std::string_view::npos ? std::string_view{} : body.substr(colon + 1);
    if (colon != std::string_view::npos && args.empty())
        throw spec_error("loopsched: policy spec '" + std::string(spec) + "' has ':' but no key=value");

    std::optional<any_policy> found;
    boost::hana::for_each(policy_catalogue, [&](auto t) {
        using P = typename decltype(t)::type;
        if (found || name != P::name) return;
        spec_args parsed(P::name, std::span<std::string_view const>(P::keys), detail::split_arguments(spec, args));
        found.emplace(P::from_spec(parsed));
    });
    if (!found)
        throw spec_error("loopsched: unknown policy '" + std::string(name) + "' in spec '" + std::string(spec) +
                         "'; valid: " + detail::known_names() + " (prefix '" + std::string(weighted_prefix) +
                         "' adds the weighting adaptor)");
    if (weighted_by_power) return any_policy(weighted<any_policy>(std::move(*found)));
    return std::move(*found);
}

} // namespace loopsched
