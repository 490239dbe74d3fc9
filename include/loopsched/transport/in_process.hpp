// An in-process transport: ranks are threads of one process exchanging messages
// through mailboxes. Used to test the runtime's protocol without mpiexec.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/transport/channel.hpp>
#include <loopsched/transport/clock.hpp>
#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <utility>
#include <vector>

namespace loopsched::in_process {

class network;

/// One rank's view of the network in one message context; models Transport.
/// Context 0 is the user's; the library runs over context 1 (library_channel()),
/// as an MPI library runs over a duplicated communicator.
class endpoint {
public:
    endpoint(network& net, int rank, int context = 0) : net_(&net), rank_(rank), context_(context) {}

    [[nodiscard]] int rank() const noexcept { return rank_; }
    [[nodiscard]] int size() const noexcept;
    [[nodiscard]] int context() const noexcept { return context_; }
    [[nodiscard]] in_process::network& net() const noexcept { return *net_; }
    void send(int dest, int tag, bytes data);
    message receive(int source, int tag);
    std::optional<message> try_receive(int source, int tag);
    [[nodiscard]] double now() const noexcept { return detail::fast_clock::now(); }

    /// The library's channel for this rank: the same for every endpoint of the rank.
    channel<endpoint>& library_channel();

    /// The network's shared counter and claims log (see has_shared_counter):
    /// std::atomic, always open.
    [[nodiscard]] bool counter_opened() const noexcept { return true; }
    void counter_open() noexcept {}
    std::int64_t counter_fetch_add(std::int64_t n) noexcept;
    void claims_reserve(std::int64_t entries);
    void claims_clear() noexcept;
    std::int32_t claims_compare_and_swap(std::int64_t slot, std::int32_t who) noexcept;
    void claims_read(std::int64_t slot, std::span<std::int32_t> out) const noexcept;

private:
    in_process::network* net_;
    int rank_;
    int context_;
};

/// The mailboxes shared by all ranks of one in-process run, one per rank and context.
class network {
public:
    static constexpr int contexts = 2;

    explicit network(int ranks)
            : ranks_(ranks), boxes_(static_cast<std::size_t>(ranks) * contexts),
              channels_(static_cast<std::size_t>(ranks)) {}

    void post(int dest, int context, message m) {
        auto& box = box_of(dest, context);
        {
            std::lock_guard lock(box.mutex);
            box.queue.push_back(std::move(m));
        }
        box.ready.notify_all();
    }

    std::optional<message> take(int self, int context, int source, int tag, bool wait) {
        auto& box = box_of(self, context);
        std::unique_lock lock(box.mutex);
        while (true) {
            if (auto m = detail::take_matching(box.queue, source, tag)) return m;
            if (!wait) return std::nullopt;
            box.ready.wait(lock);
        }
    }

    [[nodiscard]] int size() const noexcept { return ranks_; }

    /// Rank `rank`'s library channel, made on first use (by that rank's thread only).
    channel<endpoint>& library_channel(int rank) {
        auto& slot = channels_.at(static_cast<std::size_t>(rank));
        if (!slot) slot = std::make_unique<channel<endpoint>>(endpoint(*this, rank, 1));
        return *slot;
    }

private:
    struct mailbox {
        std::mutex mutex;
        std::condition_variable ready;
        std::deque<message> queue;
    };
    mailbox& box_of(int rank, int context) {
        detail::require(rank >= 0 && rank < ranks_, "in_process rank", rank, "must be a rank of the network");
        detail::require(context >= 0 && context < contexts, "in_process context", context,
                        "must be 0 (user) or 1 (library)");
        return boxes_[static_cast<std::size_t>(context * ranks_ + rank)];
    }

