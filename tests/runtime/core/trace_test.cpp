// The trace writers: a Chrome trace that a JSON parser reads back exactly, and
// an SVG whose title cannot break the markup.
#include <loopsched/runtime/core/trace.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sstream>

using namespace loopsched;

namespace {

loop_statistics three_chunks() {
    loop_statistics s;
    s.parallel_seconds = 1234.5;
    // Times past 1000 s: six significant digits would round their microseconds.
    s.trace = {{0, 0, 10, 0.0, 0.25}, {1, 10, 5, 1000.123456789, 1000.5}, {2, 15, 1, 1234.000001, 1234.4}};
    return s;
}

} // namespace

TEST_CASE("trace: the Chrome trace parses back with every event's time exact") {
    auto const s = three_chunks();
    std::ostringstream out;
    write_chrome_trace(out, s, "quote \" backslash \\ tab \t newline \n bell \x07 ünï");
    auto const json = nlohmann::json::parse(out.str());
    auto const& events = json.at("traceEvents");
    REQUIRE(events.size() == s.trace.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        auto const& e = events[i];
        auto const& c = s.trace[i];
        CHECK(e.at("ph") == "X");
        CHECK(e.at("tid") == c.rank);
        CHECK(e.at("cat") == "quote \" backslash \\ tab \t newline \n bell \x07 ünï");
        CHECK(e.at("ts").get<double>() == c.start * 1e6);
        CHECK(e.at("dur").get<double>() == (c.end - c.start) * 1e6);
        CHECK(e.at("args").at("first") == c.first);
        CHECK(e.at("args").at("size") == c.size);
    }
}

TEST_CASE("trace: an empty trace is still a valid document") {
    std::ostringstream out;
    write_chrome_trace(out, loop_statistics{});
    CHECK(nlohmann::json::parse(out.str()).at("traceEvents").empty());
}

TEST_CASE("trace: the Gantt chart's title is escaped") {
    std::ostringstream out;
    write_svg_gantt(out, three_chunks(), "a <b> & \"c\"");
    CHECK(out.str().find("a &lt;b&gt; &amp; &quot;c&quot;") != std::string::npos);
    CHECK(out.str().find("<b>") == std::string::npos);
    CHECK(out.str().find("</svg>") != std::string::npos);
}
