// A farm master's view of its workers (their speeds and shares, what each
// holds, which may be idle) and what moves work between them: Kazouris's
// redistribution (4.2)-(4.6).
#pragma once

#include <loopsched/detail/index_set.hpp>
#include <loopsched/error.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/tasks/farm_book.hpp>
#include <loopsched/runtime/tasks/farm_model.hpp>
#include <loopsched/runtime/core/wire.hpp>
#include <loopsched/schedule.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// A farm master's view of its workers: what each holds, its speed and share
/// (nSpeed and w(W)), the order fastest first, and which may be idle.
class farm_workers {
public:
    struct worker {
        worker_status status{};
        double speed = 1.0; ///< nSpeed: relative to the slowest worker
        double share = 1.0; ///< w(W): speed over the sum of speeds
        std::size_t count = 0;
        double heur_sum = 0.0;
        bool donating = false, receiving = false, cancelling = false, refused = false;
        bool departed = false; ///< it left the farm (departure): never idle, no share
    };

    /// `statuses`: by rank; `load_aware`: speeds from V/Q, else V; `capacity`:
    /// the workers each stands for (a group's), empty for one each.
    farm_workers(runtime_settings const& s, std::span<worker_status const> statuses, bool load_aware,
                 std::vector<std::size_t> capacity = {})
            : load_aware_(load_aware), workers_(s.workers()), capacity_(std::move(capacity)) {
        for (std::size_t k = 0; k < workers_.size(); ++k)
            workers_[k].status = statuses[static_cast<std::size_t>(s.worker_ranks[k])];
        update_speeds();
    }

    [[nodiscard]] worker& operator[](std::size_t k) noexcept { return workers_[k]; }
    [[nodiscard]] worker const& operator[](std::size_t k) const noexcept { return workers_[k]; }
    [[nodiscard]] std::size_t size() const noexcept { return workers_.size(); }
    [[nodiscard]] auto begin() const noexcept { return workers_.begin(); }
    [[nodiscard]] auto end() const noexcept { return workers_.end(); }
    [[nodiscard]] std::vector<double> speeds() const {
        std::vector<double> out;
        for (auto const& w : workers_) out.push_back(w.speed);
        return out;
    }

    /// How many tasks worker k may hold for `per_worker` each: a group holds
    /// that many for each of its workers plus one each at its sub-master, so
    /// that its workers never wait for the root.
    [[nodiscard]] std::size_t limit(std::size_t k, std::size_t per_worker) const noexcept {
        return capacity_.empty() ? per_worker : (per_worker + 1) * capacity_[k];
    }
    /// Worker k holds fewer than `limit(k, below)` tasks and takes more now.
    [[nodiscard]] bool idle(std::size_t k, std::size_t below) const noexcept {
        auto const& w = workers_[k];
        return w.count < limit(k, below) && !w.receiving && !w.cancelling && !w.departed;
    }
    /// Worker k left the farm: it is idle no more and its share goes to the others.
    void departed(std::size_t k) {
        workers_[k].departed = true;
        update_speeds();
        maybe_idle_.erase(position_[k]);
        if (std::ranges::all_of(workers_, &worker::departed))
            throw error("loopsched: every worker left the task farm (departure::leave) while tasks remained");
    }
    [[nodiscard]] bool groups() const noexcept { return !capacity_.empty(); }
    /// How many workers k stands for: a group's, or 1. A group holding no
    /// more tasks than that has none queued to give, and starves with fewer.
    [[nodiscard]] std::size_t stands_for(std::size_t k) const noexcept {
        return capacity_.empty() ? 1 : capacity_[k];
    }
    /// Worker k holds tasks, or a transfer or a cancel with it is under way.
    [[nodiscard]] bool holds(std::size_t k) const noexcept {
        auto const& w = workers_[k];
        return w.count > 0 || w.donating || w.receiving || w.cancelling;
    }

    /// A task of value `heur` went to worker k, or left it (its result, a move, a cancel).
    void took(std::size_t k, double heur) noexcept {
        if (workers_[k].count++ == 0) --empty_;
        workers_[k].heur_sum += heur;
        ++held_count_;
        held_heur_ += heur;
    }
    void released(std::size_t k, double heur) noexcept {
        if (--workers_[k].count == 0) ++empty_;
        workers_[k].heur_sum -= heur;
        --held_count_;
        held_heur_ -= heur;
    }
    /// A task worker k holds changed its heuristic value by `change` (the measure was chosen after it went).
    void revalued(std::size_t k, double change) noexcept {
        workers_[k].heur_sum += change;
        held_heur_ += change;
    }
    /// What all the workers hold: tasks, and their heuristic values summed
    /// (kept as tasks come and go: the master must not scan thousands of workers per decision).
    [[nodiscard]] std::size_t held_count() const noexcept { return held_count_; }
    /// How many workers hold no task (counted as tasks come and go).
    [[nodiscard]] std::size_t empty() const noexcept { return empty_; }
    [[nodiscard]] double held_heur() const noexcept { return held_heur_; }
    /// Worker k's answer to a cancel: the `n` ids in `r` it dropped; those
    /// still running there are cancelled in `book`. Returns how many were.
    std::size_t dropped(std::size_t k, std::uint64_t n, wire_reader& r, farm_book& book) {
        workers_[k].cancelling = false;
        std::size_t count = 0;
        for (std::uint64_t i = 0; i < n; ++i) {
            auto const id = r.get<std::uint64_t>();
            if (book.at(id).where != farm_book::state::sent) continue;
            released(k, book[id].heur);
            book.cancel(id);
            ++count;
        }
        return count;
    }

