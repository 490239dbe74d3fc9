// The farm master's part that re-issues tasks (after Mohammed and Ciorba's
// rDLB): who holds which task, copies included (farm_copies), the copies an
// idle worker gets once nothing is left to hand out, and the cancels once
// every task is resolved.
#pragma once

#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/core/wire.hpp>
#include <loopsched/runtime/tasks/farm_book.hpp>
#include <loopsched/runtime/tasks/farm_copies.hpp>
#include <loopsched/runtime/tasks/farm_workers.hpp>

#include <cstddef>
#include <cstdint>

namespace loopsched::detail {

/// Reissue at a farm's master. The book keeps every unresolved task's bytes,
/// so a copy is sent from them and a lost worker's tasks are queued again.
template <Transport T>
class farm_reissue {
public:
    farm_reissue(master_port<T>& port, farm_book& book, farm_workers& workers)
            : port_(port), book_(book), workers_(workers), copies_(workers.size()) {
        book_.keep_payloads();
    }

    /// Worker k got task `id` (the original, or a copy).
    void took(std::size_t k, std::uint64_t id) { copies_.took(k, id); }
    [[nodiscard]] bool holds(std::size_t k, std::uint64_t id) const { return copies_.holds(k, id); }
    /// Worker k no longer holds `id`; false if it did not hold it.
    bool released(std::size_t k, std::uint64_t id) { return copies_.released(k, id); }
    /// How many workers hold `id`.
    [[nodiscard]] std::uint32_t holders(std::uint64_t id) const noexcept { return copies_.holders(id); }
    /// A result that came second (its task was resolved by another copy).
    void dropped_one() noexcept { copies_.dropped_one(); }

    /// Worker k was presumed lost: the tasks it held are released, and each
    /// no other worker holds goes to `take_back(id)` (its bytes were kept).
    template <class TakeBack>
    void lost(std::size_t k, TakeBack&& take_back) {
        for (auto const id : copies_.release_all(k)) {
            workers_.released(k, book_[id].heur);
            if (book_[id].where != farm_book::state::sent || copies_.holders(id) > 0) continue;
            port_.statistics()[k].iterations -= 1; // counted where it runs
            take_back(id);
        }
    }

    /// A cancel's answer: the `n` tasks worker k dropped, released; a task
    /// no one else holds is cancelled (the farm stopped), else a copy runs on.
    std::size_t dropped(std::size_t k, std::uint64_t n, wire_reader& r) {
        workers_[k].cancelling = false;
        for (std::uint64_t i = 0; i < n; ++i) {
            auto const id = r.get<std::uint64_t>();
            if (!copies_.released(k, id)) continue;
            workers_.released(k, book_[id].heur);
            if (book_[id].where == farm_book::state::sent && copies_.holders(id) == 0) book_.cancel(id);
        }
        return static_cast<std::size_t>(n);
    }

    /// Once the producer has returned (`producing` false) and the queue is
    /// empty, each worker holding nothing (not the root's) gets a copy of a
    /// running task through `send_copy(k, id)`; once every task is resolved,
    /// workers still holding copies drop those they have not started.
    template <class SendCopy>
    void copy_out(bool producing, SendCopy&& send_copy) {
        if (producing || !book_.queue_empty()) return;
        if (book_.all_resolved()) {
            for (std::size_t k = 0; k < workers_.size(); ++k)
                if (workers_[k].count > 0 && !workers_[k].cancelling) {
                    workers_[k].cancelling = true;
                    port_.send_worker(k, kind::cancel, {});
                    port_.touch(k);
                }
            return;
        }
        auto const running = [this](std::uint64_t id) { return book_[id].where == farm_book::state::sent; };
        for (std::size_t k = 0; k < workers_.size(); ++k) {
            auto const& w = workers_[k];
            if (w.count > 0 || w.cancelling || w.receiving || w.departed || port_.is_own(k)) continue;
            auto const id = copies_.copy_for(k, book_.size(), running);
            if (!id) return; // every running task is held by all who could take it
            send_copy(k, *id);
        }
    }

    /// The copies, for the table every rank gets.
    void complete(loop_statistics& table) const {
        table.reissued = copies_.reissued();
        table.dropped = copies_.dropped();
    }

private:
    master_port<T>& port_;
    farm_book& book_;
    farm_workers& workers_;
    farm_copies copies_;
};

} // namespace loopsched::detail
