// DOALL loops without a master (parallel_for_options::masterless), after
// Eleliemy and Ciorba's distributed chunk calculation ("Dynamic Loop
// Scheduling Using MPI Passive-Target Remote Memory Access"): every rank claims
// the policy's next scheduling step with one fetch-and-add on the transport's
// shared counter and derives that step's chunk itself; the reports, results
// and table are those of a loop placed ahead of time (ahead.hpp).
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/runtime/core/agreement.hpp>
#include <loopsched/runtime/core/link.hpp>
#include <loopsched/runtime/core/plan.hpp>
#include <loopsched/runtime/loops/ahead.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/transport/counter.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace loopsched::detail {

/// The policies a loop without a master runs: those whose chunk sequence is
/// fixed by the step, whoever asks (the worker's power, run queue or timing
/// never enter it), so that every rank derives any step's chunk alone.
inline constexpr std::array<std::string_view, 12> fixed_by_step_policies{
        "static", "ss", "css", "mfsc", "gss", "tss", "fss", "fac2", "fiss", "tfss", "fsc", "rnd"};

/// Of those, the ones whose chunks all have one size (the last clipped): a
/// step's chunk is then computed, not replayed.
inline constexpr std::array<std::string_view, 4> constant_chunk_policies{"ss", "css", "mfsc", "fsc"};

/// A spec's policy name: the spec up to its parameters.
inline std::string_view policy_name_of(std::string_view spec) { return spec.substr(0, spec.find(':')); }

/// Whether the policy with this spec is fixed by the step.
inline bool fixed_by_step(std::string_view spec) {
    return std::ranges::find(fixed_by_step_policies, policy_name_of(spec)) != fixed_by_step_policies.end();
}

/// The checks a loop without a master makes on every rank, past parallel_for_options'
/// own: a policy fixed by the step, and a transport with a shared counter.
template <Transport T>
void check_masterless(T const& transport, std::string const& policy_spec) {
    if (fixed_by_step(policy_spec)) [[likely]] {
        require(shares_a_counter(transport), "options.masterless", true,
                "needs a transport with a shared counter (MPI, in-process, SimGrid: see has_shared_counter)");
        return;
    }
    std::string accepted;
    for (auto name : fixed_by_step_policies) accepted += (accepted.empty() ? "" : ", ") + std::string(name);
    require(false, "policy", policy_spec,
            "cannot run with options.masterless: its chunks depend on who asks (a worker's power, run queue or "
            "timing), which a rank claiming a step alone cannot know; masterless takes " +
                    accepted);
}

/// The chunk of any later step, on one rank: the policy's sequence replayed as
/// far as the step (the steps a rank claims only grow, so each is replayed
/// once), or, for a policy of constant chunks, step x size. A rank replays
/// every rank's steps: CSS(1)'s one per iteration would cost it more than its
/// claims do.
template <ChunkPolicy P>
class step_replay {
public:
    step_replay(P const& policy, loop_info const& info, std::size_t worker, bool constant_chunks)
            : seq_(policy, info), asking_{worker, info.of(worker), {}}, iterations_(info.iterations) {
        if (constant_chunks && !seq_.done()) {
            size_ = seq_.next(asking_).value_or(chunk{}).size;
            replayed_ = 1;
        }
    }

    /// Step `step`'s chunk, or nullopt past the last step.
    std::optional<chunk> at(std::int64_t step) {
        if (size_ > 0) { // constant chunks
            if (step >= (iterations_ + size_ - 1) / size_) return std::nullopt;
            index_t const first = static_cast<index_t>(step) * size_;
            return chunk{first, std::min(size_, iterations_ - first)};
        }
        std::optional<chunk> c;
        for (; replayed_ <= step; ++replayed_) {
            if (seq_.done()) return std::nullopt;
            c = seq_.next(asking_);
            if (!c) [[unlikely]]
                throw error("loopsched: the policy left a worker out in a loop without a master (its chunks are not "
                            "fixed by the step)");
        }
        return c;
    }

private:
    chunk_sequencer<P> seq_;
    request asking_;
    index_t iterations_;
    index_t size_ = 0; ///< constant chunks: their size
    std::int64_t replayed_ = 0;
};

/// Runs this rank's part of a loop without a master: the agreement (every rank
/// waits for the go, which carries the counter's value while nobody claims),
/// then claims until the steps run out, then the reports and the table.
template <Transport T, ChunkPolicy P, class Body>
loop_statistics run_masterless(loop_link<T>& link, checked_loop& checked, P const& policy, Body& body) {
    auto& plan = checked.plan;
    T& transport = link.transport();
    // The counter counts on across loops: this loop's steps start at its value
    // when the go is sent (-1: not opened yet, then every rank opens it, at 0).
    auto counter_now = [&]() -> std::int64_t {
        return transport.counter_opened() ? transport.counter_fetch_add(0) : -1;
    };
    go_for_everyone go{counter_now};
    (void)agree(link, checked.shape, checked.failed, plan.profile.status(), plan.settings.silence, &go);
    std::int64_t base = go.word;
    if (base < 0) {
        transport.counter_open();
        base = 0;
    }
    int const index = plan.settings.index_of(link.rank());
    bool const constant = std::ranges::find(constant_chunk_policies, policy_name_of(spec_of(policy))) !=
                          constant_chunk_policies.end();
    // The statuses play no part in a step's chunk: without them a rank keeps
    // O(1), not O(ranks), for its replay (16,384 simulated ranks in one process).
    loop_info const shape_only{plan.info.iterations, plan.info.workers, {}};
    step_replay<P> steps(policy, shape_only, static_cast<std::size_t>(std::max(index, 0)), constant);
    auto each_own = [&](function_ref<void(chunk)> run) {
        while (auto const c = steps.at(transport.counter_fetch_add(1) - base)) run(*c);
    };
    return run_without_master(link, checked.shape, std::nullopt, plan, index >= 0, each_own, body);
}

} // namespace loopsched::detail
