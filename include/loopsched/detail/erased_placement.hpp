// What every type-erased placement (any_estimate_placement,
// any_dividing_placement) holds besides its decisions: the value, its spec, a
// fingerprint of its type and spec for the agreement, and equality; and the
// pointer that shares one immutable erased value between copies.
#pragma once

#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/detail/spec_of.hpp>

#include <boost/intrusive_ptr.hpp>
#include <boost/smart_ptr/intrusive_ref_counter.hpp>

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace loopsched::detail {

struct erased_placement : boost::intrusive_ref_counter<erased_placement> { // thread-safe count
    virtual ~erased_placement() = default;
    virtual std::string spec() const = 0;
    virtual std::uint64_t fingerprint() const = 0;
    virtual bool equals(erased_placement const&) const = 0;
};

/// Shares one immutable erased value (a B derived from erased_placement)
/// between the copies of its holder. Unlike std::shared_ptr made with
/// make_shared, it adds no control block per held type (the count is
/// erased_placement's, and its virtual destructor frees the value): a
/// header-only TU that can parse any placement spec pays for it once.
template <class B>
using shared_erased = boost::intrusive_ptr<B const>;

/// `Interface` (an erased_placement with the family's decisions) over a P:
/// the family's model derives from it and adds the decisions.
template <class Interface, class P>
struct erased_placement_of : Interface {
    explicit erased_placement_of(P p) : placement(std::move(p)) {}
    std::string spec() const override { return spec_of(placement); }
    std::uint64_t fingerprint() const override {
        return detail::fingerprint().add_types<P>().add(std::string_view(spec())).value();
    }
    bool equals(erased_placement const& other) const override {
        auto const* o = dynamic_cast<erased_placement_of const*>(&other);
        if constexpr (std::equality_comparable<P>)
            return o != nullptr && o->placement == placement;
        else
            return o == this; // a placement without == equals its own copies only
    }
    P placement;
};

} // namespace loopsched::detail
