// The DOALL engine: the checks and plan every rank makes, then the protocol
// core's two clients (runtime/loops/doall_master.hpp grants chunks from a
// policy, runtime/loops/doall_worker.hpp runs them), or the loop ahead of time.
#pragma once

#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/policy/automatic.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/core/plan.hpp>
#include <loopsched/runtime/core/profile.hpp>
#include <loopsched/runtime/loops/ahead.hpp>
#include <loopsched/runtime/loops/doall_body.hpp>
#include <loopsched/runtime/loops/doall_master.hpp>
#include <loopsched/runtime/loops/doall_worker.hpp>
#include <loopsched/runtime/loops/masterless.hpp>
#include <loopsched/schedule.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// The checks every DOALL loop (flat or hierarchical) makes on every rank
/// before any message, past those of the space and results (`call`), and its plan.
inline rank_plan plan_doall(doall_call const& call, parallel_for_options const& o, int ranks, int self,
                            bool partner_splits = false) {
    if (call.earlier) std::rethrow_exception(call.earlier);
    validate(o, ranks);
    rank_plan plan = plan_ranks(ranks, self, call.iterations, o);
    plan.settings.silence = o.presumed_lost_after; // the options' own rules are checked in validate
    // Served in turn, the others would wait for a lost worker's request.
    require(!partner_splits || !plan.settings.detects_failures(), "options.presumed_lost_after",
            o.presumed_lost_after, "must be infinity with TreeS (trees): a partner's split would wait for a lost worker");
    if (partner_splits) {
        // A request must mean "my chunk is done", and chunks change hands mid-run.
        require(o.request_ahead == 0.0, "options.request_ahead", o.request_ahead, "must be 0 with TreeS (trees)");
        require(!o.deterministic, "options.deterministic", o.deterministic, "must be false with TreeS (trees)");
        require(!o.reissue, "options.reissue", o.reissue, "must be false with TreeS (trees)");
        require(!o.departures, "options.departures", o.departures, "must be false with TreeS (trees)");
    }
    plan.settings.partner_splits = partner_splits;
    plan.settings.request_ahead = o.request_ahead;
    plan.settings.reissue = o.reissue;
    plan.settings.masterless = o.masterless;
    plan.settings.departures = o.departures;
    plan.settings.leaving = o.leaving;
    plan.settings.result_bytes = call.result_bytes;
    return plan;
}

/// A mapping whose kind is known at compile time (not any_mapping's).
template <class M>
concept known_ahead_of_time = requires { typename std::bool_constant<M{}.ahead_of_time()>; };

/// The self-scheduled DOALL engine once the loop is agreed (`agreed`: every
/// rank's status, on the root): the master, a worker, or both.
template <Transport T, ChunkPolicy P, LoopMapping M>
loop_statistics run_dynamic_doall_agreed(loop_link<T>& link, checked_loop& checked, P const& policy,
                                         M const& mapping, chunk_body& run, status_by_rank const& agreed) {
    auto& plan = checked.plan;
    std::span<worker_status const> const opening(agreed.data(), agreed.size());
    return run_loop(
            link, plan.settings, opening,
            [&](master_port<T>& port) {
                return doall_master<T, P, M, chunk_body>(port, policy, mapping, plan.info, run);
            },
            [&](worker_port<T>& port) { return doall_worker<T, chunk_body>(port, plan.profile, run); });
}

/// The self-scheduled DOALL engine after the checks: the agreement, then the
/// master, a worker, or both.
template <Transport T, ChunkPolicy P, LoopMapping M>
loop_statistics run_dynamic_doall(loop_link<T>& link, checked_loop& checked, P const& policy, M const& mapping,
                                  chunk_body& run) {
    auto& plan = checked.plan;
    auto const agreed = agree(link, checked.shape, checked.failed, plan.profile.status(), plan.settings.silence);
    return run_dynamic_doall_agreed(link, checked, policy, mapping, run, agreed);
}

/// The automatic policy behind `policy`, if it is one (itself, or inside an
/// any_policy), else null.
template <class P>
automatic const* automatic_of(P const& policy) {
    if constexpr (std::same_as<P, automatic>)
        return &policy;
    else if constexpr (std::same_as<P, any_policy>)
        return policy.template target<automatic>();
    else
        return nullptr;
}

