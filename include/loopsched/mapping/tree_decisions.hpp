// Any tree placement behind one interface: task_decisions, what the
// divide-and-conquer runtime asks at every worker, decisions_of (a
// TreePlacement's state as task_decisions) and any_dividing_placement, which
// holds any TreePlacement by value, the user's own included.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/detail/erased_placement.hpp>
#include <loopsched/hooks.hpp>
#include <loopsched/mapping/concepts.hpp>
#include <loopsched/mapping/estimates.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {

namespace detail {

/// Whether a dividing placement's state sizes a transfer (`give(queue,
/// running, amount)`): declared by name, and refused at compile time when the
/// declaration and the member disagree (a misspelled or undeclared give).
template <class S>
consteval bool gives_by_amount() {
    constexpr bool present = requires(S const& s, std::span<queued_task const> q, bool running, double amount) {
        { s.give(q, running, amount) } -> std::same_as<std::vector<std::size_t>>;
    };
    constexpr bool declared = declared_hooks<std::remove_cvref_t<S>>.give_amount;
    static_assert(present || !declared,
                  "loopsched: the placement's state declares hook_set{.give_amount = true} but has no "
                  "give(std::span<queued_task const>, bool, double) const returning std::vector<std::size_t> "
                  "(misspelled?)");
    static_assert(declared || !present,
                  "loopsched: the placement's state has give(queue, running, amount) but does not declare it: add "
                  "`static constexpr loopsched::hook_set hooks{.give_amount = true};`");
    return present;
}

/// A dividing placement's decisions behind one interface: what the
/// divide-and-conquer runtime holds (one per rank, the same on every rank).
class task_decisions {
public:
    virtual ~task_decisions() = default;
    [[nodiscard]] virtual std::string name() const = 0;
    [[nodiscard]] virtual std::vector<placed_worker> first_list(std::span<placed_worker const> by_speed) const = 0;
    [[nodiscard]] virtual std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> list,
                                                                        std::size_t children) const = 0;
    [[nodiscard]] virtual bool divides(std::size_t queued, std::size_t workers) const = 0;
    [[nodiscard]] virtual std::size_t next(std::span<queued_task const> queue, bool dividing) const = 0;
    [[nodiscard]] virtual std::vector<std::size_t> give(std::span<queued_task const> queue, bool running) const = 0;
    /// A transfer sized to `amount` (queue weights): the placement's sized
    /// choice if it has one, else its one choice.
    [[nodiscard]] virtual std::vector<std::size_t> give(std::span<queued_task const> queue, bool running,
                                                        double amount) const = 0;
    [[nodiscard]] virtual idle_action when_idle() const = 0;
    [[nodiscard]] virtual bool balances() const = 0;
    [[nodiscard]] virtual bool spills() const = 0;
    /// The placement of every new task from the manager, when it places by estimates.
    [[nodiscard]] virtual any_estimate_placement const* estimates() const { return nullptr; }
};

/// `state` (a TreePlacement's) as task_decisions; spilling needs both the
/// placement's word and the options' (`spill`).
template <decides_divisions S>
class decisions_of final : public task_decisions {
public:
    decisions_of(std::string name, S state, bool spill, std::optional<any_estimate_placement> estimates = {})
            : name_(std::move(name)), state_(std::move(state)), spill_(spill), estimates_(std::move(estimates)) {}
    [[nodiscard]] std::string name() const override { return name_; }
    [[nodiscard]] std::vector<placed_worker> first_list(std::span<placed_worker const> by_speed) const override {
        return state_.first_list(by_speed);
    }
    [[nodiscard]] std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> list,
                                                                std::size_t children) const override {
        return state_.split(list, children);
    }
    [[nodiscard]] bool divides(std::size_t queued, std::size_t workers) const override {
        return state_.divides(queued, workers);
    }
    [[nodiscard]] std::size_t next(std::span<queued_task const> queue, bool dividing) const override {
        return state_.next(queue, dividing);
    }
    [[nodiscard]] std::vector<std::size_t> give(std::span<queued_task const> queue, bool running) const override {
        return state_.give(queue, running);
    }
    [[nodiscard]] std::vector<std::size_t> give(std::span<queued_task const> queue, bool running,
                                                double amount) const override {
        if constexpr (detail::gives_by_amount<S>())
            return state_.give(queue, running, amount);
        else
            return state_.give(queue, running);
    }
    [[nodiscard]] idle_action when_idle() const override { return state_.when_idle(); }
    [[nodiscard]] bool balances() const override { return state_.balances(); }
    [[nodiscard]] bool spills() const override { return spill_ && state_.spills(); }
    [[nodiscard]] any_estimate_placement const* estimates() const override {
        return estimates_ ? &*estimates_ : nullptr;
    }

private:
    std::string name_;
    S state_;
    bool spill_;
    std::optional<any_estimate_placement> estimates_;
};


} // namespace detail

/// Any TreePlacement by value, the user's own included: what any_placement
/// holds for a placement that is not one of the library's kinds.
class any_dividing_placement {
public:
    // The wrapper itself is excluded before TreePlacement<P> is asked (no
    // recursion through copyable, which asks this constructor again).
    template <class P>
    requires(!std::is_same_v<std::remove_cvref_t<P>, any_dividing_placement> && TreePlacement<P>)
            any_dividing_placement(P placement)
            : self_(new model<P>(std::move(placement))) {}

    /// Its spec, or "custom" for a placement without one.
    [[nodiscard]] std::string spec() const { return self_->spec(); }
    /// Tells placements apart (type and spec), for the agreement.
    [[nodiscard]] std::uint64_t fingerprint() const { return self_->fingerprint(); }
    /// The decisions a run makes with it (`spill`: the options' word).
    [[nodiscard]] std::unique_ptr<detail::task_decisions> decisions(placement_info const& info, bool spill) const {
        return self_->decisions(info, spill);
    }
    /// The held placement if it is a P, else nullptr.
    template <class P>
    [[nodiscard]] P const* target() const noexcept {
        auto const* m = dynamic_cast<model<P> const*>(self_.get());
        return m ? &m->placement : nullptr;
    }
    friend bool operator==(any_dividing_placement const& a, any_dividing_placement const& b) {
        return a.self_->equals(*b.self_);
    }

private:
    struct concept_base : detail::erased_placement {
        virtual std::unique_ptr<detail::task_decisions> decisions(placement_info const&, bool) const = 0;
    };
    template <class P>
    struct model final : detail::erased_placement_of<concept_base, P> {
        using detail::erased_placement_of<concept_base, P>::erased_placement_of;
        std::unique_ptr<detail::task_decisions> decisions(placement_info const& info, bool spill) const override {
            using S = decltype(this->placement.start(info));
            return std::make_unique<detail::decisions_of<S>>(this->spec(), this->placement.start(info), spill);
        }
    };
    detail::shared_erased<concept_base> self_; // immutable: copies share it
};


} // namespace loopsched
