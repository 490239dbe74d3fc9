// Run-time choice of a policy: parse_policy("w-fss:alpha=2") and the names it knows.
#pragma once

#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <boost/hana/for_each.hpp>

#include <algorithm>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched {

/// Adaptor prefixes a spec may carry: "w-fss" (W), "s-tss" (S), "sw-gss" (S
/// over W), "dmps-tss:h=100" (DMPS(A), A in css, tss, dtss, with a fixed h).
inline constexpr std::string_view weighted_prefix = "w-";
inline constexpr std::string_view synchronized_prefix = "s-";
inline constexpr std::string_view synchronized_weighted_prefix = "sw-";
inline constexpr std::string_view dmps_prefix = "dmps-";

/// The policy names parse_policy() accepts (without adaptor prefixes), in catalogue order.
inline std::vector<std::string_view> policy_names() {
    std::vector<std::string_view> names;
    boost::hana::for_each(policy_catalogue, [&](auto t) { names.push_back(decltype(t)::type::name); });
    return names;
}

namespace detail {

/// `what`: the kind of spec ("policy", "placement"), for messages.
inline std::vector<spec_args::pair> split_arguments(std::string_view spec, std::string_view args,
                                                    std::string_view what = "policy") {
    std::vector<spec_args::pair> pairs;
    while (!args.empty()) {
        auto comma = args.find(',');
        std::string_view item = args.substr(0, comma);
        auto eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0)
            throw spec_error("loopsched: in " + std::string(what) + " spec '" + std::string(spec) +
                             "', expected key=value but got '" +
                             std::string(item) + "'");
        pairs.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
        if (comma == std::string_view::npos) break;
        args.remove_prefix(comma + 1);
        if (args.empty())
            throw spec_error("loopsched: " + std::string(what) + " spec '" + std::string(spec) + "' ends with ','");
    }
    return pairs;
}

/// The S adaptor's key: h=<integer> (fixed), h=<k>m (k points per worker), h=auto.
inline sync_interval parse_interval(std::string_view spec, std::string_view text) {
    auto bad = [&] {
        return spec_error("loopsched: in policy spec '" + std::string(spec) + "', h='" + std::string(text) +
                          "' is not an interval: use h=<integer >= 1>, h=<k>m (k points per worker) or h=auto");
    };
    if (text == "auto") return sync_interval::automatic();
    bool const per_worker = text.ends_with('m');
    std::string_view digits = per_worker ? text.substr(0, text.size() - 1) : text;
    if (digits.empty() || digits.size() > 15 ||
        !std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; }))
        throw bad();
    index_t const v = std::stoll(std::string(digits));
    if (v < 1) throw bad();
    return per_worker ? sync_interval::points_per_worker(v) : sync_interval::fixed(v);
}

inline std::string known_names() {
    std::string list;
    for (auto n : policy_names()) list += (list.empty() ? "" : ", ") + std::string(n);
    return list;
}

} // namespace detail

/// Builds a policy from `NAME[:key=value,...]`, optionally prefixed with "w-"
/// (the weighting adaptor), "s-" or "sw-" (the synchronization adaptor, alone or
/// over W; its interval is the key h=<integer>|<k>m|auto, default 3m) or "dmps-"
/// (DMPS(A) for css, tss, dtss; h=<integer> required). Unknown names and keys
/// raise spec_error listing the valid ones; bad values raise invalid_parameter
/// or spec_error naming them.
inline any_policy parse_policy(std::string_view spec) {
    std::string_view body = spec;
    bool synchronize = false, weight = false, dmps_form = false;
    if (body.starts_with(synchronized_weighted_prefix)) {
        synchronize = weight = true;
        body.remove_prefix(synchronized_weighted_prefix.size());
    } else if (body.starts_with(dmps_prefix)) {
        synchronize = dmps_form = true;
        body.remove_prefix(dmps_prefix.size());
    } else if (body.starts_with(synchronized_prefix)) {
        synchronize = true;
        body.remove_prefix(synchronized_prefix.size());
    }
    if (!weight && !dmps_form && body.starts_with(weighted_prefix)) {
        weight = true;
        body.remove_prefix(weighted_prefix.size());
    }
    auto colon = body.find(':');
    std::string_view name = body.substr(0, colon);
    std::string_view args = colon == std::string_view::npos ? std::string_view{} : body.substr(colon + 1);
    if (colon != std::string_view::npos && args.empty())
        throw spec_error("loopsched: policy spec '" + std::string(spec) + "' has ':' but no key=value");

    auto pairs = detail::split_arguments(spec, args);
    std::optional<sync_interval> interval;
    if (synchronize) { // the adaptor's key is taken out before the scheme sees its own
        auto h = std::ranges::find(pairs, std::string("h"), &spec_args::pair::first);
        if (h != pairs.end() && std::ranges::count(pairs, std::string("h"), &spec_args::pair::first) > 1)
            throw spec_error("loopsched: parameter 'h' given twice in policy spec '" + std::string(spec) + "'");
        if (h != pairs.end()) {
            interval = detail::parse_interval(spec, h->second);
            pairs.erase(h);
        }
    }
    if (dmps_form) {
        if (name != css::name && name != tss::name && name != dtss::name)
            throw spec_error("loopsched: in policy spec '" + std::string(spec) +
                             "', DMPS(A) is defined for A in css, tss, dtss, not '" + std::string(name) + "'");
        if (!interval || interval->how() != sync_interval::kind::fixed)
            throw spec_error("loopsched: policy spec '" + std::string(spec) +
                             "' needs h=<integer>: DMPS(A) takes the interval from the programmer");
    }

    std::optional<any_policy> found;
    boost::hana::for_each(policy_catalogue, [&](auto t) {
        using P = typename decltype(t)::type;
        if (found || name != P::name) return;
        spec_args parsed(P::name, std::span<std::string_view const>(P::keys), pairs);
        found.emplace(P::from_spec(parsed));
    });
    if (!found)
        throw spec_error("loopsched: unknown policy '" + std::string(name) + "' in spec '" + std::string(spec) +
                         "'; valid: " + detail::known_names() + " (prefixes '" + std::string(weighted_prefix) + "', '" +
                         std::string(synchronized_prefix) + "', '" + std::string(synchronized_weighted_prefix) +
                         "', '" + std::string(dmps_prefix) + "' add the adaptors)");
    any_policy scheme = weight ? any_policy(weighted<any_policy>(std::move(*found))) : std::move(*found);
    if (synchronize) return any_policy(synchronized<any_policy>(std::move(scheme), interval.value_or(sync_interval{})));
    return scheme;
}

/// A hierarchical pair from `BETWEEN/WITHIN` (each a parse_policy() spec; one
/// spec alone is used at both levels), e.g. "fss/af" or "w-fss/ss".
inline hierarchical<any_policy, any_policy> parse_hierarchy(std::string_view spec) {
    auto const slash = spec.find('/');
    if (slash != std::string_view::npos && spec.find('/', slash + 1) != std::string_view::npos)
        throw spec_error("loopsched: a hierarchical spec has two levels, BETWEEN/WITHIN: " + std::string(spec));
    std::string_view const between = spec.substr(0, slash);
    std::string_view const within = slash == std::string_view::npos ? between : spec.substr(slash + 1);
    return hierarchical<any_policy, any_policy>{parse_policy(between), parse_policy(within)};
}

} // namespace loopsched
