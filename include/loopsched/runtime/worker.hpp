// The worker engine: asks the master for chunks, runs them (asking for the next
// one early when request-ahead is on), sends results with its requests, reports.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/protocol.hpp>
#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
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

    // A clock read costs ~30 ns, a few percent of a round trip: two per chunk
    // (received, computed). The time spent sending is measured on one request
    // in comm_sampling and scaled, and the rest of the gap counts as waiting.
    std::uint64_t requests = 0;
    double sampled_comm = 0.0;
    std::uint64_t samples = 0;
    constexpr std::uint64_t comm_sampling = 16;
    auto ask = [&](double now) {
        t.send(master, request_tag, encode_request(profile.status(now), last, pending));
        pending.clear();
        if (requests++ % comm_sampling == 0) {
            sampled_comm += t.now() - now;
            ++samples;
        }
        return now;
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
    auto const bytes = [&](index_t iterations) { return static_cast<std::size_t>(iterations) * settings.result_bytes; };

    double idle_since = ask(t.now()); // when this rank last began to wait for a reply (or to send)
    while (true) {
        message reply = t.receive(master, any_tag);
        double const received = t.now();
        mine.wait_seconds += received - idle_since;

        if (reply.tag == work_tag) {
            chunk const c = decode_work(reply);
            current.resize(bytes(c.size));
            std::span<std::byte> out(current);
            // With request-ahead, the request goes out when the set fraction remains.
            index_t const before = settings.request_ahead > 0.0
                ? c.size - std::min(c.size, static_cast<index_t>(std::ceil(settings.request_ahead * static_cast<double>(c.size))))
                : c.size;
            double computed = 0.0, done = 0.0;
            try {
                run_part(execute, chunk{c.first, before}, out.first(bytes(before)), profile.slowness);
                done = t.now();
                computed = done - received;
                if (before < c.size) {
                    double const resumed = ask(done);
                    run_part(execute, chunk{c.first + before, c.size - before}, out.subspan(bytes(before)), profile.slowness);
                    done = t.now();
                    computed += done - resumed;
                }
            } catch (...) {
                return fail(current_exception_message());
            }
            last = settings.deterministic ? modelled_timing(c.size, profile.power) : chunk_timing{c.size, computed, done - received};
            if (settings.result_bytes > 0) std::ranges::copy(current, pending.add(c).begin());
            // The request first: the bookkeeping below is off the round trip.
            idle_since = before == c.size ? ask(done) : done;
            mine.compute_seconds += computed;
            mine.iterations += c.size;
            ++mine.chunks;
            if (settings.trace) trace.push_back({t.rank(), c.first, c.size, received, done});
        } else if (reply.tag == stop_tag) {
            double const comm = samples ? sampled_comm / static_cast<double>(samples) * static_cast<double>(requests) : 0.0;
            // With request-ahead the requests leave in the middle of chunks.
            double& contains = settings.request_ahead > 0.0 ? mine.compute_seconds : mine.wait_seconds;
            mine.comm_seconds = std::min(comm, contains);
            contains -= mine.comm_seconds;
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
