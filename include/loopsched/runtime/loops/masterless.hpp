// DOALL loops without a master (parallel_for_options::masterless), after
// Eleliemy and Ciorba's distributed chunk calculation ("Dynamic Loop
// Scheduling Using MPI Passive-Target Remote Memory Access"): every rank claims
// the policy's next scheduling step, with one fetch-and-add on the transport's
// shared counter where the step fixes the chunk, or with a compare-and-swap
// in its claims log (after a ticket on the counter) where the claimant does, and derives that step's chunk
// itself; the reports, results and table are those of a loop placed ahead of
// time (ahead.hpp).
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/detail/masterless_claim.hpp>
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
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched::detail {

/// The checks a loop without a master makes on every rank, past parallel_for_options'
/// own: a policy it can claim, and a transport with a shared counter.
template <Transport T>
void check_masterless(T const& transport, std::string const& policy_spec) {
    if (masterless_claim_of(policy_spec) != masterless_claim::refused) [[likely]] {
        require(shares_a_counter(transport), "options.masterless", true,
                "needs a transport with a shared counter (MPI, in-process, SimGrid: see has_shared_counter)");
        return;
    }
    std::string accepted;
    for (auto const& names : {std::span<std::string_view const>(fixed_by_step_policies),
                              std::span<std::string_view const>(fixed_by_claimant_policies)})
        for (auto name : names) accepted += (accepted.empty() ? "" : ", ") + std::string(name);
    require(false, "policy", policy_spec,
            "cannot run with options.masterless: its chunks depend on the timing of earlier chunks, which a rank "
            "claiming a step alone cannot know; masterless takes " +
                    accepted + ", and W- over any of them");
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

/// The chunks of a policy that depends on who claims, on one rank: a rank
/// claims a step with a fetch-and-add on the counter (its ticket) and writes
/// its worker index + 1 into the ticket's entry of the claims log (a
/// compare-and-swap into an empty entry, which cannot fail). Every rank
/// replays the log through its own copy of the policy, so that each derives
/// the chunk the policy grants that claimant at that point, as a master would
/// if the workers asked in that order. A rank waits only for the entries
/// before its ticket, which their holders write right after taking them.
/// Claiming the first empty entry with a compare-and-swap alone spares the
/// counter, but at 1,024 simulated ranks the lost races and retries took a
/// third of the loop's time (W-FSS, 1 ms iterations: 0.663 of the ideal,
/// against 0.929 with tickets).
template <class T, ChunkPolicy P>
class claim_replay {
public:
    /// `by_rank`: every rank's status, or one, every rank's, where all are equal.
    claim_replay(T& transport, std::int64_t base, P const& policy, loop_info const& info,
                 runtime_settings const& settings, std::span<worker_status const> by_rank, std::size_t worker)
            : transport_(transport), base_(base), seq_(policy, info), settings_(settings), by_rank_(by_rank),
              worker_(worker) {}

    /// This rank's next chunk, or nullopt when the loop is done, the policy
    /// leaves this worker out (for good: the statuses do not change), or rank
    /// 0 is unreachable (its failure's notice follows). `waiting()` runs while
    /// an entry before the ticket is still empty: its holder is between its
    /// ticket and its write, descheduled, or dead (then waiting() raises the
    /// loop's end).
    std::optional<chunk> next(function_ref<void()> waiting) {
        if (seq_.done()) return std::nullopt;
        std::int64_t const ticket = transport_.counter_fetch_add(1) - base_;
        if (transport_.claims_compare_and_swap(ticket, static_cast<std::int32_t>(worker_) + 1) != 0) [[unlikely]]
            return std::nullopt; // rank 0 is unreachable (a taken entry would be a broken log)
        while (slot_ < ticket && !seq_.done())
            if (!catch_up(ticket)) waiting();
        if (seq_.done()) return std::nullopt;
        ++slot_;
        return grant(worker_);
    }

private:
    std::optional<chunk> grant(std::size_t worker) {
        auto const rank = static_cast<std::size_t>(settings_.worker_ranks.at(worker));
        return seq_.next(request{worker, by_rank_.size() == 1 ? by_rank_.front() : by_rank_[rank], {}});
    }
    /// Replays the entries written since, up to the first empty one or `end`
    /// (false: none was written),
    /// read at once: between two claims of a rank, every other rank claims
    /// about once (reading 64 at a time, W-FSS on 4,096 simulated ranks with
    /// 1 ms iterations reached 0.665 of the ideal, against 0.935).
    bool catch_up(std::int64_t end) {
        auto const wanted = static_cast<std::size_t>(std::min<std::int64_t>(end - slot_, max_read));
        if (batch_.size() < wanted) batch_.resize(wanted);
        auto const entries = std::span(batch_).first(wanted);
        transport_.claims_read(slot_, entries);
        std::int64_t const before = slot_;
        for (std::int32_t const who : entries) {
            if (who <= 0) break; // its holder has yet to write it
            (void)grant(static_cast<std::size_t>(who) - 1);
            ++slot_;
        }
        return slot_ > before;
    }

    T& transport_;
    std::int64_t base_;
    chunk_sequencer<P> seq_;
    runtime_settings const& settings_;
    std::span<worker_status const> by_rank_;
    std::size_t worker_;
    std::int64_t slot_ = 0;
    static constexpr std::int64_t max_read = 1 << 14; ///< entries per read: 64 KiB
    std::vector<std::int32_t> batch_;
};

/// The go's word, on the coordinator while every rank waits for it: the
/// counter's value (-1: not opened yet, then every rank opens it, at 0), the
/// claims log emptied first where the loop claims through it. The counter
/// counts on across loops and is never reset: a loop's steps start at it.
template <Transport T>
std::int64_t counter_at_go(T& transport, bool through_claims_log) {
    if (through_claims_log) transport.claims_clear();
    return transport.counter_opened() ? transport.counter_fetch_add(0) : -1;
}

/// This rank's part of a loop without a master once every rank has the go
/// (`statuses`: every rank's, where the go carried them): claims until the
/// steps run out, then the reports and the table.
template <Transport T, ChunkPolicy P, class Body>
loop_statistics run_masterless_opened(loop_link<T>& link, checked_loop& checked, P const& policy, Body& body,
                                      go_for_everyone const& go, status_by_rank const& statuses) {
    auto& plan = checked.plan;
    T& transport = link.transport();
    std::int64_t base = go.word;
    if (base < 0) {
        transport.counter_open();
        base = 0;
    }
    int const index = plan.settings.index_of(link.rank());
    if (go.statuses) { // through the claims log
        // A ticket per step, and one more per worker: its last, past the end or left out.
        transport.claims_reserve(plan.info.iterations + static_cast<index_t>(plan.info.workers));
        claim_replay<T, P> claims(transport, base, policy, plan.info, plan.settings,
                                  std::span<worker_status const>(statuses.data(), statuses.size()),
                                  static_cast<std::size_t>(std::max(index, 0)));
        auto each_own = [&](function_ref<void(chunk)> run, function_ref<void()> waiting) {
            while (auto const c = claims.next(waiting)) run(*c);
        };
        return run_without_master(link, checked.shape, std::nullopt, plan, index >= 0, each_own, body, true);
    }
    bool const constant = std::ranges::find(constant_chunk_policies, policy_name_of(spec_of(policy))) !=
                          constant_chunk_policies.end();
    // The statuses play no part in a step's chunk: without them a rank keeps
    // O(1), not O(ranks), for its replay (16,384 simulated ranks in one process).
    loop_info const shape_only{plan.info.iterations, plan.info.workers, {}};
    step_replay<P> steps(policy, shape_only, static_cast<std::size_t>(std::max(index, 0)), constant);
    auto each_own = [&](function_ref<void(chunk)> run, function_ref<void()>) { // never waits
        while (auto const c = steps.at(transport.counter_fetch_add(1) - base)) run(*c);
    };
    return run_without_master(link, checked.shape, std::nullopt, plan, index >= 0, each_own, body, true);
}

/// Runs this rank's part of a loop without a master: the agreement (every rank
/// waits for the go, which carries the counter's value while nobody claims,
/// and every rank's status where the policy depends on who claims), then the
/// claims, the reports and the table.
template <Transport T, ChunkPolicy P, class Body>
loop_statistics run_masterless(loop_link<T>& link, checked_loop& checked, P const& policy, Body& body) {
    auto& plan = checked.plan;
    bool const by_claimant = masterless_claim_of(spec_of(policy)) == masterless_claim::by_claimant;
    auto word = [&] { return counter_at_go(link.transport(), by_claimant); };
    go_for_everyone go{word, 0, by_claimant};
    auto const statuses = agree(link, checked.shape, checked.failed, plan.profile.status(), plan.settings.silence, &go);
    return run_masterless_opened(link, checked, policy, body, go, statuses);
}

} // namespace loopsched::detail