    /// Worker k's status as its request reports it: speeds follow it when load-aware.
    void report(std::size_t k, worker_status const& s) {
        if (!load_aware_ || workers_[k].status == s) return;
        workers_[k].status = s;
        update_speeds();
    }
    /// Worker k's tasks or state changed: it may be idle now.
    void may_idle(std::size_t k) {
        if (!workers_[k].departed) maybe_idle_.insert(position_[k]);
    }
    /// The start: the next worker round robin from the fastest that holds fewer than limit(k, per_worker) tasks.
    std::optional<std::size_t> next_starter(std::size_t per_worker) {
        for (std::size_t tried = 0; tried < order_.size(); ++tried) {
            std::size_t const k = order_[rr_];
            rr_ = (rr_ + 1) % order_.size();
            if (workers_[k].count < limit(k, per_worker) && !workers_[k].departed) return k;
        }
        return std::nullopt;
    }
    /// `serve(k)` for each worker that may be idle, the fastest first, while
    /// `more()`; a worker `serve` leaves busy is looked at no more until may_idle(k).
    /// With thousands of workers, a scan of all of them per request or
    /// submission was the master's cost.
    template <class More, class Serve>
    void serve_idle(More const& more, Serve const& serve) {
        for (auto at = maybe_idle_.next(0); at != index_set::npos && more(); at = maybe_idle_.next(at + 1))
            if (!serve(order_[at])) maybe_idle_.erase(at);
    }

private:
    void update_speeds() {
        double slowest = std::numeric_limits<double>::max(), sum = 0.0;
        auto raw = [&](worker const& w) { return load_aware_ ? w.status.power / w.status.run_queue : w.status.power; };
        for (auto const& w : workers_) slowest = std::min(slowest, raw(w));
        for (auto& w : workers_) sum += (w.speed = raw(w) / slowest) * (w.departed ? 0.0 : 1.0);
        for (auto& w : workers_) w.share = w.departed ? 0.0 : w.speed / sum;
        order_.resize(workers_.size());
        for (std::size_t k = 0; k < order_.size(); ++k) order_[k] = k;
        std::ranges::stable_sort(order_,
                                 [&](std::size_t a, std::size_t b) { return workers_[a].speed > workers_[b].speed; });
        position_.resize(order_.size());
        maybe_idle_.reset(order_.size());
        for (std::size_t i = 0; i < order_.size(); ++i) {
            position_[order_[i]] = i;
            if (!workers_[order_[i]].departed) maybe_idle_.insert(i);
        }
    }

    bool load_aware_;
    std::vector<worker> workers_;
    std::vector<std::size_t> capacity_;
    std::vector<std::size_t> order_;    ///< workers by speed, fastest first
    std::vector<std::size_t> position_; ///< each worker's place in order_
    index_set maybe_idle_;              ///< places in order_ of the workers that may be idle (all that are)
    std::size_t rr_ = 0;
    std::size_t held_count_ = 0;
    std::size_t empty_ = workers_.size();
    double held_heur_ = 0.0;
};

/// Kazouris's redistribution at a farm's master: which busy worker moves how
/// much of its work to an idle one, and the transfers under way.
template <Transport T>
class farm_redistribution {
public:
    farm_redistribution(master_port<T>& port, farm_settings const& fs, farm_cost_model const& model,
                        farm_workers& workers)
            : port_(port), fs_(fs), model_(model), workers_(workers) {}

    /// A worker's tasks in normalized time: (4.1) over what it holds.
    [[nodiscard]] double finish_normalized(farm_workers::worker const& w) const {
        return model_.total(w.heur_sum, static_cast<double>(w.count));
    }
    /// (4.1) over the master's queue (`queued` tasks, their heur summing to
    /// `queued_heur`) and every worker's: one sum (4.1 is linear in it; the
    /// floor under the estimates applies to the whole).
    [[nodiscard]] double estimated_total(double queued_heur, std::size_t queued) const {
        return model_.total(queued_heur + workers_.held_heur(), static_cast<double>(queued + workers_.held_count()));
    }

    /// (4.2)-(4.6): asks the busy worker estimated to finish last to move
    /// work to idle worker `to`. False if none was asked: then no slower idle
    /// worker would be either (its share (4.3) is smaller), and the caller
    /// stops asking until something changes.
    bool ask(std::size_t to) {
        double const all = estimated_total(0.0, 0);
        auto const busiest = last_to_finish(to);
        if (!busiest) return false;
        auto& b = workers_[*busiest];
        auto& idle_one = workers_[to];
        double const share = idle_one.share * all;                                              // (4.3)
        if (fs_.transfer_gain * finish_normalized(b) > share) return false;                     // (4.4)
        double const fair = finish_normalized(b) * idle_one.speed / (b.speed + idle_one.speed); // (4.5)
        idle_one.receiving = true;
        ++transfers_;
        send_transfer(*busiest, std::min(share, fair), port_.settings().worker_ranks[to], to); // (4.6)
        port_.touch(to); // it will hear from the donor, not from the master
        return true;
    }

