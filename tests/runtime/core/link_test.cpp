// loop_link: each loop takes only its own messages; an earlier loop's are
// dropped and a later loop's kept for it, also when loop numbers wrap around
// the bits a transport's tags leave them; a channel's erased view (the compiled
// engines' transport) shares its loops.
#include <loopsched/runtime/core/link.hpp>
#include <loopsched/transport/erased.hpp>
#include <loopsched/transport/in_process.hpp>

#include <doctest/doctest.h>

#include <optional>

using namespace loopsched;
using detail::kind;

namespace {

/// An in-process endpoint whose tags stop at 2^8 - 1, as a small MPI_TAG_UB would.
class narrow_endpoint {
public:
    explicit narrow_endpoint(in_process::endpoint e) : e_(e) {}
    [[nodiscard]] int rank() const { return e_.rank(); }
    [[nodiscard]] int size() const { return e_.size(); }
    void send(int dest, int tag, bytes data) { e_.send(dest, tag, std::move(data)); }
    message receive(int source, int tag) { return e_.receive(source, tag); }
    std::optional<message> try_receive(int source, int tag) { return e_.try_receive(source, tag); }
    [[nodiscard]] double now() const { return e_.now(); }
    [[nodiscard]] int tag_bound() const { return 255; }

private:
    in_process::endpoint e_;
};

int tag_of(unsigned loop, unsigned mask, kind k) {
    return static_cast<int>(((loop & mask) << detail::kind_bits) | static_cast<unsigned>(k));
}

} // namespace

TEST_CASE("link: a loop takes its own messages, drops an earlier loop's and keeps a later loop's") {
    in_process::network net(1);
    channel<in_process::endpoint> ch(in_process::endpoint(net, 0, 1));
    unsigned const mask = (1u << 26) - 1;
    { detail::loop_link<in_process::endpoint> first(ch); } // loop 1 ran
    // In flight when loop 2 starts: loop 1's last word, loop 3's first, and loop 2's own.
    auto& t = ch.transport();
    t.send(0, tag_of(1, mask, kind::data), bytes(1, std::byte{1}));
    t.send(0, tag_of(3, mask, kind::hello), bytes(1, std::byte{3}));
    t.send(0, tag_of(2, mask, kind::request), bytes(1, std::byte{2}));
    {
        detail::loop_link<in_process::endpoint> second(ch);
        message_view const m = second.receive();
        CHECK(detail::kind_of(m.tag) == kind::request);
        CHECK(m.payload[0] == std::byte{2});
        CHECK_FALSE(second.try_receive().has_value());
        CHECK(ch.later().size() == 1);
    }
    detail::loop_link<in_process::endpoint> third(ch);
    auto const m = third.try_receive();
    REQUIRE(m.has_value());
    CHECK(detail::kind_of(m->tag) == kind::hello);
    CHECK(m->payload[0] == std::byte{3});
    CHECK(ch.later().empty());
}

TEST_CASE("link: loop numbers wrap within a small tag bound, and stay told apart") {
    in_process::network net(1);
    channel<narrow_endpoint> ch(narrow_endpoint(in_process::endpoint(net, 0, 1)));
    unsigned const mask = 7; // 8 tag bits less 5 for the kind: loops travel modulo 8
    for (int i = 0; i < 10; ++i) detail::loop_link<narrow_endpoint> past(ch);
    unsigned const next = static_cast<unsigned>(ch.loops()) + 1; // 11: 3 modulo 8
    auto& t = ch.transport();
    t.send(0, tag_of(next - 2, mask, kind::work), bytes(1, std::byte{1})); // two loops ago: dropped
    t.send(0, tag_of(next + 1, mask, kind::work), bytes(1, std::byte{2})); // the next loop's: kept
    t.send(0, tag_of(next, mask, kind::work), bytes(1, std::byte{3}));     // this loop's
    detail::loop_link<narrow_endpoint> now(ch);
    CHECK(now.tag(kind::work) == tag_of(next, mask, kind::work));
    CHECK(now.receive().payload[0] == std::byte{3});
    CHECK_FALSE(now.try_receive().has_value());
    CHECK(ch.later().size() == 1);
}

TEST_CASE("link: loops over a channel's erased view and over the channel share numbers and early messages") {
    in_process::network net(1);
    channel<narrow_endpoint> ch(narrow_endpoint(in_process::endpoint(net, 0, 1)));
    unsigned const mask = 7;
    { detail::loop_link<narrow_endpoint> first(ch); } // loop 1, on the channel
    auto& t = ch.transport();
    t.send(0, tag_of(3, mask, kind::hello), bytes(1, std::byte{3})); // for loop 3
    t.send(0, tag_of(2, mask, kind::work), bytes(1, std::byte{2}));  // for loop 2
    {
        detail::erased_channel<narrow_endpoint> erased(ch);
        auto& view = erased.get();
        CHECK(view.transport().tag_bound() == 255);
        CHECK(view.transport().actor_stack_bytes() == 0);
        detail::loop_link<detail::erased_transport> second(view); // loop 2, through the view
        CHECK(second.tag(kind::work) == tag_of(2, mask, kind::work));
        CHECK(second.receive().payload[0] == std::byte{2});
        CHECK_FALSE(second.try_receive().has_value());
        CHECK(second.receive_until(second.now()) == std::nullopt); // the bounded wait, through the view
        CHECK(ch.later().size() == 1); // loop 3's message, kept in the channel's own list
        bytes const data(1, std::byte{4});
        second.send(0, kind::data, std::span<std::byte const>(data.data(), data.size()));
    }
    CHECK(ch.loops() == 2);
    detail::loop_link<narrow_endpoint> third(ch); // loop 3, on the channel again
    auto const m = third.try_receive();
    REQUIRE(m.has_value());
    CHECK(m->payload[0] == std::byte{3});
    CHECK(ch.later().empty());
    CHECK_FALSE(third.try_receive().has_value()); // loop 2's data, sent through the view: dropped
}
