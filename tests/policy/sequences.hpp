// Helpers for the policy tests: chunk sizes of a schedule, and driving a policy
// with an explicit request order.
#pragma once

#include <loopsched/policies.hpp>
#include <loopsched/schedule.hpp>

#include <vector>

namespace loopsched::test {

inline std::vector<index_t> sizes(std::vector<assignment> const& schedule) {
    std::vector<index_t> out;
    for (auto const& a : schedule) out.push_back(a.range.size);
    return out;
}

template <ChunkPolicy P>
std::vector<index_t> round_robin_sizes(P const& policy, index_t iterations, std::size_t workers,
                                       std::vector<worker_status> status = {}) {
    return sizes(round_robin_schedule(policy, loop_info{iterations, workers, std::move(status)}));
}

/// Chunk sizes when the workers ask in exactly the given order.
template <ChunkPolicy P>
std::vector<index_t> sizes_in_order(P const& policy, loop_info const& info, std::vector<std::size_t> const& order) {
    chunk_sequencer<P> seq(policy, info);
    std::vector<index_t> out;
    for (std::size_t k : order) {
        auto c = seq.next(request{k, info.of(k), {}});
        if (!c) break;
        out.push_back(c->size);
    }
    return out;
}

} // namespace loopsched::test
