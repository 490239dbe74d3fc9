// Work moving between the groups of a hierarchical task farm whose groups
// make their own tasks: a group whose queue ran dry asks another group's
// sub-master for tasks, a sub-master lends its share by power, and the
// results of borrowed tasks go back to the group that made them. The group's
// master keeps the ledger (farm_lending); this is the exchange's protocol.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/core/wire.hpp>
#include <loopsched/runtime/tasks/farm_book.hpp>
#include <loopsched/runtime/tasks/farm_model.hpp>
#include <loopsched/runtime/tasks/farm_worker.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// A group's sub-master's side of the exchange with the other groups.
/// `Master` is the group's farm master.
template <Transport T, class Master>
class farm_group_exchange {
public:
    /// `power`: the group's, sent with its requests and weighing its loans.
    farm_group_exchange(loop_link<T>& link, double power) : link_(link), power_(power) {}
    void attach(Master& master) noexcept { master_ = &master; }

    /// With producers in groups, work moves between groups: once this group's
    /// producer returned and its queue ran dry, it asks another group's
    /// sub-master (`sub_masters`: every group's, `group`: this one's place),
    /// chosen at random among those that have not refused, for queued tasks.
    void start(std::vector<int> sub_masters, std::size_t group) {
        sub_masters.erase(sub_masters.begin() + static_cast<std::ptrdiff_t>(group));
        others_ = std::move(sub_masters);
        refused_.assign(others_.size(), false);
        untried_ = others_.size();
        random_.seed(static_cast<std::uint32_t>(link_.rank()) * 7919u + 17u);
    }
    /// A result for the group's task `id`: true if the task was borrowed, and
    /// the result then goes back to the group that lent it (send_returns).
    bool returned(std::uint64_t id, std::span<std::byte const> block) {
        auto const at = master_->lending().borrowed_at(id);
        if (!at) return false;
        give_back(lenders_[*at], block);
        return true;
    }
    /// The results of tasks this group lent: [n] then n x [id][bytes][block].
    void lent_results(message_view m) {
        wire_reader r(m.payload);
        for (auto n = r.get<std::uint64_t>(); n > 0; --n) {
            auto const id = r.get<std::uint64_t>();
            auto const size = r.get<std::uint64_t>();
            master_->lent_result(id, r.get_raw(static_cast<std::size_t>(size)));
        }
    }

