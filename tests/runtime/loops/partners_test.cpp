// TreeS's partner book: who asks whom (the binary tree's levels), splits, dry partners.
#include <loopsched/error.hpp>
#include <loopsched/runtime/loops/partners.hpp>

#include <doctest/doctest.h>

#include <optional>

using namespace loopsched;
using loopsched::detail::partner_book;

TEST_CASE("partner book: level 0's partner first, then the largest holder of the next subtree") {
    partner_book b(6);
    for (std::size_t k = 0; k < 6; ++k) b.granted(k, chunk{static_cast<index_t>(100 * k), 100});
    b.finished(4);
    CHECK(b.partner_for(4) == std::optional<std::size_t>(5)); // level 0: 4 xor 1
    CHECK(b.partner_for(4) == std::nullopt);                  // it waits already
    CHECK(b.answered(5, chunk{560, 40}) == 4);
    CHECK(b.holds(4));
    CHECK(b.splits() == 1);
    // 1 finishes; 0 (level 0) gives nothing; then level 1 is {2, 3}, and 2 holds the larger chunk once 3 split.
    b.finished(1);
    CHECK(b.partner_for(1) == std::optional<std::size_t>(0));
    CHECK(b.answered(0, chunk{0, 0}) == 1);
    CHECK(!b.holds(1));
    b.finished(3);
    b.granted(3, chunk{300, 10});
    CHECK(b.partner_for(1) == std::optional<std::size_t>(2)); // 0 is dry now; 2 holds 100 against 3's 10
    // 5 (6 workers: level 2's subtree of 4 is {0..3}) asks there once its sibling 4 has nothing worth splitting.
    b.finished(5);
    b.finished(4);
    b.granted(4, chunk{560, 1});
    CHECK(b.partner_for(5) == std::optional<std::size_t>(3)); // 2 is being split already, 0 is dry
    CHECK(!b.quiet());
}

TEST_CASE("partner book: quiet only when nothing runs and no split is on its way; bad answers named") {
    partner_book b(2);
    b.granted(0, chunk{0, 10});
    b.granted(1, chunk{10, 10});
    b.finished(1);
    CHECK(b.partner_for(1) == std::optional<std::size_t>(0));
    b.finished(0); // its split request crossed its last request
    CHECK(!b.quiet());
    CHECK_THROWS_AS(b.answered(1, chunk{0, 0}), error); // nobody asked 1
    CHECK_THROWS_WITH(b.answered(0, chunk{5, 5}), doctest::Contains("not the tail of its chunk"));
    partner_book c(2);
    c.granted(0, chunk{0, 10});
    c.finished(1);
    CHECK(c.partner_for(1) == std::optional<std::size_t>(0));
    CHECK(c.answered(0, chunk{0, 0}) == 1);
    c.finished(0);
    CHECK(c.quiet());
    partner_book lone(1);
    lone.granted(0, chunk{0, 5});
    CHECK(lone.partner_for(0) == std::nullopt);
}
