// The encodings the protocol core sends, whatever the algorithm: failures (with
// the kind of error, so every rank throws the same), request headers, blocks of
// results riding on requests, reports and the statistics table.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/request.hpp>
#include <loopsched/runtime/core/result_blocks.hpp>
#include <loopsched/statistics.hpp>
#include <loopsched/runtime/core/wire.hpp>
#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// Why a loop failed, as it travels to every rank. A body's exception becomes
/// remote_error everywhere; a bad argument (or spec) found on one rank becomes
/// invalid_parameter (or spec_error) everywhere, the rank that found it
/// throwing its own and the others naming that rank.
struct failure {
    enum class type : std::uint8_t { body, invalid_parameter, spec, error, lost }; ///< lost: rank `origin` failed
    type what_type = type::body;
    int origin = 0;
    std::string what;                          ///< body, error: the message
    std::string parameter, value, requirement; ///< invalid_parameter

    /// The exception being handled on rank `origin`, as a body failure unless
    /// it is loopsched's own invalid_parameter or error (a check that failed).
    static failure current(int origin, bool from_body) {
        try {
            throw;
        } catch (invalid_parameter const& e) {
            if (!from_body)
                return {type::invalid_parameter, origin, e.what(), e.parameter(), e.value(), e.requirement()};
            return {type::body, origin, e.what(), {}, {}, {}};
        } catch (remote_error const& e) {
            return {type::body, e.origin_rank(), e.original_message(), {}, {}, {}};
        } catch (rank_lost const& e) {
            return lost(e.lost_rank());
        } catch (spec_error const& e) {
            return {from_body ? type::body : type::spec, origin, e.what(), {}, {}, {}};
        } catch (error const& e) {
            return {from_body ? type::body : type::error, origin, e.what(), {}, {}, {}};
        } catch (std::exception const& e) {
            return {type::body, origin, e.what(), {}, {}, {}};
        } catch (...) {
            return {type::body, origin, "unknown exception", {}, {}, {}};
        }
    }
    static failure invalid(int origin, std::string parameter, std::string value, std::string requirement) {
        return {type::invalid_parameter, origin, {}, std::move(parameter), std::move(value), std::move(requirement)};
    }

    /// A runtime error found on rank `origin` (a protocol fault, a rank presumed lost): `text` names it.
    static failure fault(int origin, std::string text) { return {type::error, origin, std::move(text), {}, {}, {}}; }

    /// Rank `rank` failed (the transport said so): the same rank_lost on every rank.
    static failure lost(int rank) { return {type::lost, rank, {}, {}, {}, {}}; }

    /// Throws this failure as seen on rank `self`.
    [[noreturn]] void raise(int self) const {
        switch (what_type) {
        case type::invalid_parameter:
            throw invalid_parameter(parameter, value,
                                    self == origin ? requirement
                                                   : requirement + "; found on rank " + std::to_string(origin));
        case type::spec: throw spec_error(self == origin ? what : what + " (on rank " + std::to_string(origin) + ")");
        case type::error: throw error(self == origin ? what : what + " (on rank " + std::to_string(origin) + ")");
        case type::lost: throw rank_lost(origin);
        case type::body: break;
        }
        throw remote_error(origin, what);
    }

    void write(wire_writer& w) const {
        w.put(what_type).put(origin).put(what).put(parameter).put(value).put(requirement);
    }
    static failure read(message_view m) {
        wire_reader r(m.payload);
        failure f;
        f.what_type = r.get<type>();
        f.origin = r.get<int>();
        f.what = r.get_string();
        f.parameter = r.get_string();
        f.value = r.get_string();
        f.requirement = r.get_string();
        return f;
    }
};

/// A request's fixed part, written and read as one value (one bounds check),
/// as a DOALL chunk's work message is; result blocks follow when there are any.
struct request_header {
    worker_status status;
    chunk_timing timing;
    std::uint64_t result_blocks = 0; ///< blocks of results that follow (see result_blocks)
};
static_assert(sizeof(request_header) == sizeof(worker_status) + sizeof(chunk_timing) + sizeof(std::uint64_t),
              "a request header has no padding to send");

