// The farm master's parts on their own: the task book's queue order (seed
// 000's: priority, then creation order, then the model's estimate) and its
// accounting and measure, the master's view of its workers, and the
// estimates scheme's lists at the master (Karamcheti and Wah).
#include <loopsched/detail/index_set.hpp>
#include <loopsched/mapping/any_placement.hpp>
#include <loopsched/runtime/tasks/farm_book.hpp>
#include <loopsched/runtime/tasks/farm_estimates.hpp>
#include <loopsched/runtime/tasks/farm_workers.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

using namespace loopsched;
using loopsched::detail::farm_book;
using loopsched::detail::farm_estimates;
using loopsched::detail::farm_workers;

namespace {

farm_book book_of(std::vector<double> heurs, std::vector<double> priorities = {}) {
    farm_book book;
    for (std::size_t i = 0; i < heurs.size(); ++i) {
        double const priority = i < priorities.size() ? priorities[i] : 0.0;
        auto const id =
                book.add(farm_book::task{std::vector<std::byte>(4), heurs[i], priority, -1, farm_book::state::queued});
        book.enqueue(id);
    }
    return book;
}

std::vector<std::uint64_t> drain(farm_book& book, bool lowest_heur) {
    std::vector<std::uint64_t> order;
    while (!book.queue_empty()) order.push_back(book.take_best(lowest_heur));
    return order;
}

} // namespace

TEST_CASE("farm book: the queue gives the oldest first, priorities before it, until ordered by heur") {
    auto book = book_of({5, 1, 9, 3});
    CHECK(book.queued_heur() == 18.0);
    CHECK(drain(book, false) == std::vector<std::uint64_t>{0, 1, 2, 3});
    CHECK(book.queued_heur() == 0.0);

    auto urgent = book_of({5, 1, 9, 3}, {0, 0, 0, 1}); // task 3 has the higher priority
    CHECK(drain(urgent, true) == std::vector<std::uint64_t>{3, 0, 1, 2});
}

TEST_CASE("farm book: ordered by heur, the largest estimate first whichever end lambda's sign puts it at") {
    auto up = book_of({5, 1, 9, 3});
    up.order_by_heur();
    CHECK(drain(up, false) == std::vector<std::uint64_t>{2, 0, 3, 1}); // lambda >= 0: the largest heur
    auto down = book_of({5, 1, 9, 3});
    down.order_by_heur();
    CHECK(drain(down, true) == std::vector<std::uint64_t>{1, 3, 0, 2}); // lambda < 0: the smallest heur
    auto equal = book_of({2, 2, 2});                                    // ties: the oldest first
    equal.order_by_heur();
    CHECK(drain(equal, false) == std::vector<std::uint64_t>{0, 1, 2});
    auto urgent = book_of({5, 1, 9, 3}, {1, 1, 0, 0});
    urgent.order_by_heur();
    CHECK(drain(urgent, false) == std::vector<std::uint64_t>{0, 1, 2, 3}); // priority first, then heur
}

TEST_CASE("farm book: the queue's order is a sorted set's, whether tasks come at its ends or between") {
    // The queue keeps keys in a deque while they come at its ends and in a
    // tree once one falls between: both must give what one ordered set gives.
    using key = std::tuple<double, double, std::uint64_t>;
    std::uint64_t state = 12345;
    auto next = [&](std::uint64_t n) { // a fixed linear congruential sequence: the same run every time
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (state >> 33) % n;
    };
    for (int round = 0; round < 40; ++round) {
        farm_book book;
        std::set<key> model;
        bool const priorities = round % 2 == 1, by_heur = round % 4 >= 2;
        if (by_heur) book.order_by_heur();
        auto key_of = [&](std::uint64_t id) {
            double const second = by_heur ? book[id].heur : -static_cast<double>(id);
            return key{book[id].priority, second, ~id};
        };
        std::vector<std::uint64_t> taken;
        for (int step = 0; step < 400; ++step) {
            auto const what = next(10);
            if (what < 5 || model.empty()) { // a new task
                double const heur = round % 8 < 4 ? static_cast<double>(step) : static_cast<double>(next(50));
                double const priority = priorities ? static_cast<double>(next(3)) : 0.0;
                auto const id = book.add(
                        farm_book::task{std::vector<std::byte>(4), heur, priority, -1, farm_book::state::queued});
                book.enqueue(id);
                model.insert(key_of(id));
            } else if (what < 6 && !taken.empty()) { // a task taken earlier comes back (a worker left)
                auto const id = taken[next(taken.size())];
                if (model.contains(key_of(id))) continue;
                book.enqueue(id);
                model.insert(key_of(id));
            } else { // the best, at either end of the top priority
                bool const lowest = by_heur && next(2) == 1;
                auto best = std::prev(model.end());
                if (lowest) best = model.lower_bound(key{std::get<0>(*best), -INFINITY, 0});
                auto const expected = ~std::get<2>(*best);
                model.erase(best);
                REQUIRE(book.take_best(lowest) == expected);
                taken.push_back(expected);
            }
            REQUIRE(book.queued() == model.size());
        }
        while (!model.empty()) {
            auto const expected = ~std::get<2>(*std::prev(model.end()));
            model.erase(std::prev(model.end()));
            REQUIRE(book.take_best(false) == expected);
        }
        CHECK(book.queue_empty());
    }
}

