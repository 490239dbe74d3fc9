// Two-level scheduling past one master: a policy (or a farm's placement) among
// groups, another within each group: hierarchical{fss{}, af{}} for a loop,
// hierarchical{self_scheduling_placement{}, kazouris_placement{}} for a farm.
#pragma once

#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/error.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace loopsched {

/// Two-level scheduling: `between` sizes the root's work among groups (a
/// group's power is the sum of its workers' V/Q), `within` each sub-master's
/// among its workers. A loop's two levels are ChunkPolicy values
/// (parallel_for(t, space, hierarchical{fss{}, af{}}, body), parse_hierarchy("fss/af"));
/// a task farm's are placements (task_farm_options::scheme, or the spec "ss/kazouris").
template <class Between, class Within>
struct hierarchical {
    Between between{}; ///< the policy (or placement) between the root and the sub-masters
    Within within{};   ///< the policy (or placement) within each group
    /// Workers per group, the sub-master included when it computes; 0: chosen
    /// from the expected chunk time and the measured cost of a request.
    std::size_t group_size = 0;
    /// A sub-master also runs work, between serving its workers. Off by
    /// default: while it runs an iteration its workers' requests wait, so with
    /// iterations of milliseconds its group idles (a group of one always computes).
    bool sub_masters_compute = false;
    /// For the automatic group size: a worker's expected time per chunk (a
    /// farm: per task), in seconds (0: unknown, then groups of about sqrt(workers)).
    double expected_chunk_seconds = 0.0;
    /// For the automatic group size: the transport's cost per message, sent or
    /// received, added to the measured engine time of a request (MPI's o).
    double message_seconds = 1e-6;

    /// The same shape over other level types (a farm's placements held by value).
    template <class B, class W>
    [[nodiscard]] hierarchical<B, W> with_levels(B b, W w) const {
        return {std::move(b), std::move(w), group_size, sub_masters_compute, expected_chunk_seconds, message_seconds};
    }
};

/// hierarchical{fss{}, af{}, 64}: the levels' types from the first two values
/// (written out: Clang before 17 does not deduce an aggregate's arguments).
template <class B, class W, class... Rest>
hierarchical(B, W, Rest...) -> hierarchical<B, W>;

namespace detail {

/// The checks of a hierarchy's own parameters, shared by loops and farms.
template <class B, class W>
void check_hierarchy(hierarchical<B, W> const& h) {
    require(std::isfinite(h.expected_chunk_seconds) && h.expected_chunk_seconds >= 0.0,
            "hierarchical.expected_chunk_seconds", h.expected_chunk_seconds, "must be >= 0");
    require(std::isfinite(h.message_seconds) && h.message_seconds >= 0.0, "hierarchical.message_seconds",
            h.message_seconds, "must be >= 0");
}

/// What the ranks must agree on about a hierarchy, its levels given by their fingerprints.
template <class B, class W>
std::uint64_t hierarchy_fingerprint(hierarchical<B, W> const& h, std::uint64_t between, std::uint64_t within) {
    return fingerprint()
            .add(between)
            .add(within)
            .add(static_cast<std::uint64_t>(h.group_size))
            .add(h.sub_masters_compute)
            .add(h.expected_chunk_seconds)
            .add(h.message_seconds)
            .value();
}

} // namespace detail
} // namespace loopsched
