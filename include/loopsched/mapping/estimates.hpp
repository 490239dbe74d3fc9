// Placing each new task by estimates on Karamcheti and Wah's load table: D_LPT and the
// four baselines it is compared with as placement values, any_estimate_placement
// to hold any of them (or a user's) at run time, and estimate_scheduler, the one
// driver of a placement that the task farm and divide-and-conquer both use.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/detail/erased_placement.hpp>
#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/detail/spec_of.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hooks.hpp>
#include <loopsched/mapping/concepts.hpp>
#include <loopsched/mapping/dlpt.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {

namespace detail {

/// Whether an estimate placement's state asks for D_LPT's rules 2-4: its
/// dlpt_rules(), declared by name, and refused at compile time when the
/// declaration and the member disagree (a misspelled or undeclared hook).
template <class S>
bool uses_dlpt_rules(S const& s) {
    constexpr bool present = requires {
        { s.dlpt_rules() } -> std::convertible_to<bool>;
    };
    constexpr bool declared = declared_hooks<std::remove_cvref_t<S>>.dlpt_rules;
    static_assert(present || !declared, "loopsched: the estimate placement's state declares hook_set{.dlpt_rules = "
                                        "true} but has no dlpt_rules() const returning bool (misspelled?)");
    static_assert(declared || !present, "loopsched: the estimate placement's state has dlpt_rules() but does not "
                                        "declare it: add `static constexpr loopsched::hook_set hooks{.dlpt_rules = "
                                        "true};`");
    if constexpr (present)
        return s.dlpt_rules();
    else
        return false;
}

/// The index with the smallest count(j); ties go to the lower index.
template <class Count>
std::size_t fewest(std::size_t n, Count&& count) {
    std::size_t best = 0;
    for (std::size_t j = 1; j < n; ++j)
        if (count(j) < count(best)) best = j;
    return best;
}

} // namespace detail

/// D_LPT: where the task finishes first, argmin L(P, t) + rho / b, with the
/// migration rules (a move for a gain of at least f(theta), pulls by idle
/// workers, re-placement on a revised estimate).
struct dlpt_placement {
    static constexpr std::string_view name = "dlpt";
    struct state {
        [[nodiscard]] std::size_t choose(dlpt_board const& b, double rho, double now) const {
            return b.earliest_finish(rho, now);
        }
        static constexpr hook_set hooks{.dlpt_rules = true};
        [[nodiscard]] static constexpr bool dlpt_rules() noexcept { return true; }
    };
    [[nodiscard]] state start(placement_info const&) const noexcept { return {}; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend constexpr bool operator==(dlpt_placement, dlpt_placement) = default;
};

/// A uniformly random worker, from a seed: the same seed, the same choices.
struct random_placement {
    static constexpr std::string_view name = "random";
    static constexpr std::array<std::string_view, 1> keys{"seed"};
    std::uint64_t seed = 20260;
    struct state {
        std::mt19937_64 random;
        [[nodiscard]] std::size_t choose(dlpt_board const& b, double, double) {
            return std::uniform_int_distribution<std::size_t>(0, b.size() - 1)(random);
        }
    };
    [[nodiscard]] state start(placement_info const&) const { return {std::mt19937_64(seed)}; }
    [[nodiscard]] std::string spec() const {
        return detail::spec_writer(name).add("seed", seed, std::uint64_t{20260}).str();
    }
    static random_placement from_spec(spec_args const& a) { return {a.natural("seed", 20260)}; }
    friend constexpr bool operator==(random_placement, random_placement) = default;
};

/// Workers in turn.
struct round_robin_placement {
    static constexpr std::string_view name = "round-robin";
    struct state {
        std::size_t turn = 0;
        [[nodiscard]] std::size_t choose(dlpt_board const& b, double, double) { return turn++ % b.size(); }
    };
    [[nodiscard]] state start(placement_info const&) const noexcept { return {}; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend constexpr bool operator==(round_robin_placement, round_robin_placement) = default;
};

/// The fewest tasks held, running and ready: the load index "number of objects".
struct objects_placement {
    static constexpr std::string_view name = "objects";
    struct state {
        [[nodiscard]] std::size_t choose(dlpt_board const& b, double, double) const {
            return detail::fewest(b.size(), [&](std::size_t j) { return b.held(j); });
        }
    };
    [[nodiscard]] state start(placement_info const&) const noexcept { return {}; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend constexpr bool operator==(objects_placement, objects_placement) = default;
};

/// The fewest ready tasks (each arrived as a message not yet handled): "number of pending messages".
struct messages_placement {
    static constexpr std::string_view name = "messages";
    struct state {
        [[nodiscard]] std::size_t choose(dlpt_board const& b, double, double) const {
            return detail::fewest(b.size(), [&](std::size_t j) { return b.waiting(j); });
        }
    };
    [[nodiscard]] state start(placement_info const&) const noexcept { return {}; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend constexpr bool operator==(messages_placement, messages_placement) = default;
};

/// Any EstimatePlacement behind one type, with value semantics; itself an EstimatePlacement.
class any_estimate_placement {
public:
    class state {
    public:
        static constexpr hook_set hooks{.dlpt_rules = true};
        [[nodiscard]] std::size_t choose(dlpt_board const& b, double rho, double now) {
            return self_->choose(b, rho, now);
        }
        [[nodiscard]] bool dlpt_rules() const { return self_->dlpt_rules(); }

