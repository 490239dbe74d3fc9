// What a master client may use (master_port): sending to workers and ranks,
// and the per-worker statistics the protocol core keeps.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/core/link.hpp>
#include <loopsched/runtime/core/loopback.hpp>
#include <loopsched/runtime/core/messages.hpp>
#include <loopsched/runtime/core/profile.hpp>
#include <loopsched/statistics.hpp>
#include <loopsched/runtime/core/wire.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// What the master's client may use: sending to workers and ranks, and the
/// per-worker statistics the core keeps.
template <Transport T>
class master_port {
public:
    master_port(loop_link<T>& link, runtime_settings const& settings, loopback& local)
            : link_(link), settings_(settings), local_(local), stats_(settings.workers()) {
        for (std::size_t k = 0; k < stats_.size(); ++k) stats_[k].rank = settings.worker_ranks[k];
    }

    [[nodiscard]] runtime_settings const& settings() const noexcept { return settings_; }
    [[nodiscard]] int rank() const { return link_.rank(); }
    [[nodiscard]] double now() const { return link_.now(); }
    [[nodiscard]] loop_link<T>& link() noexcept { return link_; }
    [[nodiscard]] bool is_own(std::size_t k) const noexcept { return static_cast<int>(k) == settings_.own_index; }

    void send_worker(std::size_t k, kind what, std::span<std::byte const> data) {
        if (is_own(k))
            local_.post_to_worker(link_.rank(), what, data);
        else
            link_.send(settings_.worker_ranks[k], what, data);
    }
    /// To a rank's worker (DOACROSS: the previous chunk's holder).
    void send_rank(int rank, kind what, std::span<std::byte const> data) {
        int const k = settings_.index_of(rank);
        if (k >= 0)
            send_worker(static_cast<std::size_t>(k), what, data);
        else
            link_.send(rank, what, data);
    }

    /// Work sent to worker k outside an answer to its request (the task farm
    /// pushes tasks as they are created): the core looks at k's state again.
    void push_worker(std::size_t k, kind what, std::span<std::byte const> data) {
        send_worker(k, what, data);
        touch(k);
    }
    /// As above, the writer's bytes handed over: a large message (tasks with
    /// their payloads) leaves from them, not from a copy the transport keeps.
    void push_worker(std::size_t k, kind what, wire_writer&& w) {
        if (is_own(k) || !w.spilled()) return push_worker(k, what, w.view());
        link_.send(settings_.worker_ranks[k], what, std::move(w).take());
        touch(k);
    }
    /// Worker k's state may have changed (it now holds work, or no longer
    /// expects any): the core asks the client's holds(k) again.
    void touch(std::size_t k) { touched_.push_back(k); }
    [[nodiscard]] std::vector<std::size_t>& touched() noexcept { return touched_; }

    /// Worker k was granted `iterations` more (one unit).
    void count(std::size_t k, index_t iterations) {
        stats_[k].iterations += iterations;
        ++stats_[k].chunks;
    }
    [[nodiscard]] std::vector<worker_statistics>& statistics() noexcept { return stats_; }

    /// The worker whose request or report carries the results being taken
    /// (a client that keeps only one copy's results asks).
    [[nodiscard]] std::size_t result_sender() const noexcept { return result_sender_; }
    void set_result_sender(std::size_t k) noexcept { result_sender_ = k; }

private:
    loop_link<T>& link_;
    runtime_settings const& settings_;
    loopback& local_;
    std::vector<worker_statistics> stats_;
    std::vector<std::size_t> touched_;
    std::size_t result_sender_ = 0;
};

} // namespace loopsched::detail
