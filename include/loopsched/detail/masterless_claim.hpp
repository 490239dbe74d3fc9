// Which policies a loop without a master takes, and how it claims their
// steps: by the step alone, or through the claims log (by who claims).
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace loopsched::detail {

/// The policies a loop without a master runs: those whose chunk sequence is
/// fixed by the step, whoever asks (the worker's power, run queue or timing
/// never enter it), so that every rank derives any step's chunk alone.
inline constexpr std::array<std::string_view, 12> fixed_by_step_policies{
        "static", "ss", "css", "mfsc", "gss", "tss", "fss", "fac2", "fiss", "tfss", "fsc", "rnd"};

/// The policies whose chunks depend on who claims them (the worker's power and
/// run queue, as agreed when the loop opens), never on timing: each rank
/// replays the claims log (W-X takes any X of these two lists).
inline constexpr std::array<std::string_view, 5> fixed_by_claimant_policies{"wf", "dtss", "dfss", "dfiss", "dtfss"};

/// Of the policies fixed by the step, the ones whose chunks all have one size (the last clipped): a
/// step's chunk is then computed, not replayed.
inline constexpr std::array<std::string_view, 4> constant_chunk_policies{"ss", "css", "mfsc", "fsc"};

/// A spec's policy name: the spec up to its parameters.
inline std::string_view policy_name_of(std::string_view spec) { return spec.substr(0, spec.find(':')); }

/// How a loop without a master claims the policy's steps.
enum class masterless_claim {
    by_step,     ///< a fetch-and-add on the counter: the step fixes the chunk
    by_claimant, ///< a ticket and the claims log: the claimant's status enters the chunk
    refused,     ///< the chunks depend on timing (or are not known by name)
};

/// How the policy with this spec is claimed without a master.
inline masterless_claim masterless_claim_of(std::string_view spec) {
    std::string_view const name = policy_name_of(spec);
    if (std::ranges::find(fixed_by_step_policies, name) != fixed_by_step_policies.end())
        return masterless_claim::by_step;
    if (std::ranges::find(fixed_by_claimant_policies, name) != fixed_by_claimant_policies.end() ||
        (name.starts_with("w-") && masterless_claim_of(name.substr(2)) != masterless_claim::refused))
        return masterless_claim::by_claimant;
    return masterless_claim::refused;
}

} // namespace loopsched::detail
