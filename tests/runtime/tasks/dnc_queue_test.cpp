// A divide-and-conquer worker's queue and frames on their own: arrival order,
// the summed weight by cost measure, what a report to a manager placing by
// estimates lists, and results that fill a frame once each.
#include <loopsched/runtime/tasks/dnc_queue.hpp>
#include <loopsched/runtime/tasks/dnc_recursion.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace loopsched;
using loopsched::detail::dnc_frames;
using loopsched::detail::dnc_queue;
using loopsched::detail::result_address;
using loopsched::detail::wire_reader;
using loopsched::detail::wire_writer;

TEST_CASE("dnc queue: tasks keep their arrival numbers and the queue its summed weight by measure") {
    dnc_queue q;
    q.set_measure(cost_measure::user);
    for (std::uint32_t i = 0; i < 4; ++i) q.push(10 + i, 1.0 + i, 1, result_address{}, false);
    CHECK(q.size() == 4);
    CHECK(q.load() == 1.0 + 2.0 + 3.0 + 4.0);
    auto const view = q.view();
    REQUIRE(view.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) CHECK(view[i].order == i);
    REQUIRE(q.find(2).has_value());
    auto const e = q.take(*q.find(2));
    CHECK(e.slot == 12);
    CHECK(e.order == 2);
    CHECK_FALSE(q.find(2).has_value());
    CHECK(q.load() == 1.0 + 2.0 + 4.0);
    while (!q.empty()) (void)q.take(0);
    CHECK(q.load() == 0.0);

    dnc_queue by_depth; // depth: a task at depth d weighs 2^-d
    by_depth.set_measure(cost_measure::depth);
    by_depth.push(1, -1.0, 1, result_address{}, false);
    by_depth.push(2, -2.0, 2, result_address{}, false);
    CHECK(by_depth.load() == doctest::Approx(0.5 + 0.25));
}

TEST_CASE("dnc queue: whether a deeper task is queued follows pushes and takes") {
    dnc_queue q;
    CHECK_FALSE(q.has_deeper(0));
    q.push(0, 1.0, 1, result_address{}, false);
    q.push(1, 1.0, 3, result_address{}, false);
    q.push(2, 1.0, 2, result_address{}, false);
    q.push(3, 1.0, 3, result_address{}, false);
    CHECK(q.has_deeper(2));
    CHECK_FALSE(q.has_deeper(3));
    (void)q.take(1); // one of the two at depth 3
    CHECK(q.has_deeper(2));
    (void)q.take(*q.find(3)); // the other
    CHECK_FALSE(q.has_deeper(2));
    CHECK(q.has_deeper(1));
    (void)q.take(*q.find(2));
    CHECK_FALSE(q.has_deeper(1));
    CHECK(q.has_deeper(0));
    (void)q.take(0);
    CHECK_FALSE(q.has_deeper(0));
    q.push(4, 1.0, 5, result_address{}, false); // deeper than any before
    CHECK(q.has_deeper(4));
}

