// Two-level scheduling past one master: a policy among groups, another within
// each group (hierarchical{fss{}, af{}}, or parse_hierarchy("fss/af")).
#pragma once

#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/spec.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace loopsched {

/// Two-level scheduling: `between` sizes the root's chunks among groups (a
/// group's power is the sum of its workers' V/Q), `within` each sub-master's
/// among its workers, over every chunk its group receives as a loop of its own.
/// parallel_for(t, space, hierarchical{fss{}, af{}}, body) or parse_hierarchy("fss/af").
template <ChunkPolicy Between, ChunkPolicy Within>
struct hierarchical {
    Between between{};
    Within within{};
    /// Workers per group, the sub-master included when it computes; 0: chosen
    /// from the expected chunk time and the measured cost of a request.
    std::size_t group_size = 0;
    /// A sub-master also runs chunks, between serving its workers. Off by
    /// default: while it runs an iteration its workers' requests wait, so with
    /// iterations of milliseconds its group idles (a group of one always computes).
    bool sub_masters_compute = false;
    /// For the automatic group size: a worker's expected time per chunk, in
    /// seconds (0: unknown, then groups of about sqrt(workers)).
    double expected_chunk_seconds = 0.0;
    /// For the automatic group size: the transport's cost per message, sent or
    /// received, added to the measured engine time of a request (MPI's o).
    double message_seconds = 1e-6;
};

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