TEST_CASE("index set: the members in increasing order as a std::set lists them, across words and summary words") {
    // The farm's idle workers, walked fastest first: 10,000 places span three summary words.
    std::uint64_t state = 99;
    auto next = [&](std::uint64_t n) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<std::size_t>((state >> 33) % n);
    };
    for (std::size_t const n : {1u, 63u, 64u, 65u, 4096u, 4097u, 10000u}) {
        loopsched::detail::index_set set;
        set.reset(n);
        std::set<std::size_t> model;
        for (int step = 0; step < 3000; ++step) {
            auto const i = next(n);
            if (next(3) == 0) {
                set.erase(i);
                model.erase(i);
            } else {
                set.insert(i);
                model.insert(i);
            }
            auto const from = next(n + 1);
            auto const expected = model.lower_bound(from);
            REQUIRE(set.next(from) == (expected == model.end() ? set.npos : *expected));
        }
        std::vector<std::size_t> walked, listed(model.begin(), model.end());
        for (auto at = set.next(0); at != set.npos; at = set.next(at + 1)) walked.push_back(at);
        CHECK(walked == listed);
        set.clear();
        CHECK(set.next(0) == set.npos);
    }
}

TEST_CASE("farm book: every task ends once, done or cancelled, and cancelling frees its payload") {
    auto book = book_of({1, 2, 3, 4});
    auto const sent = book.take_best(false);
    book[sent].where = farm_book::state::sent;
    CHECK_FALSE(book.all_resolved());
    book.finish(sent);
    CHECK(book[sent].where == farm_book::state::done);
    book.cancel_queue();
    CHECK(book.queue_empty());
    CHECK(book.queued_heur() == 0.0);
    CHECK(book.all_resolved());
    auto cancelled = book.cancelled();
    std::ranges::sort(cancelled);
    CHECK(cancelled == std::vector<std::uint64_t>{1, 2, 3});
    for (auto const id : cancelled) {
        CHECK(book[id].where == farm_book::state::cancelled);
        CHECK(book[id].payload.empty());
    }
}

TEST_CASE("farm estimates: D_LPT places each task where it finishes first, hands the largest out first, "
          "and an idle worker pulls a task still at the master") {
    std::vector<double> const rho{4.0, 3.0, 1.0, 2.0};
    auto const estimate = [&](std::uint64_t id) { return rho[id]; };
    farm_estimates e(dlpt_placement{}, {2.0, 1.0}); // worker 0 twice as fast
    // Task 0 (4): 4/2 = 2 on worker 0 against 4 on worker 1. Task 1 (3): (4+3)/2 = 3.5 against 3.
    CHECK(e.place(0, estimate, 0.0) == 0);
    CHECK(e.place(1, estimate, 0.0) == 1);
    std::size_t const third = e.place(2, estimate, 0.0);
    std::size_t const fourth = e.place(3, estimate, 0.0);
    // Every task placed is handed out exactly once, each worker's largest first.
    std::multiset<std::uint64_t> handed;
    for (std::size_t k : {0u, 1u}) {
        std::optional<double> last;
        while (auto const id = e.take_next(k, estimate)) {
            if (last) CHECK(rho[*id] <= *last);
            e.sent(k, *id, !last.has_value(), 0.0);
            last = rho[*id];
            handed.insert(*id);
        }
    }
    CHECK(handed == std::multiset<std::uint64_t>{0, 1, 2, 3});
    CHECK(e.take_placed().empty());
    (void)third;
    (void)fourth;

    // A worker with nothing pulls (rule 4) from the other's list; the move names both.
    farm_estimates pulling(dlpt_placement{}, {1.0, 1.0});
    std::size_t const first = pulling.place(0, estimate, 0.0);
    std::size_t const second = pulling.place(1, estimate, 0.0);
    CHECK(first != second); // equal workers: the second goes where nothing waits
    std::size_t const loaded = pulling.place(2, estimate, 0.0);
    (void)pulling.take_next(1 - loaded, estimate); // the other worker's only task goes out
    pulling.sent(1 - loaded, loaded == first ? 1 : 0, true, 0.0);
    if (auto const m = pulling.pull(1 - loaded, estimate, 0.0)) {
        CHECK(m->from == loaded);
        CHECK(m->to == 1 - loaded);
        CHECK(pulling.take_next(1 - loaded, estimate) == m->id);
    }
    auto const left = pulling.take_placed();
    for (auto const id : left) CHECK(id <= 2);

    // A baseline has no rule 4: nothing is pulled.
    farm_estimates baseline(round_robin_placement{}, {1.0, 1.0});
    (void)baseline.place(0, estimate, 0.0);
    (void)baseline.place(1, estimate, 0.0);
    (void)baseline.place(2, estimate, 0.0);
    CHECK_FALSE(baseline.pull(1, estimate, 0.0).has_value());
    CHECK(baseline.take_placed().size() == 3);
}

