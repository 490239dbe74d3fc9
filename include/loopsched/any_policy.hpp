// any_policy: a chunk policy chosen at run time, holding any ChunkPolicy by value.
#pragma once

#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/concepts.hpp>

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace loopsched {

/// The state of an any_policy.
class any_state {
public:
    template <ChunkState S>
    explicit any_state(S s) : self_(std::make_unique<model<S>>(std::move(s))) {}

    index_t propose(request const& r) { return self_->propose(r); }
    void commit(request const& r, index_t granted) { self_->commit(r, granted); }

private:
    struct concept_base {
        virtual ~concept_base() = default;
        virtual index_t propose(request const&) = 0;
        virtual void commit(request const&, index_t) = 0;
    };
    template <class S>
    struct model final : concept_base {
        explicit model(S s) : state(std::move(s)) {}
        index_t propose(request const& r) override { return state.propose(r); }
        void commit(request const& r, index_t granted) override { state.commit(r, granted); }
        S state;
    };
    std::unique_ptr<concept_base> self_;
};

/// Any ChunkPolicy behind one type, with value semantics; itself a ChunkPolicy.
/// Built by parse_policy() from a spec string, or from any policy object.
class any_policy {
public:
    template <ChunkPolicy P>
        requires(!std::is_same_v<std::remove_cvref_t<P>, any_policy>)
    any_policy(P policy) : self_(std::make_unique<model<P>>(std::move(policy))) {}

    any_policy(any_policy const& other) : self_(other.self_->clone()) {}
    any_policy(any_policy&&) noexcept = default;
    any_policy& operator=(any_policy const& other) {
        if (this != &other) self_ = other.self_->clone();
        return *this;
    }
    any_policy& operator=(any_policy&&) noexcept = default;

    [[nodiscard]] any_state start(loop_info const& info) const { return self_->start(info); }
    /// The canonical spec string ("gss:min=80"), or "custom" for a policy without one.
    [[nodiscard]] std::string spec() const { return self_->spec(); }
    [[nodiscard]] index_t min_chunk() const { return self_->min_chunk(); }
    /// The interval of the S adaptor when the held policy is synchronized<...>
    /// (what a DOACROSS loop needs), else nullopt.
    [[nodiscard]] std::optional<sync_interval> synchronization() const { return self_->synchronization(); }

    /// The held policy if it is a P, else nullptr.
    template <class P>
    [[nodiscard]] P const* target() const noexcept {
        auto* m = dynamic_cast<model<P> const*>(self_.get());
        return m ? &m->policy : nullptr;
    }

    friend bool operator==(any_policy const& a, any_policy const& b) { return a.self_->equals(*b.self_); }

private:
    struct concept_base {
        virtual ~concept_base() = default;
        virtual std::unique_ptr<concept_base> clone() const = 0;
        virtual any_state start(loop_info const&) const = 0;
        virtual std::string spec() const = 0;
        virtual index_t min_chunk() const = 0;
        virtual std::optional<sync_interval> synchronization() const = 0;
        virtual bool equals(concept_base const&) const = 0;
    };
    template <class P>
    struct model final : concept_base {
        explicit model(P p) : policy(std::move(p)) {}
        std::unique_ptr<concept_base> clone() const override { return std::make_unique<model>(policy); }
        any_state start(loop_info const& info) const override { return any_state(policy.start(info)); }
        std::string spec() const override {
            if constexpr (requires { { policy.spec() } -> std::convertible_to<std::string>; })
                return policy.spec();
            else
                return "custom";
        }
        index_t min_chunk() const override { return detail::min_chunk_of(policy); }
        std::optional<sync_interval> synchronization() const override {
            if constexpr (is_synchronized_v<P>)
                return policy.interval();
            else
                return std::nullopt;
        }
        bool equals(concept_base const& other) const override {
            auto* o = dynamic_cast<model const*>(&other);
            if constexpr (std::equality_comparable<P>)
                return o && o->policy == policy;
            else
                return o == this;
        }
        P policy;
    };
    std::unique_ptr<concept_base> self_;
};

} // namespace loopsched