    private:
        friend class any_estimate_placement;
        struct concept_base {
            virtual ~concept_base() = default;
            virtual std::size_t choose(dlpt_board const&, double, double) = 0;
            virtual bool dlpt_rules() const = 0;
        };
        template <class S>
        struct model final : concept_base {
            explicit model(S s) : held(std::move(s)) {}
            std::size_t choose(dlpt_board const& b, double rho, double now) override {
                return held.choose(b, rho, now);
            }
            bool dlpt_rules() const override { return detail::uses_dlpt_rules(held); }
            S held;
        };
        explicit state(std::unique_ptr<concept_base> self) : self_(std::move(self)) {}
        std::unique_ptr<concept_base> self_;
    };

    any_estimate_placement() : any_estimate_placement(dlpt_placement{}) {}
    // The wrapper itself is excluded before EstimatePlacement<P> is asked (no
    // recursion through copyable, which asks this constructor again).
    template <class P>
    requires(!std::is_same_v<std::remove_cvref_t<P>, any_estimate_placement> && EstimatePlacement<P>)
            any_estimate_placement(P placement)
            : self_(new model<P>(std::move(placement))) {}

    [[nodiscard]] state start(placement_info const& info) const { return self_->start(info); }
    /// Its spec ("dlpt", "random:seed=7"), or "custom" for a placement without one.
    [[nodiscard]] std::string spec() const { return self_->spec(); }
    /// Tells placements apart (type and spec), for the agreement.
    [[nodiscard]] std::uint64_t fingerprint() const { return self_->fingerprint(); }
    /// The held placement if it is a P, else nullptr.
    template <class P>
    [[nodiscard]] P const* target() const noexcept {
        auto const* m = dynamic_cast<model<P> const*>(self_.get());
        return m ? &m->placement : nullptr;
    }
    friend bool operator==(any_estimate_placement const& a, any_estimate_placement const& b) {
        return a.self_->equals(*b.self_);
    }

private:
    struct concept_base : detail::erased_placement {
        virtual state start(placement_info const&) const = 0;
    };
    template <class P>
    struct model final : detail::erased_placement_of<concept_base, P> {
        using detail::erased_placement_of<concept_base, P>::erased_placement_of;
        state start(placement_info const& info) const override {
            using S = decltype(this->placement.start(info));
            return state(std::make_unique<state::model<S>>(this->placement.start(info)));
        }
    };
    detail::shared_erased<concept_base> self_; // immutable: copies share it
};

/// Drives an estimate placement over a load table: the task farm and
/// divide-and-conquer both place through one of these, so D_LPT's rules and
/// the migration cost's fit are written once.
class estimate_scheduler {
    /// The placement's choice for a task of estimate rho at `now`, as D_LPT's migration rule asks it.
    struct choice {
        estimate_scheduler* self;
        double now;
        std::size_t operator()(double rho) const { return self->checked(self->state_.choose(self->board_, rho, now)); }
    };
    [[nodiscard]] choice chooser(double now) noexcept { return {this, now}; }

public:
    /// `cost`: what moving a task costs (a farm's tasks wait at its master: nothing).
    estimate_scheduler(any_estimate_placement const& placement, std::span<double const> speeds, migration_cost cost)
            : board_(speeds), state_(placement.start(placement_info{speeds.size(), {}, 0})),
              dlpt_rules_(state_.dlpt_rules()), cost_(std::move(cost)) {
        measure_latency_ = cost_.latency < 0.0;
        measure_per_byte_ = cost_.per_byte < 0.0;
        cost_.latency = std::max(0.0, cost_.latency);
        cost_.per_byte = std::max(0.0, cost_.per_byte);
    }

    [[nodiscard]] dlpt_board& board() noexcept { return board_; }
    [[nodiscard]] bool dlpt_rules() const noexcept { return dlpt_rules_; }

    /// A new task not yet on any worker (a farm's, at its master): its worker.
    [[nodiscard]] std::size_t place(double rho, double now) { return checked(state_.choose(board_, rho, now)); }

    /// A new ready task on worker `from`'s queue (a divided problem's part):
    /// where it goes, if it moves. Under D_LPT's rules it is compared without
    /// itself on `from` and moves only for a gain of at least f(theta); the
    /// others move it wherever they choose.
    std::optional<task_move> place_from(std::size_t from, estimated_task const& task, double now) {
        if (dlpt_rules_) return board_.migrate(from, task.id, cost_, now, chooser(now));
        std::size_t const to = checked(state_.choose(board_, task.rho, now));
        if (to == from) return std::nullopt;
        board_.remove(from, task.id);
        board_.add(to, task, now);
        return task_move{from, to, task.id, task.bytes};
    }

