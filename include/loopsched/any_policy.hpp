// any_policy: a chunk policy chosen at run time, holding any ChunkPolicy by value.
#pragma once

#include <loopsched/adaptor/sync_interval.hpp>
#include <loopsched/adaptor/weighted.hpp> // detail::min_chunk_of
#include <loopsched/concepts.hpp>
#include <loopsched/policy/compiled.hpp>
#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/detail/spec_of.hpp>
#include <loopsched/policy/partner_splits.hpp>
#include <loopsched/hooks.hpp>
#include <loopsched/statistics.hpp>

#include <boost/intrusive_ptr.hpp>
#include <boost/smart_ptr/intrusive_ref_counter.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace loopsched {

/// The state of an any_policy. A small state lives inside the object, so that
/// starting a loop (back-to-back short loops start many) does not allocate.
class any_state {
public:
    // Itself excluded first, as any_policy's constructor does (no recursion through move_constructible).
    template <class S>
    requires(!std::is_same_v<std::remove_cvref_t<S>, any_state> && ChunkState<S>)
    explicit any_state(S s) {
        if constexpr (fits_inline<S>)
            self_ = new (buffer_) model<S>(std::move(s));
        else
            self_ = new model<S>(std::move(s));
    }
    any_state(any_state&& other) noexcept { take(other); }
    any_state& operator=(any_state&& other) noexcept {
        if (this != &other) {
            reset();
            take(other);
        }
        return *this;
    }
    ~any_state() { reset(); }

    index_t propose(request const& r) { return self_->propose(r); }
    void commit(request const& r, index_t granted) { self_->commit(r, granted); }
    /// Every held state hears how its loop ended (most do nothing with it).
    static constexpr hook_set hooks{.finish = true};
    void finish(loop_statistics& table) { self_->finish(table); }

private:
    struct concept_base {
        virtual ~concept_base() = default;
        virtual index_t propose(request const&) = 0;
        virtual void commit(request const&, index_t) = 0;
        virtual void finish(loop_statistics&) = 0;
        virtual concept_base* move_into(std::byte* where) noexcept = 0; ///< for an inline state only
    };
    template <class S>
    struct model final : concept_base {
        explicit model(S s) : state(std::move(s)) {}
        index_t propose(request const& r) override { return state.propose(r); }
        void commit(request const& r, index_t granted) override { state.commit(r, granted); }
        void finish(loop_statistics& table) override { detail::finish_state(state, table); }
        concept_base* move_into(std::byte* where) noexcept override {
            if constexpr (std::is_nothrow_move_constructible_v<S>)
                return new (where) model(std::move(state));
            else
                return nullptr; // never inline: see fits_inline
        }
        S state;
    };

    // Room for the state of every catalogue policy and its w- form (at most 264 bytes with libstdc++).
    static constexpr std::size_t inline_bytes = 272;
    template <class S>
    static constexpr bool
            fits_inline = sizeof(model<S>) <= inline_bytes &&
                          alignof(model<S>) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<S>;

    [[nodiscard]] bool is_inline() const noexcept { return static_cast<void const*>(self_) == buffer_; }
    void reset() noexcept {
        if (is_inline())
            self_->~concept_base();
        else
            delete self_;
        self_ = nullptr;
    }
    void take(any_state& other) noexcept {
        if (other.self_ == nullptr) return;
        if (other.is_inline()) {
            self_ = other.self_->move_into(buffer_);
            other.reset();
        } else {
            self_ = std::exchange(other.self_, nullptr);
        }
    }

    alignas(std::max_align_t) std::byte buffer_[inline_bytes];
    concept_base* self_ = nullptr;
};

/// Any ChunkPolicy behind one type, with value semantics; itself a ChunkPolicy.
/// Built by parse_policy() from a spec string, or from any policy object.
class any_policy {
public:
    // The wrapper itself is excluded before ChunkPolicy<P> is asked: asking it
    // of any_policy would ask whether any_policy is copyable, which asks this
    // constructor again (Clang rejects the recursion; GCC happened to accept it).
    template <class P>
    requires(!std::is_same_v<std::remove_cvref_t<P>, any_policy> && ChunkPolicy<P>) any_policy(P policy)
            : self_(make_model(std::move(policy))), fingerprint_(self_->fingerprint()) {}


