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

    // A clock read costs 20-40 ns here, a few percent of a round trip, so a
    // chunk costs two: when it arrived, and when its request has left. The
    // request goes before the second read, so that read is off the round trip;
    // it therefore carries the timing of the chunk before (as with
    // request-ahead), while its results go at once. Sending is timed on the
    // last request of every comm_sampling (not the first, which may set up
    // MPI's connection; a loop of a few chunks times none), and its mean is
    // moved from computing to communicating. The status a request carries was
    // read while waiting for the previous reply: reading /proc/stat takes
    // microseconds.
    std::uint64_t requests = 0;
    double sampled_comm = 0.0;
    std::uint64_t samples = 0;
    constexpr std::uint64_t comm_sampling = 16;
    double idle_since = t.now(); // when this rank last began to wait for a reply
    worker_status status = profile.status(idle_since);
    auto mean_send = [&] { return samples ? sampled_comm / static_cast<double>(samples) : 0.0; };
    auto ask = [&] {
        wire_writer w;
        auto const request = encode_request(w, status, last, pending);
        bool const sampled = requests++ % comm_sampling == comm_sampling - 1;
        double const before = sampled ? t.now() : 0.0;
        send_view(t, master, request_tag, request);
        if (sampled) {
            sampled_comm += t.now() - before;
            ++samples;
        }
        pending.clear();
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

    ask(); // its sending counts as waiting
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
                if (before < c.size) {
                    double const asked = t.now();
                    computed = asked - received;
                    ask();
                    double const resumed = t.now();
                    run_part(execute, chunk{c.first + before, c.size - before}, out.subspan(bytes(before)), profile.slowness);
                    done = t.now();
                    computed += done - resumed;
                }
            } catch (...) {
                return fail(current_exception_message());
            }
            if (settings.result_bytes > 0) std::ranges::copy(current, pending.add(c).begin());
            if (settings.deterministic) last = modelled_timing(c.size, profile.power); // known now: no lag
            if (before == c.size) {
                ask();
                done = t.now();
                computed = std::max(0.0, done - received - mean_send());
            }
            status = profile.status(done);
            idle_since = done;
            if (!settings.deterministic) last = chunk_timing{c.size, computed, done - received};
            mine.compute_seconds += computed;
            mine.iterations += c.size;
            ++mine.chunks;
            if (settings.trace) trace.push_back({t.rank(), c.first, c.size, received, done});
        } else if (reply.tag == stop_tag) {
            // Sending was taken out of computing, or (the first request's) out of waiting.
            mine.comm_seconds = mean_send() * static_cast<double>(requests);
            mine.wait_seconds = std::max(0.0, mine.wait_seconds - mean_send());
            // The clock goes along only to place the trace's events on the master's clock.
            t.send(master, report_tag, encode_report(mine, settings.trace ? t.now() : 0.0, pending, trace));
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