TEST_CASE("dnc queue: the deeper tasks are those a full scan finds, in arrival order, at any depth") {
    // has_deeper and view_deeper count tasks by depth instead of scanning the
    // queue; a plain list of the queued depths is the definition they must meet.
    std::mt19937 random(5);
    for (std::uint32_t max_depth : {3u, 70u, 300'000u}) { // past the counts' first 64 depths, and far past
        CAPTURE(max_depth);
        dnc_queue q;
        std::vector<std::uint32_t> depths; // of the queued tasks, in queue order
        std::vector<std::uint64_t> orders;
        std::uint64_t next = 0;
        for (int step = 0; step < 3000; ++step) {
            if (depths.empty() || random() % 3 != 0) {
                // mostly a little deeper than the newest, as a division's children are
                std::uint32_t const depth =
                        random() % 4 == 0 || depths.empty()
                                ? static_cast<std::uint32_t>(random() % (max_depth + 1))
                                : std::min(max_depth, depths.back() + static_cast<std::uint32_t>(random() % 2));
                q.push(0, 1.0, depth, result_address{}, false);
                depths.push_back(depth);
                orders.push_back(next++);
            } else {
                auto const at = static_cast<std::size_t>(random() % depths.size());
                REQUIRE(q.take(at).order == orders[at]);
                depths.erase(depths.begin() + static_cast<std::ptrdiff_t>(at));
                orders.erase(orders.begin() + static_cast<std::ptrdiff_t>(at));
            }
            std::uint32_t const probe = static_cast<std::uint32_t>(random() % (max_depth + 2));
            std::vector<std::uint64_t> expected;
            for (std::size_t i = 0; i < depths.size(); ++i)
                if (depths[i] > probe) expected.push_back(orders[i]);
            CHECK(q.has_deeper(probe) == !expected.empty());
            auto const& view = q.view_deeper(probe);
            std::vector<std::uint64_t> got;
            bool placed = true; // each viewed task's position is where the queue holds it
            for (std::size_t i = 0; i < view.size(); ++i) {
                got.push_back(view[i].order);
                placed = placed && orders[q.position(i)] == view[i].order;
            }
            REQUIRE(got == expected);
            REQUIRE(placed);
        }
    }
}

TEST_CASE("dnc queue: a report lists the new tasks and the eight cheapest others, and sums the rest") {
    dnc_queue q;
    q.set_measure(cost_measure::user);
    for (std::uint32_t i = 0; i < 12; ++i) q.push(i, 100.0 - i, 1, result_address{}, false); // old: costs 100 .. 89
    for (std::uint32_t i = 0; i < 2; ++i) q.push(i, 5.0, 2, result_address{}, true);          // new
    wire_writer w;
    q.report(detail::dnc_queue_report{}, w, sizeof(int)); // every problem an int
    wire_reader r(w.view());
    CHECK(r.get<std::uint8_t>() == detail::info_queue);
    auto const h = r.get<detail::dnc_queue_report>();
    CHECK(h.tasks == 2 + detail::listed_old_tasks);
    CHECK(h.unlisted_count == 12 - detail::listed_old_tasks);
    CHECK(h.unlisted == 100.0 + 99.0 + 98.0 + 97.0); // the costliest old ones go as a sum
    std::size_t fresh = 0;
    for (std::uint64_t i = 0; i < h.tasks; ++i) {
        auto const t = r.get<detail::dnc_reported_task>();
        fresh += t.fresh;
        if (!t.fresh) CHECK(t.cost <= 96.0);
        CHECK(t.bytes == sizeof(int));
    }
    CHECK(fresh == 2);
    wire_writer again; // reported once, new tasks are new no more
    q.report(detail::dnc_queue_report{}, again, sizeof(int));
    wire_reader r2(again.view());
    (void)r2.get<std::uint8_t>();
    auto const h2 = r2.get<detail::dnc_queue_report>();
    for (std::uint64_t i = 0; i < h2.tasks; ++i) CHECK(r2.get<detail::dnc_reported_task>().fresh == 0);
}

TEST_CASE("dnc frames: each result fills its place once; a stray or doubled one is a protocol error") {
    dnc_frames<double> frames;
    dnc_frames<double>::frame f;
    auto const id = frames.open(f, 3);
    CHECK_FALSE(frames.empty());
    CHECK(f.missing == 3);
    frames.fill(id, 2, 2.5);
    frames.fill(id, 0, 0.5);
    CHECK_THROWS_AS(frames.fill(id, 2, 9.0), error);     // twice
    CHECK_THROWS_AS(frames.fill(id, 3, 9.0), error);     // no such place
    CHECK_THROWS_AS(frames.fill(id + 1, 0, 9.0), error); // no such frame
    frames.fill(id, 1, 1.5);
    CHECK(f.missing == 0);
    CHECK(f.results == std::vector<double>{0.5, 1.5, 2.5});
    frames.close(id);
    CHECK(frames.empty());
}