    /// Asks another group for work once this one's producer returned or waits
    /// for its results (a work cycle's end), its queue is empty, some worker
    /// holds nothing and some task still runs here (else the group is done,
    /// or its cycle is). Its power goes with the request.
    void maybe_borrow() {
        // A refusal holds for the cycle it came in: the others' queues have changed by the next one.
        bool const waits = master_->producer_waits();
        if (waited_ && !waits) {
            refused_.assign(others_.size(), false);
            untried_ = others_.size();
        }
        waited_ = waits;
        if (master_->lending().borrowing() || untried_ == 0 || (master_->producing() && !waits) ||
            master_->queued() > 0 || !master_->starving() ||
            (waits ? master_->lending().own_resolved() : master_->all_resolved()))
            return;
        std::uniform_int_distribution<std::size_t> pick(0, untried_ - 1);
        std::size_t nth = pick(random_), v = 0;
        for (;; ++v)
            if (!refused_[v] && nth-- == 0) break;
        // At a cycle's end the producer's next tasks follow soon: a task for each idle worker, no more.
        wire_writer w;
        w.put(power_).put(static_cast<std::uint64_t>(waits ? master_->idle_workers() : 0));
        link_.send(others_[v], kind::steal, w.view());
        asked_ = others_[v];
        master_->lending().set_borrowing(true);
    }
    /// A request from another group: its share by power of the tasks queued
    /// here (at least one; at most the number it asks for, if it does), the
    /// best first; none when the queue is empty.
    void lend_to(message_view m) {
        wire_reader r(m.payload);
        double const thief = r.get<double>();
        auto const most = static_cast<std::size_t>(r.get<std::uint64_t>());
        std::size_t const queued = master_->queued();
        std::size_t count = 0;
        if (queued > 0 && thief > 0.0)
            count = std::max<std::size_t>(
                    1, static_cast<std::size_t>(static_cast<double>(queued) * thief / (thief + power_)));
        if (most > 0) count = std::min(count, most);
        if (count == 0 && thief > 0.0 && master_->lend_from_workers(m.source, thief, most)) return; // a worker answers
        wire_writer tasks;
        std::size_t const n = master_->lending().lend(count, [&](std::uint64_t id, farm_book::task const& t) {
            write_task(tasks, farm_task_header{id, t.heur, t.priority, -static_cast<double>(id), t.payload.size()},
                       t.payload);
        });
        wire_writer w;
        w.put(static_cast<std::uint64_t>(n)).put_raw(tasks.view());
        link_.send(m.source, kind::work, w.view());
    }
    /// The answer to this group's request, from the sub-master asked or one of
    /// its workers: the tasks become this group's, their results go back to
    /// that sub-master; none: that group has none to lend (it is not asked again).
    void take_lent(message_view m) {
        if (!master_->lending().borrowing()) throw error("loopsched: protocol: tasks lent to a group that did not ask");
        wire_reader r(m.payload);
        auto const n = r.get<std::uint64_t>();
        if (n == 0) {
            auto const v = static_cast<std::size_t>(std::ranges::find(others_, asked_) - others_.begin());
            if (v < refused_.size() && !refused_[v]) {
                refused_[v] = true;
                --untried_;
            }
        }
        for (std::uint64_t i = 0; i < n; ++i) {
            auto const head = r.get<farm_task_header>();
            auto const bytes = r.get_raw(static_cast<std::size_t>(head.bytes));
            std::optional<double> cost;
            if (master_->with_cost()) cost = head.heur;
            lenders_.push_back(lender{asked_, head.id}); // first: its place is known once it is submitted
            master_->submit_borrowed(std::vector<std::byte>(bytes.begin(), bytes.end()), cost, head.priority);
        }
        master_->lending().set_borrowing(false);
    }

    /// The results of borrowed tasks held this turn, each group's in one message.
    void send_returns() {
        for (auto& r : returns_) {
            if (r.held == 0) continue;
            wire_writer w;
            w.put(static_cast<std::uint64_t>(r.held)).put_raw(std::span<std::byte const>(r.results));
            link_.send(r.rank, kind::reply, w.view());
            r.results.clear();
            r.held = 0;
        }
    }

private:
    /// A borrowed task's maker.
    struct lender {
        int rank = -1;        ///< the sub-master whose task this is
        std::uint64_t id = 0; ///< its id there
    };
    /// Results of borrowed tasks go back to their group in one message per
    /// turn of the loop (what one look at the transport brought), not one per
    /// task. Holding them longer, until none of that group's tasks was left
    /// here, deadlocked: tasks lent back and forth made two groups each wait
    /// for the other's results.
    struct returns {
        int rank = -1;
        std::size_t held = 0;
        std::vector<std::byte> results; ///< [id][bytes][block] each
    };
    void give_back(lender const& from, std::span<std::byte const> block) {
        auto it = std::ranges::find(returns_, from.rank, &returns::rank);
        if (it == returns_.end()) it = returns_.insert(returns_.end(), returns{from.rank, 0, {}});
        wire_writer entry;
        entry.put(from.id).put(static_cast<std::uint64_t>(block.size())).put_raw(block);
        it->results.insert(it->results.end(), entry.view().begin(), entry.view().end());
        ++it->held;
    }

    loop_link<T>& link_;
    double power_;
    Master* master_ = nullptr;
    std::vector<lender> lenders_;  ///< by place among the borrowed tasks (farm_master::borrowed_at)
    std::vector<returns> returns_; ///< by lending group
    std::vector<int> others_;      ///< the other groups' sub-masters
    std::vector<bool> refused_;    ///< by others_: had nothing to lend
    std::size_t untried_ = 0;      ///< others_ not refused
    int asked_ = -1;               ///< the sub-master asked (the master says whether a request is out)
    bool waited_ = false;          ///< the producer waited at a cycle's end at the last look
    std::minstd_rand random_;
};

} // namespace loopsched::detail
