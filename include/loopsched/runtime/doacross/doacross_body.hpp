// A DOACROSS loop's fields and body as its engines see them: field_windows
// (one window per field, a few virtual calls per tile, set or chunk, none per
// point) and doacross_body, which makes them. Below this seam the engines
// depend on the transport and the depth only, not on the user's types.
#pragma once

#include <loopsched/adaptor/interval_model.hpp>
#include <loopsched/dependence/layout.hpp>
#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/runtime/doacross/doacross_geometry.hpp>
#include <loopsched/statistics.hpp>
#include <loopsched/space/window.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// One window per field of a DOACROSS loop, over one region.
template <std::size_t N>
class field_windows {
public:
    virtual ~field_windows() = default;
    /// Every window over `region`, its values not yet set.
    virtual void reset(box<N> const& region) = 0;
    /// Every window over `region`, which contains the current one, keeping the values held.
    virtual void grow(box<N> const& region) = 0;
    /// The fields' values before the loop over `part`.
    virtual void fill(box<N> const& part) = 0;
    /// `part` of every field from `other`, made by the same doacross_body.
    virtual void copy_from(field_windows const& other, box<N> const& part) = 0;
    /// `part` of every field, field after field, appended to `out`.
    virtual void pack(box<N> const& part, std::vector<std::byte>& out) const = 0;
    /// Reads `part` as pack wrote it; the bytes used.
    virtual std::size_t unpack(box<N> const& part, std::span<std::byte const> in) = 0;
    /// The loop's body over `part`, on these windows.
    virtual void run(box<N> const& part) = 0;
    /// The body over every piece of tile t of the chunk starting at a, u_c
    /// positions [c0, c1) (doacross_geometry::for_each_piece): one call per
    /// tile, since a skewed tile has a piece per position (a virtual call per
    /// piece was a quarter of a simulated Floyd-Steinberg run).
    virtual void run_tile(doacross_geometry<N> const& geo, index_t a, index_t t, index_t c0, index_t c1) = 0;
};

/// The engine's view of a DOACROSS loop's fields and body.
template <std::size_t N>
class doacross_body {
public:
    /// Empty windows over the fields (a chunk's, a tile's, a sample's).
    [[nodiscard]] virtual std::unique_ptr<field_windows<N>> make() const = 0;
    /// The windows the loop's outcome holds: the fields gathered on the root,
    /// or the whole loop on one rank.
    [[nodiscard]] virtual field_windows<N>& outcome() noexcept = 0;
    /// Bytes of one point of every field.
    [[nodiscard]] virtual std::size_t point_bytes() const noexcept = 0;
    /// The fields' types, which every rank must pass alike.
    [[nodiscard]] virtual std::uint64_t fields_fingerprint() const noexcept = 0;

protected:
    ~doacross_body() = default;
};

template <std::size_t N, class Body, class... F>
class typed_field_windows final : public field_windows<N> {
public:
    using windows_t = std::tuple<window<typename F::value_type, N>...>;

    /// `outside`: windows held elsewhere (the outcome's); null: its own.
    typed_field_windows(Body& body, std::tuple<F...> const& fields, windows_t* outside)
        : body_(body), fields_(fields), windows_(outside ? outside : &own_) {}

    void reset(box<N> const& region) override {
        std::apply([&](auto&... w) { (w.reset(region), ...); }, *windows_);
    }
    void grow(box<N> const& region) override {
        std::apply([&](auto&... w) { (grow_one(w, region), ...); }, *windows_);
    }
    void fill(box<N> const& part) override {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (std::get<I>(*windows_).fill(part, std::get<I>(fields_).initial), ...);
        }(std::index_sequence_for<F...>{});
    }
    void copy_from(field_windows<N> const& other, box<N> const& part) override {
        windows_t const& from = *static_cast<typed_field_windows const&>(other).windows_;
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (std::get<I>(*windows_).copy_from(std::get<I>(from), part), ...);
        }(std::index_sequence_for<F...>{});
    }
    void pack(box<N> const& part, std::vector<std::byte>& out) const override {
        std::apply([&](auto const&... w) { (w.pack(part, out), ...); }, *windows_);
    }
    std::size_t unpack(box<N> const& part, std::span<std::byte const> in) override {
        std::size_t used = 0;
        std::apply([&](auto&... w) { ((used += w.unpack(part, in.subspan(used))), ...); }, *windows_);
        return used;
    }
    void run(box<N> const& part) override {
        std::apply([&](auto&... w) { body_(part, w...); }, *windows_);
    }
    void run_tile(doacross_geometry<N> const& geo, index_t a, index_t t, index_t c0, index_t c1) override {
        std::apply([&](auto&... w) { geo.for_each_piece(a, t, c0, c1, [&](box<N> const& piece) { body_(piece, w...); }); },
                   *windows_);
    }

private:
    template <class W>
    static void grow_one(W& w, box<N> const& region) {
        W wider(region);
        wider.copy_from(w, w.region());
        w = std::move(wider);
    }

    Body& body_;
    std::tuple<F...> const& fields_;
    windows_t own_;
    windows_t* windows_;
};

/// A loop's body and fields, with the outcome's windows (`results`) it fills.
template <std::size_t N, class Body, class... F>
class typed_doacross_body final : public doacross_body<N> {
public:
    using windows_t = typename typed_field_windows<N, Body, F...>::windows_t;

    typed_doacross_body(Body& body, std::tuple<F...> const& fields, windows_t& results)
        : body_(body), fields_(fields), outcome_(body, fields, &results) {}

    [[nodiscard]] std::unique_ptr<field_windows<N>> make() const override {
        return std::make_unique<typed_field_windows<N, Body, F...>>(body_, fields_, nullptr);
    }
    [[nodiscard]] field_windows<N>& outcome() noexcept override { return outcome_; }
    [[nodiscard]] std::size_t point_bytes() const noexcept override { return (sizeof(typename F::value_type) + ...); }
    [[nodiscard]] std::uint64_t fields_fingerprint() const noexcept override {
        fingerprint f;
        ((f.add(sizeof(typename F::value_type)).add(std::string_view(typeid(typename F::value_type).name()))), ...);
        return f.value();
    }

private:
    Body& body_;
    std::tuple<F...> const& fields_;
    typed_field_windows<N, Body, F...> outcome_;
};

/// The loop's dependences as the engines take them. A set that is not legal
/// becomes `earlier`, so that every rank fails the loop's checks alike.
template <DependenceSet D>
dependence_set<D::rank> as_dependence_set(D const& deps, std::exception_ptr& earlier) {
    if constexpr (std::same_as<D, dependence_set<D::rank>>) {
        return deps;
    } else {
        try {
            return dependence_set<D::rank>(std::vector<distance_vector<D::rank>>(deps.vectors().begin(),
                                                                                 deps.vectors().end()));
        } catch (...) {
            if (!earlier) earlier = std::current_exception();
            return {};
        }
    }
}

} // namespace loopsched::detail
