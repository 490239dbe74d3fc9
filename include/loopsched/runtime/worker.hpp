// The worker engine: asks the master for chunks, runs them, reports.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/protocol.hpp>
#include <loopsched/transport/transport.hpp>

#include <exception>
#include <string>

namespace loopsched::detail {

/// Runs chunks from `master` until told to stop; returns the loop's statistics
/// (sent by the master to every rank). Throws remote_error if any rank failed.
template <Transport T, class Execute>
loop_statistics run_worker(T& t, int master, worker_status status, Execute&& execute) {
    worker_statistics mine{t.rank()};
    chunk_timing last{};
    while (true) {
        double const sent = t.now();
        t.send(master, request_tag, encode_request(status, last));
        double const asked = t.now();
        mine.comm_seconds += asked - sent;
        message reply = t.receive(master, any_tag);
        double const received = t.now();
        mine.wait_seconds += received - asked;

        if (reply.tag == work_tag) {
            chunk const c = decode_work(reply);
            try {
                execute(c);
            } catch (...) {
                t.send(master, failed_tag, encode_failure(t.rank(), current_exception_message()));
                auto [origin, what] = decode_failure(t.receive(master, abort_tag));
                throw remote_error(origin, what);
            }
            double const done = t.now();
            mine.compute_seconds += done - received;
            mine.iterations += c.size;
            ++mine.chunks;
            last = chunk_timing{c.size, done - received, done - received};
        } else if (reply.tag == stop_tag) {
            t.send(master, report_tag, encode_report(mine));
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
