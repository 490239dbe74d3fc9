// Two levels' parts on their own: how ranks are cut into groups, how large a
// group is made, what a group weighs for the root's policy, and the group
// message a sub-master learns its workers from.
#include <loopsched/policy/fss.hpp>
#include <loopsched/runtime/core/groups.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <set>
#include <vector>

using namespace loopsched;
namespace d = loopsched::detail;

TEST_CASE("groups: every rank but the root in exactly one group, sizes within one of each other") {
    for (int ranks : {1, 2, 3, 5, 8, 17, 64})
        for (int root : {0, ranks / 2, ranks - 1})
            for (std::size_t size : {1u, 2u, 3u, 7u, 100u})
                for (std::size_t least : {1u, 2u}) {
                    CAPTURE(ranks);
                    CAPTURE(root);
                    CAPTURE(size);
                    CAPTURE(least);
                    auto const layout = d::make_groups(ranks, root, size, least);
                    std::multiset<int> seen;
                    std::size_t smallest = static_cast<std::size_t>(ranks), largest = 0;
                    for (auto const& g : layout.members) {
                        CHECK(!g.empty());
                        seen.insert(g.begin(), g.end());
                        smallest = std::min(smallest, g.size());
                        largest = std::max(largest, g.size());
                        CHECK(std::ranges::is_sorted(g)); // consecutive ranks: neighbours share a node
                    }
                    std::multiset<int> expected;
                    for (int r = 0; r < ranks; ++r)
                        if (r != root) expected.insert(r);
                    CHECK(seen == expected);
                    if (layout.members.empty()) continue;
                    CHECK(largest - smallest <= 1);
                    // As many groups as `size` asks, fewer only so that each has `least` ranks.
                    auto const others = static_cast<std::size_t>(ranks - 1);
                    if (others >= least) CHECK(smallest >= least);
                    CHECK(layout.members.size() <= (others + size - 1) / size);
                }
    CHECK(d::make_groups(1, 0, 4).members.empty()); // a lone root has no groups
    auto const four = d::make_groups(9, 0, 4);      // 8 others in groups of 4: {1..4}, {5..8}
    REQUIRE(four.members.size() == 2);
    CHECK(four.members[0] == std::vector<int>{1, 2, 3, 4});
    CHECK(four.members[1] == std::vector<int>{5, 6, 7, 8});
}

TEST_CASE("groups: the automatic size loads a sub-master to a tenth, else about sqrt(workers)") {
    CHECK(d::automatic_group_size(1, 1e-6, 1e-3) == 1);
    // 1 ms chunks, 1 us per request: a sub-master keeps up with 1000 workers; a tenth of that.
    CHECK(d::automatic_group_size(10000, 1e-6, 1e-3) == 100);
    CHECK(d::automatic_group_size(50, 1e-6, 1e-3) == 50); // never more than the workers
    CHECK(d::automatic_group_size(50, 1e-3, 1e-3) == 2);  // never fewer than two
    CHECK(d::automatic_group_size(100, 1e-6, 0.0) == 10); // unknown chunk time: sqrt(100)
    CHECK(d::automatic_group_size(101, 0.0, 0.0) == 11);
    // A given size wins; else the measured cost of a request decides, within [2, workers].
    CHECK(d::group_size_for(7, 100, fss{}, 1e-6, 1e-3) == 7);
    std::size_t const automatic = d::group_size_for(0, 100, fss{}, 1e-6, 1e-3);
    CHECK(automatic >= 2);
    CHECK(automatic <= 100);
    CHECK(d::measure_request_seconds(fss{}, 16) > 0.0);
}

TEST_CASE("groups: a group weighs the sum of its workers' V/Q; the group message round-trips") {
    std::vector<worker_status> const statuses{{2.0, 1.0}, {3.0, 3.0}, {1.0, 2.0}};
    CHECK(d::group_status(statuses).power == doctest::Approx(3.5));
    CHECK(d::group_status(statuses).run_queue == 1.0);
    CHECK(d::group_status({}).power > 0.0); // an empty group still has a power a policy accepts

    std::vector<int> const workers{4, 5, 6};
    d::wire_writer w;
    std::vector<int> const sub_masters{1, 2, 4};
    d::write_group(w, workers, statuses, {2, 3, 0.5, 1.0}, sub_masters); // the third of three groups, half the power
    d::runtime_settings base;
    base.root = 0;
    auto const bytes = w.view();
    // Rank 4 leads ranks 4, 5 and 6 (it computes) out of 8 ranks; its master is the hierarchy's root.
    auto const joined = d::join_group(4, 8, base, message_view(0, 0, bytes));
    CHECK(joined.root == 0);
    CHECK(joined.settings.root == 4);
    CHECK(std::vector<int>(joined.settings.worker_ranks.begin(), joined.settings.worker_ranks.end()) == workers);
    CHECK(joined.settings.own_index == 0);
    CHECK(joined.settings.index_of(5) == 1);
    CHECK(joined.settings.index_of(0) == -1);
    CHECK(joined.statuses == statuses);
    CHECK(joined.opening[6] == statuses[2]);
    CHECK(joined.place.group == 2);
    CHECK(joined.place.groups == 3);
    CHECK(joined.place.share_begin == 0.5);
    CHECK(joined.place.share_end == 1.0);
    CHECK(joined.sub_masters == sub_masters);
    // A sub-master that does not compute is not among its workers.
    auto const apart = d::join_group(3, 8, base, message_view(0, 0, bytes));
    CHECK(apart.settings.own_index == -1);
}
