// Run-time choice of a policy: parse_policy("w-fss:alpha=2") and the names it
// knows (declared here; the catalogue comes with the definitions).
#pragma once

#include <loopsched/adaptor/sync_interval.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/config.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched {

/// Adaptor prefixes a spec may carry: "w-fss" (W), "s-tss" (S), "sw-gss" (S
/// over W), "dmps-tss:h=100" (DMPS(A), A in css, tss, dtss, with a fixed h).
inline constexpr std::string_view weighted_prefix = "w-";                ///< W
inline constexpr std::string_view synchronized_prefix = "s-";            ///< S
inline constexpr std::string_view synchronized_weighted_prefix = "sw-";  ///< S over W
inline constexpr std::string_view dmps_prefix = "dmps-";                 ///< DMPS(A)

/// The policy names parse_policy() accepts (without adaptor prefixes), in catalogue order.
LOOPSCHED_DECL std::vector<std::string_view> policy_names();

/// Builds a policy from `NAME[:key=value,...]`, optionally prefixed with "w-"
/// (the weighting adaptor), "s-" or "sw-" (the synchronization adaptor, alone or
/// over W; its interval is the key `h=INTEGER|Km|auto`, default 3m) or "dmps-"
/// (DMPS(A) for css, tss, dtss; `h=INTEGER` required). Any scheme also takes
/// `lower=N` and `upper=N`, chunk thresholds (the clamped adaptor, applied
/// after W and before S, as Ciorba's Table 5.5). Unknown names and keys
/// raise spec_error listing the valid ones; bad values raise invalid_parameter
/// or spec_error naming them.
LOOPSCHED_DECL any_policy parse_policy(std::string_view spec);

/// A hierarchical pair from `BETWEEN/WITHIN` (each a parse_policy() spec; one
/// spec alone is used at both levels), e.g. "fss/af" or "w-fss/ss".
LOOPSCHED_DECL hierarchical<any_policy, any_policy> parse_hierarchy(std::string_view spec);

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
    return list + ", auto";
}

} // namespace detail

} // namespace loopsched

// The catalogue walkers' definitions: here for header-only use, in
// loopsched::compiled's library otherwise.
#ifndef LOOPSCHED_COMPILED
#include <loopsched/spec.ipp>
#endif
