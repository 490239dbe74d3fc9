// The runtime's message encoding: small messages stay in the writer, larger
// ones spill without losing what was written, and the reader gives back the
// values in order or fails on a truncated message.
#include <loopsched/runtime/core/wire.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using namespace loopsched;
using loopsched::detail::wire_reader;
using loopsched::detail::wire_writer;

TEST_CASE("wire: values written are read back in order, small or spilled") {
    for (std::size_t values : {1u, 16u, 17u, 100u, 5000u}) { // 8 bytes each: inline up to 128 bytes
        CAPTURE(values);
        wire_writer w;
        for (std::size_t i = 0; i < values; ++i) w.put(static_cast<std::uint64_t>(i * 7 + 3));
        w.put(std::string("tail"));
        REQUIRE(w.view().size() == values * 8 + 8 + 4);

        auto check = [&](wire_reader r) {
            for (std::size_t i = 0; i < values; ++i) REQUIRE(r.get<std::uint64_t>() == i * 7 + 3);
            CHECK(r.get_string() == "tail");
            CHECK_THROWS_AS(r.get<char>(), error); // nothing more: truncated
        };
        check(wire_reader(w.view()));
        bytes const taken = std::move(w).take();
        CHECK(taken.size() == values * 8 + 12);
        check(wire_reader(taken));
    }
}

TEST_CASE("wire: raw bytes across the inline boundary") {
    std::vector<std::byte> block(300);
    for (std::size_t i = 0; i < block.size(); ++i) block[i] = static_cast<std::byte>(i % 251);
    wire_writer w;
    w.put(std::int32_t{-5}).put_raw(block).put(2.5);
    wire_reader r(w.view());
    CHECK(r.get<std::int32_t>() == -5);
    auto const raw = r.get_raw(block.size());
    CHECK(std::vector<std::byte>(raw.begin(), raw.end()) == block);
    CHECK(r.get<double>() == 2.5);
}