TEST_CASE("farm book: tasks are measured by cost, else by size once sizes differ, else by creation order") {
    farm_book by_order;
    CHECK(by_order.add_measured(std::vector<std::byte>(8), std::nullopt, 0.0) == 0.0);
    CHECK(by_order.add_measured(std::vector<std::byte>(8), std::nullopt, 0.0) == 0.0);
    CHECK(by_order[0].heur == 1.0);
    CHECK(by_order[1].heur == 2.0);

    farm_book by_size; // task 1's size differs: both measured by size, task 0's change told
    by_size.add_measured(std::vector<std::byte>(8), std::nullopt, 0.0);
    CHECK(by_size.add_measured(std::vector<std::byte>(20), std::nullopt, 0.0) == 8.0 - 1.0);
    CHECK(by_size[0].heur == 8.0);
    CHECK(by_size[1].heur == 20.0);

    farm_book by_cost;
    by_cost.add_measured({}, 2.5, 0.0);
    CHECK(by_cost.with_cost());
    CHECK(by_cost[0].heur == 2.5);
    CHECK_THROWS_AS(by_cost.add_measured({}, std::nullopt, 0.0), invalid_parameter); // all or none
    CHECK_THROWS_AS(by_cost.add_measured({}, std::nan(""), 0.0), invalid_parameter);
    CHECK_THROWS_AS(by_order.add_measured({}, 1.0, 0.0), invalid_parameter);

    auto const late = by_order.add_cancelled(0.0); // submitted after the farm stopped
    CHECK(by_order[late].where == farm_book::state::cancelled);
    CHECK(by_order.cancelled() == std::vector<std::uint64_t>{late});
}

TEST_CASE("farm workers: speeds relative to the slowest, fastest first, limits and holdings per worker") {
    loopsched::detail::runtime_settings s;
    s.worker_ranks = {1, 2, 3};
    std::vector<worker_status> const by_rank{{1, 1}, {1, 1}, {4, 1}, {2, 2}};
    farm_workers ws(s, by_rank, false); // V alone: speeds 1, 4, 2
    CHECK(ws.speeds() == std::vector<double>{1.0, 4.0, 2.0});
    CHECK(ws[1].share == doctest::Approx(4.0 / 7.0));
    farm_workers aware(s, by_rank, true); // V/Q: speeds 1, 4, 1
    CHECK(aware.speeds() == std::vector<double>{1.0, 4.0, 1.0});
    aware.report(0, worker_status{1.0, 4.0}); // worker 0 loaded: now the slowest, the others relative to it
    CHECK(aware.speeds() == std::vector<double>{1.0, 16.0, 4.0});

    // The start deals round robin from the fastest, skipping workers at their limit.
    CHECK(ws.next_starter(1) == 1u);
    ws.took(1, 1.0);
    CHECK(ws.next_starter(1) == 2u);
    ws.took(2, 1.0);
    CHECK(ws.next_starter(1) == 0u);
    ws.took(0, 1.0);
    CHECK(ws.next_starter(1) == std::nullopt);
    CHECK(ws.holds(0));
    CHECK(!ws.idle(0, 1));
    CHECK(ws.idle(0, 2));
    ws.released(0, 1.0);
    CHECK(!ws.holds(0));
    CHECK(ws[0].heur_sum == 0.0);

    // A group stands for its workers: it holds (per_worker + 1) per worker.
    farm_workers groups(s, by_rank, false, {3, 1, 2});
    CHECK(groups.groups());
    CHECK(groups.limit(0, 2) == 9);
    CHECK(groups.limit(1, 2) == 3);
    CHECK(!ws.groups());
    CHECK(ws.limit(0, 2) == 2);
}

TEST_CASE("farm workers: a cancel's answer cancels the dropped tasks still running there, once") {
    loopsched::detail::runtime_settings s;
    s.worker_ranks = {0, 1};
    std::vector<worker_status> const by_rank{{1, 1}, {1, 1}};
    farm_workers ws(s, by_rank, false);
    auto book = book_of({1, 2, 3});
    for (std::uint64_t id : {0u, 1u, 2u}) {
        (void)book.take_best(false);
        book.sent(id, 1);
        ws.took(1, book[id].heur);
    }
    book.finish(2); // its result crossed the cancel
    ws.released(1, 3.0);
    ws[1].cancelling = true;
    loopsched::detail::wire_writer w;
    w.put(std::uint64_t{0}).put(std::uint64_t{2});
    loopsched::detail::wire_reader r(w.view());
    CHECK(ws.dropped(1, 2, r, book) == 1); // task 2 had finished already
    CHECK(!ws[1].cancelling);
    CHECK(ws[1].count == 1);
    CHECK(ws[1].heur_sum == 2.0);
    CHECK(book[0].where == farm_book::state::cancelled);
    CHECK(book[2].where == farm_book::state::done);
}