    /// Producers in groups, another group's request (its sub-master `to_rank`,
    /// its power): the busy worker estimated to finish last sends that group
    /// its share of its tasks by power, (4.5) with the group as the receiver,
    /// and about `most` tasks at most (0: no limit). False if no worker holds
    /// more than the task it runs.
    bool lend(int to_rank, double power, std::size_t most) {
        auto const busiest = last_to_finish(workers_.size());
        if (!busiest) return false;
        auto const& b = workers_[*busiest];
        double amount = finish_normalized(b) * power / (b.speed + power);
        if (most > 0) // about `most` of its tasks, at their mean
            amount = std::min(amount, finish_normalized(b) * static_cast<double>(most) / static_cast<double>(b.count));
        send_transfer(*busiest, amount, to_rank, lent_to_group);
        return true;
    }
    /// Worker k's answer to lend(): the ids of the `n` tasks it sent the
    /// other group follow in `r`; each is lent unless its result is back already.
    void lent(std::size_t k, std::uint64_t n, wire_reader& r, farm_book& book) {
        auto& from = workers_[k];
        if (!from.donating) throw error("loopsched: protocol: tasks lent that nobody asked for");
        from.donating = false;
        if (n == 0) from.refused = true;
        for (std::uint64_t i = 0; i < n; ++i) {
            auto const id = r.get<std::uint64_t>();
            if (book.at(id).where != farm_book::state::sent) continue; // its result came first
            released_to_group(k, book.at(id).heur);
            book.lend(id);
        }
        port_.touch(k);
        workers_.may_idle(k);
    }

    /// Worker k sent a task (estimate `heur`) to another group: it counts
    /// neither in k's load nor among the tasks k ran.
    void released_to_group(std::size_t k, double heur) {
        workers_.released(k, heur);
        --port_.statistics()[k].iterations;
    }

    /// Worker k's answer to a transfer: the ids of the `n` tasks it moved to
    /// worker j follow in `r` (none: it refused). Returns how many moved.
    std::uint64_t answered(std::size_t k, std::size_t j, std::uint64_t n, wire_reader& r, int source, farm_book& book) {
        auto& from = workers_[k];
        if (j >= workers_.size() || !from.donating)
            throw error("loopsched: protocol: a transfer nobody asked for (rank " + std::to_string(source) + ")");
        from.donating = false;
        workers_[j].receiving = false;
        --transfers_;
        if (n == 0)
            from.refused = true;
        else
            ++port_.statistics()[j].chunks;
        for (std::uint64_t i = 0; i < n; ++i) {
            auto const id = r.get<std::uint64_t>();
            auto& t = book.at(id);
            if (t.where != farm_book::state::sent) continue; // already answered: it counted against the donor
            workers_.released(k, t.heur);
            workers_.took(j, t.heur);
            t.owner = static_cast<int>(j);
            --port_.statistics()[k].iterations;
            ++port_.statistics()[j].iterations;
        }
        port_.touch(j);
        workers_.may_idle(j);
        return n;
    }
    /// Transfers asked and not yet answered.
    [[nodiscard]] bool under_way() const noexcept { return transfers_ != 0; }

private:
    /// (4.2): the busy worker (holding more than it runs, not already giving
    /// or receiving, not refused) estimated to finish last, other than `not_this`.
    [[nodiscard]] std::optional<std::size_t> last_to_finish(std::size_t not_this) const {
        std::optional<std::size_t> busiest;
        double latest = -1.0;
        for (std::size_t k = 0; k < workers_.size(); ++k) {
            auto const& w = workers_[k];
            if (k == not_this || w.count <= workers_.stands_for(k) || w.donating || w.receiving || w.refused ||
                w.cancelling)
                continue;
            if (double const finish = finish_normalized(w) / w.speed; finish > latest) {
                latest = finish;
                busiest = k;
            }
        }
        return busiest;
    }
    /// Asks worker k to send `amount` of normalized work to rank `to_rank` (worker `to_index`, or lent_to_group).
    void send_transfer(std::size_t k, double amount, int to_rank, std::uint64_t to_index) {
        farm_transfer const transfer{amount,
                                     static_cast<std::int64_t>(to_rank),
                                     to_index,
                                     model_.lambda(),
                                     model_.h(),
                                     model_.nc(),
                                     model_.ready() ? 1u : 0u,
                                     model_.least()};
        workers_[k].donating = true;
        port_.send_worker(k, kind::transfer, std::as_bytes(std::span(&transfer, 1)));
    }

    master_port<T>& port_;
    farm_settings const& fs_;
    farm_cost_model const& model_;
    farm_workers& workers_;
    std::size_t transfers_ = 0;
};

} // namespace loopsched::detail
