// Loops without a master: no request, no grant. Every rank runs its own
// chunks (those a mapping places on it ahead of time, static block or cyclic;
// or those it claims through a shared counter, masterless.hpp) and sends one
// report, with the loop's shape, its statistics and results, to the
// coordinator, which checks the shapes, sends the results to the root (if it
// is another rank) and the table to everyone. A failing rank tells the
// coordinator at once, which aborts everyone.
#pragma once

#include <loopsched/detail/function_ref.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/runtime/core/agreement.hpp>
#include <loopsched/runtime/core/link.hpp>
#include <loopsched/runtime/core/messages.hpp>
#include <loopsched/runtime/core/plan.hpp>
#include <loopsched/schedule.hpp>

#include <cstring>
#include <optional>
#include <span>
#include <thread>
#include <vector>

namespace loopsched::detail {

/// A rank's report in a loop run ahead of time: its hello (the shape, to be
/// checked at the end) followed by an ordinary report.
inline std::span<std::byte const> encode_ahead_report(wire_writer& w, loop_shape const& shape, worker_status status,
                                                      worker_statistics const& mine, double clock,
                                                      result_blocks const& results,
                                                      std::span<chunk_event const> trace) {
    w.put(hello_message{shape, status});
    return encode_report(w, mine, clock, results, trace);
}

/// Calls run(chunk) for every chunk this rank runs in a loop without a master,
/// and waiting() whenever it waits for other ranks (it yields the processor
/// and looks for the loop's end: an abort, or a rank's failure, is raised).
using each_own_chunk = function_ref<void(function_ref<void(chunk)> run, function_ref<void()> waiting)>;

/// One rank's row in a bundle of them going up the tree: its rank, computing
/// time, iterations and chunks (nothing else counts without a master: no
/// waiting for grants, no requests), and when traced, its chunks with times
/// from its own go. About 13 bytes where a report is 184: at 16,384 simulated
/// ranks the reports' bytes, more than their messages, kept the coordinator
/// waiting (26 ms on 1 Gb/s).
inline void put_tree_row(wire_writer& w, worker_statistics const& row, bool traced,
                         std::span<chunk_event const> trace, double go) {
    w.put_varint(static_cast<std::uint64_t>(row.rank))
            .put(row.compute_seconds)
            .put_varint(static_cast<std::uint64_t>(row.iterations))
            .put_varint(static_cast<std::uint64_t>(row.chunks));
    if (!traced) return;
    w.put_varint(trace.size());
    for (chunk_event e : trace) {
        e.start -= go;
        e.end -= go;
        w.put(e);
    }
}

/// Reads a row put_tree_row wrote; its chunks go to `trace`.
inline worker_statistics read_tree_row(wire_reader& r, bool traced, std::vector<chunk_event>& trace) {
    worker_statistics row;
    row.rank = static_cast<int>(r.get_varint());
    row.compute_seconds = r.get<double>();
    row.iterations = static_cast<index_t>(r.get_varint());
    row.chunks = static_cast<index_t>(r.get_varint());
    if (traced)
        for (auto n = r.get_varint(); n > 0; --n) trace.push_back(r.get<chunk_event>());
    return row;
}

/// Runs this rank's part of a loop without a master: `each_own(run, waiting)`
/// calls run(chunk) for every chunk this rank runs (not called when `works`
/// is false), then the reports, results and table. `body`: a doall_body.
/// `after_go`: every rank started at the go of an opening that checked the
/// shapes (a loop without a master). Then a chunk's times in the trace count
/// from its rank's go, not from a clock offset estimated when its report
/// arrives (late, while the coordinator computes); and with no results to
/// gather, each rank sends its row (put_tree_row) and its subtree's up the
/// binomial tree (tree_parent) in one message, not a report straight to the
/// coordinator (through the tree, results would pass through up to
/// log2(ranks) ranks and wait in the memory of each). Compiled once per
/// transport and body, whatever gives the chunks.
template <Transport T, class Body>
loop_statistics run_without_master(loop_link<T>& link, loop_shape const& shape, std::optional<failure> failed,
                                   rank_plan& plan, bool works, each_own_chunk each_own, Body& body, bool after_go) {
    int const ranks = link.size(), self = link.rank();
    auto const& settings = plan.settings;
    bool const through_tree = after_go && shape.result_bytes == 0;
    int const root = shape.root; // every rank's own view; the coordinator checks they agree
    worker_statistics mine{self};
    result_blocks results;
    std::vector<chunk_event> trace;
    std::vector<message> early; // reports (bundles, up the tree) that came while this rank worked
    std::vector<double> early_arrived; // when each came
    double const start = link.now();

    // A peer's loss ends the loop on every survivor. The coordinator tells
    // them all: a rank may have taken that loss's notice while it waited for
    // the go, where it was the coordinator's affair, and would otherwise wait
    // here for a table that never comes.
    if (self == coordinator) link.on_losses(loss_rule::deliver);

    // Looks for the loop's end while working: the abort (every rank), or a
    // failure to end the loop with (the coordinator). Either is the verdict.
    bool verdict = false;
    auto look = [&] {
        while (auto m = link.try_receive()) {
            kind const k = kind_of(m->tag);
            if (k == kind::abort) {
                verdict = true;
                failure::read(*m).raise(self);
            }
            if (self == coordinator && (k == kind::failed || k == kind::lost)) {
                verdict = true;
                abort_everyone(link, k == kind::lost ? failure::lost(m->source) : failure::read(*m));
            }
            early.push_back(message{m->source, m->tag, copy_bytes(m->payload)});
            early_arrived.push_back(link.now());
        }
    };

    if (works && !failed) {
        try {
            double last_look = start;
            auto waiting = [&] {
                look();
                std::this_thread::yield(); // the rank waited for may share this core
            };
            each_own([&](chunk c) {
                double const begin = link.now();
                body.begin(c);
                plan.profile.run([&] { body.run(c); });
                body.end(c, results);
                double const end = link.now();
                mine.compute_seconds += end - begin;
                mine.iterations += c.size;
                ++mine.chunks;
                if (settings.trace) trace.push_back({self, c.first, c.size, begin, end});
                if (end - last_look >= settings.poll_interval) {
                    last_look = end;
                    look();
                }
            }, waiting);
        } catch (rank_lost const&) {
            // A peer's failure, seen here first: every survivor sees it too (the
            // coordinator waits for that peer's report), so nobody is told.
            // Telling the coordinator would wait for an answer that never comes
            // once it has left the loop with the same rank_lost.
            throw;
        } catch (...) {
            if (verdict) throw;
            failed = failure::current(self, true);
        }
    }

    if (self != coordinator) {
        if (failed) tell_and_wait(link, coordinator, *failed);
        // Its work done, the loop's outcome is the coordinator's: the table,
        // or the abort. A peer lost now may have sent its report already, and
        // the coordinator then ends the loop well on every rank.
        link.on_losses(loss_rule::answers_to, coordinator);
        wire_writer w;
        if (!through_tree) {
            double const clock = !settings.trace ? 0.0 : after_go ? start : link.now();
            link.send(coordinator, kind::report,
                      encode_ahead_report(w, shape, plan.profile.status(), mine, clock, results, trace));
        } else { // this rank's row and its children's bundles, in one bundle to its parent
            put_tree_row(w, mine, settings.trace, trace, start);
            int children = 0;
            for_each_tree_child(self, ranks, [&](int) { ++children; });
            auto add = [&](message_view m) {
                kind const k = kind_of(m.tag);
                if (k == kind::abort) failure::read(m).raise(self);
                if (k == kind::report) {
                    w.put_raw(m.payload);
                    --children;
                }
            };
            for (auto const& m : early) add(m);
            while (children > 0) add(link.receive());
            link.send(tree_parent(self), kind::report, w.view());
        }
        loop_statistics table;
        while (true) {
            message_view const m = link.receive();
            kind const k = kind_of(m.tag);
            if (k == kind::abort) failure::read(m).raise(self);
            if (k == kind::report && self == root) { // everyone's results and trace, from the coordinator
                wire_reader r(m.payload);
                read_result_blocks(
                        r, r.get<std::uint64_t>(),
                        [&](index_t first, index_t size, std::span<std::byte const> b) { body.take(first, size, b); });
                for (auto n = r.get<std::size_t>(); n > 0; --n) table.trace.push_back(r.get<chunk_event>());
            } else if (k == kind::table) {
                auto trace_kept = std::move(table.trace);
                decode_table(m, table);
                table.trace = std::move(trace_kept);
                return table;
            }
        }
    }

    // The coordinator: every other rank's report (or failure), then the verdict.
    if (failed) abort_everyone(link, *failed); // the others stop at their next look
    std::vector<message> reports(static_cast<std::size_t>(ranks));   // each rank's, straight
    std::vector<double> arrived(static_cast<std::size_t>(ranks));     // when it came: its clock's offset
    std::vector<worker_statistics> rows(through_tree ? static_cast<std::size_t>(ranks) : 0); // up the tree
    std::vector<chunk_event> events = trace;
    for (auto& e : events) { // the coordinator's own: its clock, onto loop time
        e.start -= start;
        e.end -= start;
    }
    shape_check check(shape, true);
    int heard = 1; // ranks whose report (or failure) is in, the coordinator's own counted
    auto take = [&](message_view m, double when) {
        kind const k = kind_of(m.tag);
        if (k == kind::lost) abort_everyone(link, failure::lost(m.source));
        if (through_tree && k == kind::report) {
            wire_reader r(m.payload);
            while (r.remaining() > 0) {
                worker_statistics const row = read_tree_row(r, settings.trace, events);
                if (row.rank <= coordinator || row.rank >= ranks) // every rank waits for the verdict
                    abort_everyone(link, failure::fault(m.source, "loopsched: protocol: a row from rank " +
                                                                          std::to_string(row.rank) + " of " +
                                                                          std::to_string(ranks)));
                rows[static_cast<std::size_t>(row.rank)] = row;
                ++heard;
            }
            return;
        }
        // A failing rank tells the coordinator straight away; up the tree, its subtree's rows wait at it.
        if (through_tree && k == kind::failed) abort_everyone(link, failure::read(m));
        if (check.take(m) && k == kind::report) {
            reports[static_cast<std::size_t>(m.source)] = message{m.source, m.tag, copy_bytes(m.payload)};
            arrived[static_cast<std::size_t>(m.source)] = after_go ? start : when;
        }
        ++heard;
    };
    for (std::size_t i = 0; i < early.size(); ++i) take(early[i], early_arrived[i]);
    while (heard < ranks) take(link.receive(), link.now());
    if (auto const outcome = check.verdict(std::nullopt)) abort_everyone(link, *outcome);

    loop_statistics table;
    table.workers.resize(settings.workers());
    result_blocks forwarded = root != coordinator ? results : result_blocks{}; // to the root, when it is another rank
    for (int r = 0; r < ranks; ++r) {
        worker_statistics w = mine;
        if (through_tree && r != coordinator) {
            w = rows[static_cast<std::size_t>(r)];
        } else if (r != coordinator) {
            wire_reader rd(reports[static_cast<std::size_t>(r)].payload);
            (void)rd.get<hello_message>();
            w = read_report(
                    rd, arrived[static_cast<std::size_t>(r)], start,
                    [&](index_t first, index_t size, std::span<std::byte const> b) {
                        if (root == coordinator)
                            body.take(first, size, b);
                        else
                            std::ranges::copy(b, forwarded.add(first, size, b.size()).begin());
                    },
                    events);
        }
        if (int const k = settings.index_of(r); k >= 0) table.workers[static_cast<std::size_t>(k)] = w;
    }
    table.parallel_seconds = link.now() - start;
    if (root != coordinator) {
        wire_writer forward;
        forward.put(forwarded.count()).put_raw(forwarded.blocks()).put(events.size());
        for (auto const& e : events) forward.put(e);
        link.send(root, kind::report, forward.view());
    }
    send_table_to_everyone(link, table);
    if (root == coordinator) {
        table.trace = std::move(events);
        std::ranges::sort(table.trace, {}, &chunk_event::start);
    }
    return table;
}

/// Runs this rank's part of a loop placed ahead of time: its chunks are those
/// the mapping places on it, in the policy's round-robin order.
template <Transport T, ChunkPolicy P, LoopMapping M, class Body>
loop_statistics run_ahead(loop_link<T>& link, loop_shape const& shape, std::optional<failure> failed, rank_plan& plan,
                          P const& policy, M const& mapping, Body& body) {
    int const my_index = failed ? -1 : plan.settings.index_of(link.rank());
    auto each_own = [&](function_ref<void(chunk)> run, function_ref<void()>) { // never waits
        std::size_t units = 0; // block placement needs the count first: a pass without running anything
        for_each_round_robin(policy, plan.info, [&](assignment const&) { ++units; });
        auto placement = mapping.start(placement_info{plan.info.workers, plan.info.status, units});
        std::size_t i = 0;
        for_each_round_robin(policy, plan.info, [&](assignment const& a) {
            request const asking{a.worker, plan.info.of(a.worker), {}};
            if (placement.place(work_unit{i++, a.range.size}, asking) == static_cast<std::size_t>(my_index))
                run(a.range);
        });
    };
    return run_without_master(link, shape, std::move(failed), plan, my_index >= 0, each_own, body, false);
}

} // namespace loopsched::detail
