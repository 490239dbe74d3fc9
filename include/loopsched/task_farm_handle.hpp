// The producer's side of a task farm: task_farm_handle (submit tasks, wait
// for them, take their results on the root) and the hints a task may carry.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/detail/group_place.hpp>
#include <loopsched/error.hpp>
#include <loopsched/payload.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace loopsched {

/// What the producer may tell about a task.
struct task_hints {
    /// The task's estimated cost, in any unit (the cost measure then: give it
    /// for every task or for none).
    std::optional<double> cost{};
    double priority = 0.0; ///< higher runs first, whatever the cost order
};

/// What body(task) returns, with void carried as std::monostate.
template <class Body, class Task>
using farm_result_t = std::conditional_t<std::is_void_v<std::invoke_result_t<Body&, Task const&>>, std::monostate,
                                         std::invoke_result_t<Body&, Task const&>>;

namespace detail {
/// What a farm handle asks of the running farm on the root.
struct farm_driver {
    virtual std::uint64_t submit(std::vector<std::byte> task, std::optional<double> cost, double priority) = 0;
    virtual void wait_all() = 0;
    [[nodiscard]] virtual bool stopping() const = 0;
    /// Which group's producer this is, and its share of the groups' power (the whole on the root).
    [[nodiscard]] virtual group_place place() const = 0;

protected:
    ~farm_driver() = default;
};

/// The farm's own side of a handle, kept out of its public members: attach
/// the running farm, deliver a result, take the collected results.
struct farm_handle_access {
    template <class Handle>
    static void attach(Handle& h, farm_driver* d) noexcept {
        h.attach(d);
    }
    template <class Handle>
    static void deliver(Handle& h, std::uint64_t id, std::span<std::byte const> result) {
        h.deliver(id, result);
    }
    template <class Handle>
    static auto take_results(Handle& h) {
        return h.take_results();
    }
};
} // namespace detail

/// The producer's view of the farm, on the root (or, with
/// producers_in_groups, on each sub-master): submit tasks, wait for them.
template <transferable Task, transferable Result>
class task_farm_handle {
public:
    /// A new task; returns its id (creation order, from 0). Sends it at once or
    /// queues it; results arriving meanwhile are taken in.
    std::uint64_t submit(Task const& task, task_hints const& hints = {}) {
        if (!driver_) throw error("loopsched: task_farm_handle::submit after the producer returned");
        std::uint64_t const id = driver_->submit(to_bytes(task), hints.cost, hints.priority);
        if (!callback_ && results_.size() <= id) {
            results_.resize(id + 1);
            arrived_.resize(id + 1, 0);
        }
        return id;
    }
    /// Blocks until every task submitted so far has its result (or was
    /// cancelled): a work cycle ends. The fitted model carries over to the next.
    void wait_all() {
        if (!driver_) throw error("loopsched: task_farm_handle::wait_all after the producer returned");
        driver_->wait_all();
    }
    /// Results go to `f(id, Result&&)` as they arrive, instead of being collected.
    template <std::invocable<std::uint64_t, Result&&> F>
    void on_result(F f) {
        callback_ = std::move(f);
    }
    /// With task_farm_options::producers_in_groups, which group this producer
    /// makes tasks for, from 0, and how many groups there are (each makes its
    /// share); otherwise 0 and 1.
    [[nodiscard]] std::size_t group() const { return place().group; }
    [[nodiscard]] std::size_t groups() const { return place().groups; }
    /// This producer's part of `n` tasks numbered 0 to n-1, as the first and
    /// one past the last: with producers in groups, each group's part in
    /// proportion to its workers' summed power (V/Q), the parts of all groups
    /// tiling [0, n) exactly; otherwise all of it.
    [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> share(std::uint64_t n) const {
        auto const at = [n](double fraction) {
            return fraction >= 1.0 ? n : static_cast<std::uint64_t>(static_cast<double>(n) * fraction + 0.5);
        };
        auto const p = place();
        return {at(p.share_begin), at(p.share_end)};
    }
    /// The farm stopped (stop_after_results or time_limit): further tasks are cancelled at once.
    [[nodiscard]] bool stopping() const { return driver_ && driver_->stopping(); }
    /// The results collected so far, by creation order (only without a callback).
    [[nodiscard]] std::span<Result const> results() const noexcept { return results_; }
    /// Whether task `id`'s result arrived (only without a callback).
    [[nodiscard]] bool has_result(std::uint64_t id) const noexcept { return id < arrived_.size() && arrived_[id]; }

private:
    friend struct detail::farm_handle_access;

    void attach(detail::farm_driver* d) noexcept { driver_ = d; }
    void deliver(std::uint64_t id, std::span<std::byte const> b) {
        Result value = from_bytes<Result>(b);
        if (callback_) {
            callback_(id, std::move(value));
            return;
        }
        if (results_.size() <= id) {
            results_.resize(id + 1);
            arrived_.resize(id + 1, 0);
        }
        results_[id] = std::move(value);
        arrived_[id] = 1;
    }
    std::vector<Result> take_results() { return std::move(results_); }
    [[nodiscard]] detail::group_place place() const { return driver_ ? driver_->place() : detail::group_place{}; }

    detail::farm_driver* driver_ = nullptr;
    std::function<void(std::uint64_t, Result&&)> callback_;
    std::vector<Result> results_;
    std::vector<char> arrived_;
};

} // namespace loopsched
