// The per-worker table: its totals, and a stream left as the caller set it.
#include <loopsched/statistics.hpp>

#include <doctest/doctest.h>

#include <sstream>

using namespace loopsched;

TEST_CASE("statistics: printing the table leaves the stream's format as it was") {
    loop_statistics s;
    s.workers = {{0}, {1}};
    s.workers[0].iterations = 70;
    s.workers[0].chunks = 3;
    s.workers[1].iterations = 30;
    s.workers[1].chunks = 1;
    s.parallel_seconds = 0.25;
    std::ostringstream out;
    out << 9.949874371 << ' ' << s << 9.949874371;
    CHECK(out.str().starts_with("9.94987 "));
    CHECK(out.str().ends_with("\n9.94987"));
    CHECK(out.str().find("T_p = 0.2500 s, 100 iterations in 4 chunks") != std::string::npos);
}