    [[nodiscard]] any_state start(loop_info const& info) const { return self_->start(info); }
    /// The canonical spec string ("gss:min=80"), or "custom" for a policy without one.
    [[nodiscard]] std::string spec() const { return self_->spec(); }
    static constexpr hook_set hooks{.min_chunk = true};
    [[nodiscard]] index_t min_chunk() const { return self_->min_chunk(); }
    /// The interval of the S adaptor when the held policy is synchronized<...>
    /// (what a DOACROSS loop needs), else nullopt.
    [[nodiscard]] std::optional<sync_interval> synchronization() const { return self_->synchronization(); }
    /// Whether the held policy wants the DOALL engine's partner splits (TreeS, `trees`).
    [[nodiscard]] bool splits_with_partners() const { return self_->splits_with_partners(); }
    /// Tells policies apart (their type and spec), so that ranks can check they
    /// run the same one; computed once, as loops start often.
    [[nodiscard]] std::uint64_t fingerprint() const noexcept { return fingerprint_; }

    /// The held policy if it is a P, else nullptr.
    template <class P>
    [[nodiscard]] P const* target() const noexcept {
        auto* m = dynamic_cast<model<P> const*>(self_.get());
        return m ? &m->policy : nullptr;
    }

    friend bool operator==(any_policy const& a, any_policy const& b) { return a.self_->equals(*b.self_); }

private:
    // A policy is an immutable value of parameters: copies share one model
    // (a thread-safe count, no control block per policy type).
    struct concept_base : boost::intrusive_ref_counter<concept_base> {
        virtual ~concept_base() = default;
        virtual any_state start(loop_info const&) const = 0;
        virtual std::string spec() const = 0;
        virtual index_t min_chunk() const = 0;
        virtual std::optional<sync_interval> synchronization() const = 0;
        virtual bool splits_with_partners() const = 0;
        virtual bool equals(concept_base const&) const = 0;
        virtual std::uint64_t fingerprint() const = 0;
    };
    using held = boost::intrusive_ptr<concept_base const>;
    template <class P>
    struct model final : concept_base {
        explicit model(P p) : policy(std::move(p)) {}
        any_state start(loop_info const& info) const override { return any_state(policy.start(info)); }
        std::string spec() const override { return detail::spec_of(policy); }
        index_t min_chunk() const override { return detail::min_chunk_of(policy); }
        std::optional<sync_interval> synchronization() const override {
            if constexpr (is_synchronized_v<P>)
                return policy.interval();
            else
                return std::nullopt;
        }
        bool splits_with_partners() const override { return detail::splits_with_partners(policy); }
        bool equals(concept_base const& other) const override {
            auto* o = dynamic_cast<model const*>(&other);
            if constexpr (std::equality_comparable<P>)
                return o && o->policy == policy;
            else
                return o == this;
        }
        std::uint64_t fingerprint() const override {
            return detail::fingerprint().add_types<P>().add(std::string_view(spec())).value();
        }
        P policy;
    };

    // With loopsched::compiled, the models of the catalogue's schemes and of
    // their S, W and SW forms are compiled in the library (impl/compiled_core.ipp):
    // a program that erases one instantiates none of its members.
    template <class A>
    struct compiled_forms {
        static held make(A policy);
        static held make(synchronized<A> policy);
        static held make(weighted<A> policy);
        static held make(synchronized<weighted<A>> policy);
    };
    template <class P>
    static held make_model(P policy) {
        if constexpr (detail::compiled_form<P>)
            return compiled_forms<detail::scheme_of_form<P>>::make(std::move(policy));
        else
            return held(new model<P>(std::move(policy)));
    }

    held self_;
    std::uint64_t fingerprint_ = 0;
};

namespace detail {

/// `policy` as an any_policy (an any_policy as it is). The engines take their
/// policy erased, so that they are compiled once per transport and mapping
/// rather than once per policy type; it costs one indirect call per chunk.
template <ChunkPolicy P>
decltype(auto) erase_policy(P const& policy) {
    if constexpr (std::same_as<P, any_policy>)
        return (policy);
    else
        return any_policy(policy);
}

} // namespace detail
} // namespace loopsched
