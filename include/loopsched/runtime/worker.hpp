// The worker engine: asks the master for chunks, runs them (asking for the next
// one early when request-ahead is on), sends results with its requests, reports.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/protocol.hpp>
#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>

namespace loopsched::detail {

/// Runs chunks from the master until told to stop; returns the loop's statistics
/// (sent by the master to every rank). Throws remote_error if any rank failed.
/// `execute(chunk, std::span<std::byte> results)` runs iterations of the loop.
template <Transport T, class Execute>
loop_statistics run_worker(T& t, runtime_settings const& settings, rank_profile& profile, Execute& execute) {
    int const master = settings.root;
    worker_statistics mine{t.rank()};
    chunk_timing last{};
    result_blocks pending(settings.result_bytes);
    std::vector<std::byte> current; // the running chunk's results: a request may leave before they are complete
    std::vector<chunk_event> trace;

    auto ask = [&] {
        double const sent = t.now();
        t.send(master, request_tag, encode_request(profile.status(sent), last, pending));
        pending.clear();
        mine.comm_seconds += t.now() - sent;
    };
    // Tells the master this rank failed, then drains replies up to its abort.
    auto fail = [&](std::string const& what) -> loop_statistics {
        t.send(master, failed_tag, encode_failure(t.rank(), what));
        while (true) {
            message m = t.receive(master, any_tag);
            if (m.tag == abort_tag) {
                auto [origin, text] = decode_failure(m);
                throw remote_error(origin, text);
            }
        }
    };

    ask();
    while (true) {
        double const asked = t.now();
        message reply = t.receive(master, any_tag);
        double const received = t.now();
        mine.wait_seconds += received - asked;

        if (reply.tag == work_tag) {
            chunk const c = decode_work(reply);
            current.resize(static_cast<std::size_t>(c.size) * settings.result_bytes);
            std::span<std::byte> out(current);
            // With request-ahead, the request goes out when the set fraction remains.
            index_t const before = settings.request_ahead > 0.0
                ? c.size - std::min(c.size, static_cast<index_t>(std::ceil(settings.request_ahead * static_cast<double>(c.size))))
                : c.size;
            double computed = 0.0;
            try {
                run_part(execute, chunk{c.first, before}, out.subspan(0, static_cast<std::size_t>(before) * settings.result_bytes),
                         profile.slowdown);
                computed = t.now() - received;
                if (before < c.size) {
                    ask();
                    double const resumed = t.now();
                    run_part(execute, chunk{c.first + before, c.size - before},
                             out.subspan(static_cast<std::size_t>(before) * settings.result_bytes), profile.slowdown);
                    computed += t.now() - resumed;
                }
            } catch (...) {
                return fail(current_exception_message());
            }
            double const done = t.now();
            mine.compute_seconds += computed;
            mine.iterations += c.size;
            ++mine.chunks;
            last = settings.deterministic ? modelled_timing(c.size, profile.power) : chunk_timing{c.size, computed, done - received};
            if (settings.result_bytes > 0) std::ranges::copy(current, pending.add(c).begin());
            if (settings.trace) trace.push_back({t.rank(), c.first, c.size, received, done});
            if (before == c.size) ask();
        } else if (reply.tag == stop_tag) {
            t.send(master, report_tag, encode_report(mine, t.now(), pending, trace));
            message verdict = t.receive(master, any_tag);
            if (verdict.tag == table_tag) return decode_table(verdict);
            auto [origin, what] = decode_failure(verdict);
            throw remote_error(origin, what);
        } else {
            auto [origin, what] = decode_failure(reply);
            throw remote_error(origin, what);
        }
    }
}

} // namespace loopsched::detail
