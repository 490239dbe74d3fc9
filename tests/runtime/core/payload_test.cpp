// Payloads: trivially copyable values travel as bytes, others through
// Boost.Serialization, and a gathering loop returns either kind whole.
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/payload.hpp>
#include <loopsched/runtime/core/wire.hpp>
#include <loopsched/serialization.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/transport/in_process.hpp>

#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

using namespace loopsched;

namespace {

struct particle { // a user type with its own serialize()
    std::string name;
    std::vector<double> position;
    int charge = 0;
    template <class Archive>
    void serialize(Archive& a, unsigned) {
        a& name& position& charge;
    }
    friend bool operator==(particle const&, particle const&) = default;
};

template <class T>
std::vector<T> round_trip(std::vector<T> const& values) {
    std::vector<std::byte> bytes;
    write_values(bytes, std::span<T const>(values));
    std::vector<T> back(values.size());
    read_values(std::span<std::byte const>(bytes), std::span<T>(back));
    return back;
}

particle make_particle(index_t i) {
    return {"p" + std::to_string(i),
            std::vector<double>(static_cast<std::size_t>((i % 4 + 4) % 4), 0.5 * static_cast<double>(i)),
            static_cast<int>(i % 3) - 1};
}

} // namespace

TEST_CASE("payload: trivially copyable values as bytes, others serialized, both back whole") {
    static_assert(travels_as_bytes<double> && travels_as_bytes<std::array<int, 3>>);
    static_assert(!travels_as_bytes<std::string> && !travels_as_bytes<particle>);
    CHECK(round_trip(std::vector<double>{1.5, -2.0, 1e300}) == std::vector<double>{1.5, -2.0, 1e300});
    CHECK(round_trip(std::vector<std::string>{"", "a", std::string(1000, 'x')}) ==
          std::vector<std::string>{"", "a", std::string(1000, 'x')});
    std::vector<particle> ps{make_particle(1), make_particle(6), make_particle(11)};
    CHECK(round_trip(ps) == ps);
    CHECK(from_bytes<particle>(to_bytes(ps[1])) == ps[1]);
    std::vector<std::byte> bytes;
    write_values(bytes, std::span<double const>(std::vector<double>{1.0, 2.0}));
    std::vector<double> three(3);
    CHECK_THROWS_AS(read_values(std::span<std::byte const>(bytes), std::span<double>(three)), error);
    std::vector<std::byte> truncated = to_bytes(std::string("hello, world"));
    truncated.resize(4);
    CHECK_THROWS_AS(from_bytes<std::string>(truncated), error);
}

TEST_CASE("payload: a vector of trivially copyable values travels as its length and bytes, no archive") {
    static_assert(travels_as_counted_bytes<std::vector<double>> && travels_as_counted_bytes<std::vector<char>>);
    static_assert(!travels_as_counted_bytes<std::vector<bool>> && !travels_as_counted_bytes<std::vector<std::string>>);
    std::vector<std::vector<double>> const vs{{1.5, -2.0}, {}, std::vector<double>(100, 0.25)};
    CHECK(round_trip(vs) == vs);
    std::vector<std::byte> bytes;
    write_values(bytes, std::span<std::vector<double> const>(vs));
    CHECK(bytes.size() == 3 * sizeof(std::uint64_t) + 102 * sizeof(double)); // counts and elements, nothing else
    auto const task = std::vector<char>{'a', 'b', 'c'};
    CHECK(from_bytes<std::vector<char>>(to_bytes(task)) == task);
    // Bytes that do not hold the values: a length past the end, too few, too many.
    auto cut = bytes;
    cut.resize(cut.size() - 1);
    std::vector<std::vector<double>> back(3);
    CHECK_THROWS_WITH_AS(read_values(std::span<std::byte const>(cut), std::span<std::vector<double>>(back)),
                         doctest::Contains("counted vectors"), error);
    std::vector<std::vector<double>> four(4);
    CHECK_THROWS_AS(read_values(std::span<std::byte const>(bytes), std::span<std::vector<double>>(four)), error);
    std::vector<std::vector<double>> two(2);
    CHECK_THROWS_AS(read_values(std::span<std::byte const>(bytes), std::span<std::vector<double>>(two)), error);
}

TEST_CASE("payload: byte_size counts what to_bytes would make, for each kind") {
    CHECK(byte_size(2.5) == to_bytes(2.5).size());
    CHECK(byte_size(std::array<int, 3>{}) == to_bytes(std::array<int, 3>{}).size());
    for (std::size_t const n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}}) {
        std::vector<int> const v(n, 7);
        CHECK(byte_size(v) == to_bytes(v).size());
        CHECK(byte_size(v) == sizeof(std::uint64_t) + n * sizeof(int));
    }
    CHECK(byte_size(make_particle(3)) == to_bytes(make_particle(3)).size()); // serialized: measured
    CHECK(byte_size(std::vector<bool>(9, true)) == to_bytes(std::vector<bool>(9, true)).size());
}

TEST_CASE("payload: a value written in place into a message's room is the bytes to_bytes makes") {
    static_assert(travels_in_place<double> && travels_in_place<std::vector<int>>);
    static_assert(!travels_in_place<particle> && !travels_in_place<std::vector<bool>>);
    auto in_place = [](auto const& v) {
        using V = std::remove_cvref_t<decltype(v)>;
        detail::wire_writer w;
        w.put(std::uint32_t{7}); // a header before it, as a task's
        write_bytes_to(w.put_room(byte_size(v)), std::span<V const>(&v, 1));
        auto const all = w.view();
        return std::vector<std::byte>(all.begin() + sizeof(std::uint32_t), all.end());
    };
    CHECK(in_place(2.5) == to_bytes(2.5));
    for (std::size_t const n : {std::size_t{0}, std::size_t{3}, std::size_t{100000}}) { // 100,000: past the writer's own array
        std::vector<int> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<int>(i * 7);
        auto const bytes = in_place(v);
        CHECK(bytes == to_bytes(v));
        CHECK(from_bytes<std::vector<int>>(bytes) == v);
    }
}

TEST_CASE("payload: a loop gathers values of a serialized type, dynamic and static, 1-4 ranks") {
    for (int ranks : {1, 2, 3, 4})
        for (auto mapping : {any_mapping(dynamic_mapping{}), any_mapping(static_cyclic_mapping{})})
            for (bool computes : {true, false}) {
                CAPTURE(ranks);
                CAPTURE(mapping.name());
                CAPTURE(computes);
                std::vector<particle> root_values;
                in_process::run(ranks, [&](in_process::endpoint& t) {
                    parallel_for_options o;
                    o.master_computes = computes;
                    auto out = parallel_for(
                            t, make_range(500), parse_policy("fss"), mapping,
                            [](index_range const& part, std::span<particle> v) {
                                std::size_t j = 0;
                                for (index_t i : part.indices()) {
                                    v[j++] = make_particle(i);
                                    v[j++] = make_particle(-i);
                                }
                            },
                            gather<particle>{2}, o);
                    if (t.rank() == 0)
                        root_values = std::move(out.value);
                    else
                        CHECK(out.value.empty());
                });
                REQUIRE(root_values.size() == 1000);
                for (index_t i = 0; i < 500; ++i) {
                    CHECK(root_values[static_cast<std::size_t>(2 * i)] == make_particle(i));
                    CHECK(root_values[static_cast<std::size_t>(2 * i + 1)] == make_particle(-i));
                }
            }
}
