// Work moving between the groups of a hierarchical task farm, as a group's
// master keeps it: the tasks other groups lent this one, and the queued tasks
// it gives up or lends to another group (farm_relay carries them).
#pragma once

#include <loopsched/runtime/tasks/farm_book.hpp>
#include <loopsched/runtime/tasks/farm_model.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace loopsched::detail {

/// A group master's ledger of the tasks that cross between groups. Borrowed
/// tasks take ids in the group's book, but its producer never sees them:
/// its ids count its own tasks only (producer_id).
class farm_lending {
public:
    farm_lending(farm_book& book, farm_cost_model const& model) noexcept : book_(book), model_(model) {}

    /// Task `id` (just submitted) is one another group lent this one.
    void borrowed_task(std::uint64_t id) {
        borrowed_.push_back(id);
        ++borrowed_open_;
    }
    /// Task `id`'s result is in (from a worker, or from the group it was lent to).
    void result_in(std::uint64_t id) {
        if (borrowed_open_ > 0 && borrowed(id)) --borrowed_open_;
    }
    /// Every task this group's producer made has its result (or was
    /// cancelled): its wait_all ends without waiting for borrowed tasks.
    [[nodiscard]] bool own_resolved() const noexcept { return book_.unresolved() == borrowed_open_; }
    /// Task `id`'s id as this group's producer knows it (creation order from
    /// 0 among its own tasks): less the borrowed tasks before it, which a
    /// group waiting at a work cycle's end takes between its own.
    [[nodiscard]] std::uint64_t producer_id(std::uint64_t id) const {
        return id - static_cast<std::uint64_t>(std::ranges::lower_bound(borrowed_, id) - borrowed_.begin());
    }
    /// Where task `id` is among the borrowed ones (borrowed_task's order), if it is one.
    [[nodiscard]] std::optional<std::size_t> borrowed_at(std::uint64_t id) const {
        auto const it = std::ranges::lower_bound(borrowed_, id);
        if (it == borrowed_.end() || *it != id) return std::nullopt;
        return static_cast<std::size_t>(it - borrowed_.begin());
    }
    [[nodiscard]] bool borrowed(std::uint64_t id) const { return borrowed_at(id).has_value(); }

    /// Asked by its root to move work to another group: queued tasks, the
    /// best first, while their estimates fit in the transfer's amount, each
    /// to `send(id, task)` and then resolved here. Returns how many went.
    template <class Send>
    std::size_t give_up(farm_transfer const& ask, Send&& send) {
        double sum = 0.0;
        auto const fits = [&](farm_book::task const& t) {
            sum += ask.estimate(t.heur);
            return sum <= ask.amount;
        };
        return send_queued(std::numeric_limits<std::size_t>::max(), fits, send,
                           [&](std::uint64_t id) { book_.moved_away(id); });
    }
    /// Producers in groups: lends up to `count` queued tasks, the best first,
    /// to another group's sub-master, each to `send(id, task)`. Each stays
    /// this group's task until its result comes back. Returns how many went.
    template <class Send>
    std::size_t lend(std::size_t count, Send&& send) {
        return send_queued(
                count, [](farm_book::task const&) { return true; }, send, [&](std::uint64_t id) { book_.lend(id); });
    }

    /// While this group waits for another group's answer to its request for
    /// work, it is not done and its idle workers wait (they are not stopped).
    void set_borrowing(bool on) noexcept { borrowing_ = on; }
    [[nodiscard]] bool borrowing() const noexcept { return borrowing_; }

private:
    /// Up to `most` queued tasks, the best first, while `fits(task)`, each to
    /// `send(id, task)` and then `mark(id)`. Returns how many went.
    template <class Fits, class Send, class Mark>
    std::size_t send_queued(std::size_t most, Fits&& fits, Send&& send, Mark&& mark) {
        std::size_t n = 0;
        for (; n < most && !book_.queue_empty(); ++n) {
            auto const id = book_.take_best(book_.ordered_by_heur() && model_.lambda() < 0.0);
            if (!fits(book_[id])) {
                book_.enqueue(id);
                break;
            }
            send(id, book_[id]);
            mark(id);
        }
        return n;
    }

    farm_book& book_;
    farm_cost_model const& model_;
    std::vector<std::uint64_t> borrowed_; ///< ids of tasks other groups lent, increasing
    std::size_t borrowed_open_ = 0;       ///< of those, without their result yet
    bool borrowing_ = false;
};

} // namespace loopsched::detail
