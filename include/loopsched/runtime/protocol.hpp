// The master-worker protocol: message tags and the encoding of each message.
//   worker -> master: request {status, timing of the last chunk}
//                     failed  {what}          (its body threw)
//                     report  {times}         (after stop: its statistics)
//   master -> worker: work    {first, size}
//                     stop    {}              (no more work)
//                     abort   {origin, what}  (some rank failed)
//                     table   {statistics}    (the loop's statistics, to every rank)
#pragma once

#include <loopsched/policy/request.hpp>
#include <loopsched/runtime/statistics.hpp>
#include <loopsched/runtime/wire.hpp>
#include <loopsched/transport/transport.hpp>
#include <loopsched/schedule.hpp>

#include <string>
#include <vector>

namespace loopsched::detail {

// Tags well above 0 so that user messages on the same communicator are unlikely to collide.
enum tag : int { request_tag = 7701, failed_tag, report_tag, work_tag, stop_tag, abort_tag, table_tag };

inline std::vector<std::byte> encode_request(worker_status s, chunk_timing t) {
    return std::move(wire_writer{}.put(s).put(t)).take();
}
inline std::pair<worker_status, chunk_timing> decode_request(message const& m) {
    wire_reader r(m.payload);
    auto s = r.get<worker_status>();
    return {s, r.get<chunk_timing>()};
}

inline std::vector<std::byte> encode_work(chunk c) { return std::move(wire_writer{}.put(c)).take(); }
inline chunk decode_work(message const& m) { return wire_reader(m.payload).get<chunk>(); }

inline std::vector<std::byte> encode_failure(int origin, std::string const& what) {
    return std::move(wire_writer{}.put(origin).put(what)).take();
}
inline std::pair<int, std::string> decode_failure(message const& m) {
    wire_reader r(m.payload);
    int origin = r.get<int>();
    return {origin, r.get_string()};
}

inline std::vector<std::byte> encode_report(worker_statistics const& w) { return std::move(wire_writer{}.put(w)).take(); }
inline worker_statistics decode_report(message const& m) { return wire_reader(m.payload).get<worker_statistics>(); }

inline std::vector<std::byte> encode_table(loop_statistics const& s) {
    wire_writer w;
    w.put(s.parallel_seconds).put(s.workers.size());
    for (auto const& x : s.workers) w.put(x);
    return std::move(w).take();
}
inline loop_statistics decode_table(message const& m) {
    wire_reader r(m.payload);
    loop_statistics s;
    s.parallel_seconds = r.get<double>();
    s.workers.resize(r.get<std::size_t>());
    for (auto& x : s.workers) x = r.get<worker_statistics>();
    return s;
}

} // namespace loopsched::detail