    friend class endpoint;
    int ranks_;
    std::atomic<std::int64_t> counter_{0}; ///< the shared counter (loops without a master)
    // The claims log: grown under the mutex by the first rank of a loop that
    // needs more (every rank reserves before it claims), read through claims_.
    std::mutex claims_mutex_;
    std::unique_ptr<std::atomic<std::int32_t>[]> claims_held_;
    std::int64_t claims_size_ = 0; ///< under claims_mutex_
    std::atomic<std::atomic<std::int32_t>*> claims_{nullptr};
    std::atomic<std::int64_t> claims_capacity_{0};
    std::vector<mailbox> boxes_;
    std::vector<std::unique_ptr<channel<endpoint>>> channels_;
};

inline int endpoint::size() const noexcept { return net_->size(); }
inline void endpoint::send(int dest, int tag, bytes data) {
    detail::require(dest >= 0 && dest < size(), "destination rank", dest, "must be a rank of the network");
    net_->post(dest, context_, message{rank_, tag, std::move(data)});
}
inline message endpoint::receive(int source, int tag) { return *net_->take(rank_, context_, source, tag, true); }
inline std::optional<message> endpoint::try_receive(int source, int tag) {
    return net_->take(rank_, context_, source, tag, false);
}
inline channel<endpoint>& endpoint::library_channel() { return net_->library_channel(rank_); }
inline std::int64_t endpoint::counter_fetch_add(std::int64_t n) noexcept {
    return net_->counter_.fetch_add(n, std::memory_order_relaxed); // the counter orders nothing else
}
inline void endpoint::claims_reserve(std::int64_t entries) {
    std::lock_guard lock(net_->claims_mutex_);
    if (entries <= net_->claims_size_) return;
    std::int64_t const size = std::max(entries, 2 * net_->claims_size_);
    net_->claims_held_ = std::make_unique<std::atomic<std::int32_t>[]>(static_cast<std::size_t>(size)); // zeros
    net_->claims_size_ = size;
    net_->claims_.store(net_->claims_held_.get(), std::memory_order_release);
    net_->claims_capacity_.store(size, std::memory_order_release);
}
inline void endpoint::claims_clear() noexcept {
    auto* const log = net_->claims_.load(std::memory_order_acquire);
    std::int64_t const size = net_->claims_capacity_.load(std::memory_order_acquire);
    for (std::int64_t i = 0; i < size && log[i].load(std::memory_order_relaxed) != 0; ++i)
        log[i].store(0, std::memory_order_relaxed); // the go that follows orders it before any claim
}
inline std::int32_t endpoint::claims_compare_and_swap(std::int64_t slot, std::int32_t who) noexcept {
    std::int32_t before = 0;
    // acq_rel (and acquire reads): an entry orders nothing else, but threads cost nothing more for it
    net_->claims_.load(std::memory_order_acquire)[slot].compare_exchange_strong(before, who,
                                                                                 std::memory_order_acq_rel);
    return before;
}
inline void endpoint::claims_read(std::int64_t slot, std::span<std::int32_t> out) const noexcept {
    auto* const log = net_->claims_.load(std::memory_order_acquire);
    std::int64_t const end = std::min(slot + static_cast<std::int64_t>(out.size()),
                                      net_->claims_capacity_.load(std::memory_order_acquire));
    std::ranges::fill(out, 0);
    for (std::int64_t i = slot; i < end; ++i)
        out[static_cast<std::size_t>(i - slot)] = log[i].load(std::memory_order_acquire);
}

/// Runs `program(endpoint&)` on `ranks` threads and joins them. If any rank
/// throws, the first exception (by rank) is rethrown after all have finished.
inline void run(int ranks, std::function<void(endpoint&)> const& program) {
    detail::require(ranks >= 1, "in_process ranks", ranks, "must be >= 1");
    network net(ranks);
    std::vector<std::exception_ptr> failures(static_cast<std::size_t>(ranks));
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
        threads.emplace_back([&, r] {
            endpoint self(net, r);
            try {
                program(self);
            } catch (...) {
                failures[static_cast<std::size_t>(r)] = std::current_exception();
            }
        });
    for (auto& t : threads) t.join();
    for (auto& f : failures)
        if (f) std::rethrow_exception(f);
}

} // namespace loopsched::in_process