/// A self-scheduled DOALL loop whose automatic policy also tries loops
/// without a master: every rank waits for the go, which carries the root's
/// choice (the root is the coordinator, rank 0), then runs it with a master or
/// without; the root tells the selector how an execution without a master went.
template <Transport T, ChunkPolicy P, LoopMapping M>
loop_statistics run_automatic_doall(loop_link<T>& link, checked_loop& checked, P const& policy, automatic const& chooser,
                                    M const& mapping, chunk_body& run) {
    auto& plan = checked.plan;
    std::size_t const next = chooser.next_candidate(); // the coordinator's is the choice
    bool const through_log = chooser.runs_without_master(next) &&
                             masterless_claim_of(chooser.candidate(next).spec()) == masterless_claim::by_claimant;
    auto word = [&] { return counter_at_go(link.transport(), through_log); };
    go_for_everyone go{word, 0, through_log, static_cast<std::uint32_t>(next)};
    auto const agreed = agree(link, checked.shape, checked.failed, plan.profile.status(), plan.settings.silence, &go);
    if (go.choice >= chooser.choices()) [[unlikely]]
        throw error("loopsched: protocol: an automatic loop's choice " + std::to_string(go.choice) +
                    " is not one of its " + std::to_string(chooser.choices()) + " (the ranks' candidates differ)");
    if (!chooser.runs_without_master(go.choice)) return run_dynamic_doall_agreed(link, checked, policy, mapping, run, agreed);
    loop_statistics table = run_masterless_opened(link, checked, chooser.candidate(go.choice), run, go, agreed);
    if (link.rank() == plan.settings.root) {
        auto execution = chooser.start(plan.info); // the same choice: the selector learns only here
        execution.finish(table);
    }
    return table;
}

/// The DOALL engine on this rank after the checks, ahead of time,
/// self-scheduled, or without a master; compiled once per transport and
/// mapping (run_doall erases the policy), and only the kind a mapping known at
/// compile time needs.
template <Transport T, ChunkPolicy P, LoopMapping M>
loop_statistics run_doall_engine(loop_link<T>& link, checked_loop& checked, P const& policy, M const& mapping,
                                 chunk_body& run) {
    if constexpr (has_shared_counter<T>) { // checked: a loop without a master runs only where there is a counter
        if (checked.plan.settings.masterless) return run_masterless(link, checked, policy, run);
        if constexpr (std::same_as<P, any_policy> || std::same_as<P, automatic>)
            if (auto const* chooser = automatic_of(policy);
                chooser && chooser->options().masterless && !mapping.ahead_of_time())
                return run_automatic_doall(link, checked, policy, *chooser, mapping, run);
    }
    if constexpr (known_ahead_of_time<M>) {
        if constexpr (M{}.ahead_of_time())
            return run_ahead(link, checked.shape, checked.failed, checked.plan, policy, mapping, run);
        else
            return run_dynamic_doall(link, checked, policy, mapping, run);
    } else {
        if (mapping.ahead_of_time())
            return run_ahead(link, checked.shape, checked.failed, checked.plan, policy, mapping, run);
        return run_dynamic_doall(link, checked, policy, mapping, run);
    }
}

/// Runs a DOALL loop on this rank once its space and results are described:
/// the checks (on every rank, before any message), the agreement, then the
/// master, a worker, or both.
template <Transport T, ChunkPolicy P, LoopMapping M>
doall_run run_doall_checked(loop_link<T>& link, doall_call const& call, P const& policy, M const& mapping,
                            chunk_body& run, parallel_for_options const& o) {
    checked_loop checked = check_loop(link, [&] {
        bool const partners = splits_with_partners(policy);
        rank_plan plan = plan_doall(call, o, link.size(), link.rank(), partners);
        bool const detects = plan.settings.detects_failures();
        if ((o.reissue || o.departures || partners || detects) && mapping.ahead_of_time()) // the message is built only for a failure
            require(false,
                    o.reissue      ? "options.reissue"
                    : o.departures ? "options.departures"
                    : partners     ? "policy"
                                   : "options.presumed_lost_after",
                    o.reissue || o.departures ? std::string("true")
                    : partners                ? policy.spec()
                                              : to_text(o.presumed_lost_after),
                    "needs a self-scheduled mapping (" + std::string(mapping_name(mapping)) + " assigns ahead of time)");
        if (o.masterless) {
            require(!mapping.ahead_of_time(), "options.masterless", true,
                    "needs a self-scheduled mapping (" + std::string(mapping_name(mapping)) + " assigns ahead of time)");
            check_masterless(link.transport(), spec_of(policy));
        }
        if (auto const* chooser = automatic_of(policy); chooser && chooser->options().masterless) {
            std::string const with = "with an automatic policy that tries loops without a master";
            require(o.root == coordinator, "options.root", o.root, "must be 0 " + with + " (rank 0 announces its choice)");
            require(shares_a_counter(link.transport()), "policy", spec_of(policy),
                    "tries loops without a master: needs a transport with a shared counter (MPI, in-process, SimGrid: "
                    "see has_shared_counter)");
            check_masterless_rules(o, with);
        }
        detail::validate(plan.info);
        (void)policy.start(plan.info); // the policy's own checks, on every rank before any message
        loop_shape const shape = shape_of(o, {.algorithm = algorithm_id::parallel_for,
                                              .extent = plan.info.iterations,
                                              .space = call.space,
                                              .dimension = o.dimension,
                                              .result_bytes = call.result_bytes,
                                              .policy = policy_fingerprint(policy),
                                              .mapping = mapping_name(mapping),
                                              .request_ahead = o.request_ahead,
                                              .extra = options_fingerprint(o)});
        return std::pair{std::move(plan), shape};
    });
    return {{}, run_doall_engine(link, checked, policy, mapping, run), {}};
}

} // namespace loopsched::detail
