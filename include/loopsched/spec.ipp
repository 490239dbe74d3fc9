// The definitions of spec.hpp's catalogue walkers (parse_policy and its
// kin): every policy of the catalogue, through Boost.Hana. At the end of
// spec.hpp in header-only use, in loopsched::compiled's source (after spec.hpp)
// otherwise.
#pragma once

#include <loopsched/adaptor/clamped.hpp>
#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/config.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/policy/automatic.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <boost/hana/for_each.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched {

LOOPSCHED_DECL std::vector<std::string_view> policy_names() {
    std::vector<std::string_view> names;
    boost::hana::for_each(policy_catalogue, [&](auto t) { names.push_back(decltype(t)::type::name); });
    return names;
}

namespace detail {

/// `auto:...`'s keys (its candidates are specs joined by '+', with ';' for ',').
inline any_policy parse_automatic(std::string_view spec, std::vector<spec_args::pair> const& pairs) {
    spec_args parsed(automatic::name, std::span<std::string_view const>(automatic::keys), pairs);
    automatic_options o;
    static constexpr std::array<std::string_view, 3> methods{"exhaustive", "bandit", "expert"};
    auto const method = parsed.word("method", methods, "exhaustive");
    o.method = method == "bandit"   ? selection_method::bandit
               : method == "expert" ? selection_method::expert
                                    : selection_method::exhaustive;
    if (auto list = parsed.raw("candidates")) {
        for (std::string_view rest = *list;;) {
            auto const plus = rest.find('+');
            std::string text(rest.substr(0, plus));
            std::ranges::replace(text, ';', ',');
            if (text.empty())
                throw spec_error("loopsched: in policy spec '" + std::string(spec) +
                                 "', candidates has an empty entry: write them as a+b+c");
            o.candidates.push_back(parse_policy(text));
            if (plus == std::string_view::npos) break;
            rest.remove_prefix(plus + 1);
        }
    }
    if (auto key = parsed.raw("key")) o.key = std::string(*key);
    o.drift = parsed.real("drift", o.drift);
    o.discount = parsed.real("discount", o.discount);
    o.exploration = parsed.real("exploration", o.exploration);
    static constexpr std::array<std::string_view, 2> yes_no{"true", "false"};
    o.masterless = parsed.word("masterless", yes_no, "false") == "true";
    // Without a key, loops made from the same spec text share their learning.
    return automatic(std::move(o), call_site{"policy spec " + std::string(spec), 0});
}

} // namespace detail

LOOPSCHED_DECL any_policy parse_policy(std::string_view spec) {
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
    // The adaptors' keys are taken out before the scheme sees its own; each at most once.
    auto take = [&](std::string_view key) -> std::optional<spec_args::pair> {
        auto at = std::ranges::find(pairs, key, &spec_args::pair::first);
        if (at == pairs.end()) return std::nullopt;
        if (std::ranges::count(pairs, key, &spec_args::pair::first) > 1)
            throw spec_error("loopsched: parameter '" + std::string(key) + "' given twice in policy spec '" +
                             std::string(spec) + "'");
        spec_args::pair taken = std::move(*at);
        pairs.erase(at);
        return taken;
    };
    std::optional<sync_interval> interval;
    if (synchronize)
        if (auto h = take("h")) interval = detail::parse_interval(spec, h->second);
    // The chunk thresholds (the clamped adaptor) likewise: any scheme takes them.
    std::optional<index_t> lower, upper;
    for (char const* key : {"lower", "upper"})
        if (auto given = take(key)) {
            spec_args one("clamped", std::array<std::string_view, 1>{key}, {*given});
            (key[0] == 'l' ? lower : upper) = one.integer(key, 0);
        }
    // Where they apply: by default to the chunk handed out (after W); with
    // thresholds=scheme to the scheme's own chunk, which W then weights
    // (Ciorba's Table 5.10 reads so).
    bool thresholds_inside = false;
    if (auto given = take("thresholds")) {
        static constexpr std::array<std::string_view, 2> where{"granted", "scheme"};
        spec_args one("clamped", std::array<std::string_view, 1>{"thresholds"}, {*given});
        thresholds_inside = one.word("thresholds", where, "granted") == "scheme";
        if (thresholds_inside && !weight)
            throw spec_error("loopsched: in policy spec '" + std::string(spec) +
                             "', thresholds=scheme needs W (prefix '" + std::string(weighted_prefix) + "' or '" +
                             std::string(synchronized_weighted_prefix) +
                             "'): without it the scheme's chunk is the one handed out");
        if (thresholds_inside && !lower && !upper)
            throw spec_error("loopsched: in policy spec '" + std::string(spec) +
                             "', thresholds=scheme needs lower= or upper=");
    }
    if (dmps_form) {
        if (name != css::name && name != tss::name && name != dtss::name)
            throw spec_error("loopsched: in policy spec '" + std::string(spec) +
                             "', DMPS(A) is defined for A in css, tss, dtss, not '" + std::string(name) + "'");
        if (!interval || interval->how() != sync_interval::kind::fixed)
            throw spec_error("loopsched: policy spec '" + std::string(spec) +
                             "' needs h=<integer>: DMPS(A) takes the interval from the programmer");
    }

    if (name == automatic::name) {
        if (synchronize || weight || lower || upper || thresholds_inside)
            throw spec_error("loopsched: in policy spec '" + std::string(spec) +
                             "', auto takes no adaptor prefix and no thresholds: give them to its candidates");
        return detail::parse_automatic(spec, pairs);
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
    any_policy scheme = std::move(*found);
    auto clamp = [&] {
        if (lower || upper)
            scheme = any_policy(clamped<any_policy>(std::move(scheme), lower.value_or(1),
                                                    upper.value_or(std::numeric_limits<index_t>::max())));
    };
    if (thresholds_inside) clamp();
    if (weight) scheme = any_policy(weighted<any_policy>(std::move(scheme)));
    if (!thresholds_inside) clamp();
    if (synchronize) return any_policy(synchronized<any_policy>(std::move(scheme), interval.value_or(sync_interval{})));
    return scheme;
}

LOOPSCHED_DECL hierarchical<any_policy, any_policy> parse_hierarchy(std::string_view spec) {
    auto const slash = spec.find('/');
    if (slash != std::string_view::npos && spec.find('/', slash + 1) != std::string_view::npos)
        throw spec_error("loopsched: a hierarchical spec has two levels, BETWEEN/WITHIN: " + std::string(spec));
    std::string_view const between = spec.substr(0, slash);
    std::string_view const within = slash == std::string_view::npos ? between : spec.substr(slash + 1);
    return hierarchical<any_policy, any_policy>{parse_policy(between), parse_policy(within)};
}

} // namespace loopsched
