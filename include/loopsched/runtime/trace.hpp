// A loop's chunk trace written for people: Chrome trace-event JSON (opens in
// Perfetto or chrome://tracing) and an SVG Gantt chart, one lane per rank.
#pragma once

#include <loopsched/runtime/statistics.hpp>

#include <algorithm>
#include <map>
#include <ostream>
#include <string>

namespace loopsched {

/// Writes `s.trace` as Chrome trace events: one complete event ("ph":"X") per
/// chunk, in microseconds, one thread lane per rank.
inline void write_chrome_trace(std::ostream& out, loop_statistics const& s, std::string const& name = "loop") {
    out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
    bool first = true;
    for (auto const& e : s.trace) {
        out << (first ? "" : ",\n") << "{\"name\":\"[" << e.first << "," << e.first + e.size
            << ")\",\"cat\":\"" << name << "\",\"ph\":\"X\",\"pid\":0,\"tid\":" << e.rank
            << ",\"ts\":" << e.start * 1e6 << ",\"dur\":" << (e.end - e.start) * 1e6
            << ",\"args\":{\"first\":" << e.first << ",\"size\":" << e.size << "}}";
        first = false;
    }
    out << "\n]}\n";
}

/// Writes `s.trace` as an SVG Gantt chart: time across, one lane per rank, a box
/// per chunk (hover for its range), idle gaps left blank.
inline void write_svg_gantt(std::ostream& out, loop_statistics const& s, std::string const& title = "loop") {
    std::map<int, int> lane; // rank -> lane, in rank order
    for (auto const& w : s.workers) lane.emplace(w.rank, 0);
    for (auto const& e : s.trace) lane.emplace(e.rank, 0);
    int next = 0;
    for (auto& [rank, l] : lane) l = next++;
    double end = s.parallel_seconds;
    for (auto const& e : s.trace) end = std::max(end, e.end);
    if (end <= 0.0) end = 1.0;
    int const left = 70, width = 900, lane_height = 28, top = 30;
    int const height = top + lane_height * std::max(1, next) + 30;
    auto x = [&](double t) { return left + t / end * width; };
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + width + 20 << "\" height=\"" << height
        << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
        << "<text x=\"" << left << "\" y=\"18\">" << title << ": T_p = " << s.parallel_seconds << " s, ";
    // One colour per chunk: a DOACROSS trace has one bar per subchunk, and the
    // bars of one chunk should read as one.
    std::map<index_t, std::size_t> colour_of;
    for (auto const& e : s.trace) colour_of.emplace(e.first, colour_of.size());
    out << colour_of.size() << " chunks";
    if (colour_of.size() != s.trace.size()) out << " in " << s.trace.size() << " bars";
    out << "</text>\n";
    for (auto const& [rank, l] : lane)
        out << "<text x=\"4\" y=\"" << top + l * lane_height + 18 << "\">rank " << rank << "</text>\n";
    static constexpr char const* colours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948"};
    for (auto const& e : s.trace) {
        int const l = lane[e.rank];
        out << "<rect x=\"" << x(e.start) << "\" y=\"" << top + l * lane_height + 3 << "\" width=\""
            << std::max(0.5, x(e.end) - x(e.start)) << "\" height=\"" << lane_height - 6 << "\" fill=\""
            << colours[colour_of[e.first] % 6] << "\"><title>rank " << e.rank << ": [" << e.first << ", " << e.first + e.size
            << "), " << (e.end - e.start) * 1e3 << " ms</title></rect>\n";
    }
    int const axis = top + lane_height * std::max(1, next) + 15;
    out << "<line x1=\"" << left << "\" y1=\"" << axis - 10 << "\" x2=\"" << left + width << "\" y2=\"" << axis - 10
        << "\" stroke=\"black\"/>\n"
        << "<text x=\"" << left << "\" y=\"" << axis + 5 << "\">0 s</text>\n"
        << "<text x=\"" << left + width - 60 << "\" y=\"" << axis + 5 << "\">" << end << " s</text>\n</svg>\n";
}

} // namespace loopsched