    /// Worker `idle` has nothing: under D_LPT's rules it pulls (rule 4) a
    /// task that `movable(from, task)` allows.
    template <class Movable>
    std::optional<task_move> idle(std::size_t idle, double now, Movable&& movable) {
        if (!dlpt_rules_) return std::nullopt;
        return board_.pull(idle, cost_, now, movable);
    }

    /// Worker `from`'s running task revised its estimate: under D_LPT's rules
    /// its ready tasks that `movable(from, task)` allows are placed again
    /// (rules 1 and 2, largest first), each where the placement chooses.
    template <class Movable>
    std::vector<task_move> revised(std::size_t from, double now, Movable&& movable) {
        if (!dlpt_rules_) return {};
        return board_.rebalance(from, cost_, now, movable, chooser(now));
    }

    /// A move's handshake took `seconds` for a task of `task_bytes`: theta =
    /// c_d + bytes * c_c is fitted (least squares, both >= 0) on the samples,
    /// for the parts the options left to measure (negative).
    void fit(double task_bytes, double seconds) {
        if (!measure_latency_ && !measure_per_byte_) return;
        fit_[0] += 1.0;
        fit_[1] += task_bytes;
        fit_[2] += seconds;
        fit_[3] += task_bytes * task_bytes;
        fit_[4] += task_bytes * seconds;
        double const mx = fit_[1] / fit_[0], my = fit_[2] / fit_[0], var = fit_[3] / fit_[0] - mx * mx;
        if (measure_per_byte_) cost_.per_byte = var > 0.0 ? std::max(0.0, (fit_[4] / fit_[0] - mx * my) / var) : 0.0;
        if (measure_latency_) cost_.latency = std::max(0.0, my - cost_.per_byte * mx);
    }

private:
    [[nodiscard]] std::size_t checked(std::size_t j) const {
        if (j >= board_.size())
            throw invalid_parameter("placement choice", std::to_string(j),
                                    "must name one of the " + std::to_string(board_.size()) + " workers");
        return j;
    }

    dlpt_board board_;
    any_estimate_placement::state state_;
    bool dlpt_rules_;
    migration_cost cost_;
    bool measure_latency_ = false, measure_per_byte_ = false;
    double fit_[5]{};
};

// ---------------------------------------------------------------- static sets

/// Places tasks all ready at time 0, with no migration cost: under D_LPT's
/// rules largest estimate first (LPT on uniform machines: each where it
/// finishes first), the others in the given order.
template <EstimatePlacement P>
task_assignment place_static(P const& placement, std::span<double const> costs, std::span<double const> speeds) {
    detail::check_static(costs, speeds);
    dlpt_board board(speeds);
    auto state = placement.start(placement_info{speeds.size(), {}, costs.size()});
    std::vector<std::size_t> order(costs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (detail::uses_dlpt_rules(state))
        std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
    task_assignment s;
    s.processor.resize(costs.size());
    std::vector<double> finish(speeds.size(), 0.0);
    for (auto const i : order) {
        std::size_t const j = state.choose(board, costs[i], 0.0);
        detail::require(j < speeds.size(), "placement choice", j, "must name a processor");
        board.add(j, {i, costs[i], 0.0}, 0.0, false); // nothing runs at time 0: the queue is the load
        s.processor[i] = j;
        finish[j] += costs[i] / speeds[j];
    }
    s.makespan = finish.empty() ? 0.0 : *std::ranges::max_element(finish);
    return s;
}

/// The optimal makespan of a static set, by exhaustive search with pruning
/// (largest task first, a bound from the best so far and from the lower
/// bound, identical processors tried once). For small sets: m^n in the worst case.
inline task_assignment optimal_makespan(std::span<double const> costs, std::span<double const> speeds) {
    detail::check_static(costs, speeds);
    std::vector<std::size_t> order(costs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
    task_assignment best = place_static(dlpt_placement{}, costs, speeds); // a first upper bound
    double const floor = makespan_bound(costs, speeds);
    std::vector<double> finish(speeds.size(), 0.0);
    std::vector<std::size_t> at(costs.size());
    auto search = [&](auto& self, std::size_t k, double so_far) -> void {
        if (so_far >= best.makespan * (1.0 - 1e-12) || best.makespan <= floor * (1.0 + 1e-12)) return;
        if (k == order.size()) {
            best.makespan = so_far;
            best.processor = at;
            return;
        }
        std::size_t const i = order[k];
        for (std::size_t j = 0; j < speeds.size(); ++j) {
            bool twin = false; // an earlier processor of the same speed and the same finish gives the same subtree
            for (std::size_t e = 0; e < j && !twin; ++e) twin = speeds[e] == speeds[j] && finish[e] == finish[j];
            if (twin) continue;
            finish[j] += costs[i] / speeds[j];
            at[i] = j;
            self(self, k + 1, std::max(so_far, finish[j]));
            finish[j] -= costs[i] / speeds[j];
        }
    };
    search(search, 0, 0.0);
    return best;
}

} // namespace loopsched