/// Reads `blocks` result blocks at the reader's position, handing each to
/// `sink(first, size, bytes)`.
template <class Sink>
void read_result_blocks(wire_reader& r, std::uint64_t blocks, Sink&& sink) {
    for (std::uint64_t b = 0; b < blocks; ++b) {
        auto const h = r.get<result_block_header>();
        if (h.first < 0 || h.size < 0) throw error("loopsched: a result block with a negative range");
        sink(h.first, h.size, r.get_raw(static_cast<std::size_t>(h.bytes)));
    }
}

/// Encodes a request into `w` and returns its bytes (valid as long as `w`).
inline std::span<std::byte const> encode_request(wire_writer& w, worker_status s, chunk_timing t,
                                                 result_blocks const& results) {
    return w.put(request_header{s, t, results.count()}).put_raw(results.blocks()).view();
}

/// A report: the worker's statistics, its clock (to place its trace on the
/// master's), its remaining results, and its trace.
inline std::span<std::byte const> encode_report(wire_writer& out, worker_statistics const& w, double clock,
                                                result_blocks const& results, std::span<chunk_event const> trace) {
    out.put(w).put(clock).put(results.count()).put_raw(results.blocks());
    out.put(trace.size());
    for (auto const& e : trace) out.put(e);
    return out.view();
}

/// Reads a report at the reader's position: hands its result blocks to
/// `sink(first, size, bytes)`, appends its trace to `trace` with the events
/// moved by `received - (the worker's clock) - start` (onto the master's loop
/// time), and returns the worker's statistics.
template <class Sink>
worker_statistics read_report(wire_reader& r, double received, double start, Sink&& sink,
                              std::vector<chunk_event>& trace) {
    auto const w = r.get<worker_statistics>();
    double const offset = received - r.get<double>() - start;
    read_result_blocks(r, r.get<std::uint64_t>(), sink);
    for (auto n = r.get<std::size_t>(); n > 0; --n) {
        auto e = r.get<chunk_event>();
        e.start += offset;
        e.end += offset;
        trace.push_back(e);
    }
    return w;
}

/// Encodes the loop's statistics into `w` (once for all workers) and returns its bytes.
inline std::span<std::byte const> encode_table(wire_writer& w, loop_statistics const& s) {
    w.put(s.parallel_seconds).put(s.workers.size());
    for (auto const& x : s.workers) w.put(x);
    w.put(s.groups.size());
    for (auto const& x : s.groups) w.put(x);
    // Reissue's and departures' counts only when there are any: one byte more per
    // table, so that a 2-worker table still fits the writer's inline buffer.
    bool const eventful =
            s.reissued > 0 || s.dropped > 0 || s.partner_splits > 0 || !s.departed.empty() || !s.lost.empty();
    w.put(static_cast<std::uint8_t>(eventful));
    if (eventful) {
        w.put(s.reissued).put(s.dropped).put(s.partner_splits).put(s.departed.size());
        for (int r : s.departed) w.put(r);
        w.put(s.lost.size());
        for (int r : s.lost) w.put(r);
    }
    return w.view();
}
/// Decodes the loop's statistics into `s`, whose `workers` may already have
/// room for them (a worker makes it while it waits for the table).
inline void decode_table(message_view m, loop_statistics& s) {
    wire_reader r(m.payload);
    s.parallel_seconds = r.get<double>();
    auto const n = r.get<std::size_t>();
    s.workers.clear();
    s.workers.reserve(std::min<std::size_t>(n, r.remaining() / sizeof(worker_statistics)));
    for (std::size_t k = 0; k < n; ++k) s.workers.push_back(r.get<worker_statistics>());
    auto const groups = r.get<std::size_t>();
    s.groups.clear();
    for (std::size_t g = 0; g < groups; ++g) s.groups.push_back(r.get<worker_statistics>());
    s.reissued = s.dropped = s.partner_splits = 0;
    s.departed.clear();
    s.lost.clear();
    if (r.get<std::uint8_t>() == 0) return;
    s.reissued = r.get<std::uint64_t>();
    s.dropped = r.get<std::uint64_t>();
    s.partner_splits = r.get<std::uint64_t>();
    for (auto left = r.get<std::size_t>(); left > 0; --left) s.departed.push_back(r.get<int>());
    for (auto left = r.get<std::size_t>(); left > 0; --left) s.lost.push_back(r.get<int>());
}

} // namespace loopsched::detail
