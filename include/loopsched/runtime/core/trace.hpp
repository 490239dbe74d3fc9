// A loop's chunk trace written for people: Chrome trace-event JSON (opens in
// Perfetto or chrome://tracing) and an SVG Gantt chart, one lane per rank.
#pragma once

#include <loopsched/statistics.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace loopsched {

namespace detail {

/// `text` as a JSON string, quotes included (RFC 8259: quote, backslash and
/// control characters escaped; other bytes, UTF-8 included, as they are).
inline void write_json_string(std::ostream& out, std::string_view text) {
    out << '"';
    for (char const c : text) {
        auto const u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\')
            out << '\\' << c;
        else if (u < 0x20) {
            static constexpr char hex[] = "0123456789abcdef";
            out << "\\u00" << hex[u >> 4] << hex[u & 15];
        } else
            out << c;
    }
    out << '"';
}

/// The shortest text that reads back as the same double (a trace's
/// microseconds need more than the stream's default 6 digits).
inline void write_json_number(std::ostream& out, double v) {
    if (!std::isfinite(v)) v = 0.0; // JSON has no infinity or NaN
    std::array<char, 32> text{};
    auto const end = std::to_chars(text.data(), text.data() + text.size(), v).ptr;
    out.write(text.data(), end - text.data());
}

/// `text` with XML's five special characters escaped.
inline std::string xml_escaped(std::string_view text) {
    std::string out;
    for (char const c : text) {
        switch (c) {
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '&': out += "&amp;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default: out += c;
        }
    }
    return out;
}

} // namespace detail

/// Writes `s.trace` as Chrome trace events: one complete event ("ph":"X") per
/// chunk, in microseconds, one thread lane per rank; a hierarchical loop's
/// group chunks (level 1) form a second process, one lane per sub-master.
inline void write_chrome_trace(std::ostream& out, loop_statistics const& s, std::string const& name = "loop") {
    out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
    bool first = true;
    for (auto const& e : s.trace) {
        out << (first ? "" : ",\n") << "{\"name\":\"[" << e.first << "," << e.first + e.size << ")\",\"cat\":";
        detail::write_json_string(out, name);
        out << ",\"ph\":\"X\",\"pid\":" << e.level << ",\"tid\":" << e.rank << ",\"ts\":";
        detail::write_json_number(out, e.start * 1e6);
        out << ",\"dur\":";
        detail::write_json_number(out, (e.end - e.start) * 1e6);
        out << ",\"args\":{\"first\":" << e.first << ",\"size\":" << e.size << "}}";
        first = false;
    }
    out << "\n]}\n";
}

/// Writes `s.trace` as an SVG Gantt chart: time across, one lane per rank, a box
/// per chunk (hover for its range), idle gaps left blank. A hierarchical loop's
/// group chunks get a lane of their own per sub-master ("group r"), above the workers'.
inline void write_svg_gantt(std::ostream& out, loop_statistics const& s, std::string const& title = "loop") {
    auto key = [](chunk_event const& e) { return std::pair{-e.level, e.rank}; };
    std::map<std::pair<int, int>, int> lane; // (-level, rank) -> lane: groups first, then ranks in order
    for (auto const& w : s.workers) lane.emplace(std::pair{0, w.rank}, 0);
    for (auto const& e : s.trace) lane.emplace(key(e), 0);
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
        << "<text x=\"" << left << "\" y=\"18\">" << detail::xml_escaped(title) << ": T_p = " << s.parallel_seconds
        << " s, ";
    // One colour per chunk: a DOACROSS trace has one bar per subchunk, and the
    // bars of one chunk should read as one.
    std::map<index_t, std::size_t> colour_of;
    for (auto const& e : s.trace)
        if (e.level == 0) colour_of.emplace(e.first, colour_of.size());
    out << colour_of.size() << " chunks";
    auto const bars = static_cast<std::size_t>(std::ranges::count(s.trace, 0, &chunk_event::level));
    if (colour_of.size() != bars) out << " in " << bars << " bars";
    out << "</text>\n";
    for (auto const& [at, l] : lane)
        out << "<text x=\"4\" y=\"" << top + l * lane_height + 18 << "\">" << (at.first < 0 ? "group " : "rank ")
            << at.second << "</text>\n";
    static constexpr char const* colours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948"};
    for (auto const& e : s.trace) {
        int const l = lane[key(e)];
        out << "<rect x=\"" << x(e.start) << "\" y=\"" << top + l * lane_height + 3 << "\" width=\""
            << std::max(0.5, x(e.end) - x(e.start)) << "\" height=\"" << lane_height - 6 << "\" fill=\""
            << (e.level > 0 ? "#bab0ac" : colours[colour_of[e.first] % 6]) << "\"><title>"
            << (e.level > 0 ? "group " : "rank ") << e.rank << ": [" << e.first << ", "
            << e.first + e.size << "), " << (e.end - e.start) * 1e3 << " ms</title></rect>\n";
    }
    int const axis = top + lane_height * std::max(1, next) + 15;
    out << "<line x1=\"" << left << "\" y1=\"" << axis - 10 << "\" x2=\"" << left + width << "\" y2=\"" << axis - 10
        << "\" stroke=\"black\"/>\n"
        << "<text x=\"" << left << "\" y=\"" << axis + 5 << "\">0 s</text>\n"
        << "<text x=\"" << left + width - 60 << "\" y=\"" << axis + 5 << "\">" << end << " s</text>\n</svg>\n";
}

} // namespace loopsched
