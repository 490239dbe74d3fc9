// The task farm's worker client (runtime/tasks/farm.hpp tells the engine): it runs
// its tasks largest first, replies with each result at once, answers
// transfers and cancels, and tells its master a running task's revised estimate.
#pragma once

#include <loopsched/departure.hpp>
#include <loopsched/error.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/tasks/farm_model.hpp>
#include <loopsched/runtime/core/profile.hpp>
#include <loopsched/this_task.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::detail {

// ---------------------------------------------------------------- worker

/// The farm's worker client. `Run(task bytes, result bytes)` runs one task and
/// appends its result; the worker times it and replies with it at once.
/// `hears_estimates`: the master places by estimates, so this_task::estimate()
/// from a running task reaches it.
template <Transport T, class Run>
class farm_worker : private task_listener {
public:
    static constexpr worker_hooks hooks{.waited = true};

    farm_worker(worker_port<T>& port, rank_profile& profile, Run& run, bool hears_estimates = false)
            : port_(port), profile_(profile), run_(run), status_(profile.status()),
              hears_estimates_(hears_estimates) {
        mine_.rank = port.rank();
    }

    void on_work(message_view m) {
        wire_reader r(m.payload);
        for (auto n = r.get<std::uint64_t>(); n > 0; --n) {
            held_task t{r.get<farm_task_header>(), {}};
            auto const b = r.get_raw(static_cast<std::size_t>(t.head.bytes));
            t.payload.assign(b.begin(), b.end());
            queue_.push_back(std::move(t));
            std::push_heap(queue_.begin(), queue_.end(), runs_later);
        }
        ++mine_.chunks;
        // tasks that reached it after it left, or as it leaves (from a polling task: at its next step)
        if ((left_ || leaving()) && !in_task_) depart();
    }
    [[nodiscard]] bool can_step() const noexcept { return !queue_.empty(); }
    /// Transfers and cancels are looked for between tasks; with none left the
    /// worker's next receive blocks anyway, so no look (an MPI_Iprobe) then.
    [[nodiscard]] bool poll_after_step() const noexcept { return !queue_.empty(); }

    /// Runs the largest task and replies with its result (or, asked to
    /// leave, gives its tasks back instead).
    double step() {
        if (leaving()) {
            depart();
            return port_.now();
        }
        std::pop_heap(queue_.begin(), queue_.end(), runs_later);
        held_task t = std::move(queue_.back());
        queue_.pop_back();
        double const start = port_.now();
        double end = start;
        results_.add_written(static_cast<index_t>(t.head.id), 1, [&](std::vector<std::byte>& out) {
            std::size_t const at = out.size();
            out.resize(at + sizeof(double));
            running_ = t.head.id;
            listening const listen(this); // this_task::estimate() and poll() from the body
            in_task_ = true;
            profile_.run([&] { run_(t.payload, out); });
            in_task_ = false;
            end = port_.now(); // the result's encoding is counted with the task
            double const seconds = end - start;
            std::memcpy(out.data() + at, &seconds, sizeof seconds);
            mine_.compute_seconds += seconds;
        });
        if (port_.settings().trace) trace_.push_back({port_.rank(), static_cast<index_t>(t.head.id), 1, start, end});
        ++mine_.iterations;
        if (reported_) return end; // stopped while it ran (it polled): the farm has every result
        status_ = profile_.status(end);
        port_.request(status_, chunk_timing{1, end - start, end - start}, results_);
        return end;
    }

    void on_message(kind what, message_view m) {
        if (what == kind::transfer) {
            give(wire_reader(m.payload).get<farm_transfer>());
        } else if (what == kind::cancel) {
            wire_writer w;
            w.put(dropped_tasks).put(static_cast<std::uint64_t>(queue_.size()));
            for (auto const& t : queue_) w.put(t.head.id);
            queue_.clear();
            port_.send_master(kind::moved, w.view());
        } else {
            throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) +
                        " at a task farm worker");
        }
    }
    void waited(double seconds) noexcept { mine_.wait_seconds += seconds; }

    /// Its report (the stop came): after it nothing more goes out, not even
    /// the result of a task whose poll heard the stop (another copy's came first).
    worker_statistics statistics(double) {
        reported_ = true;
        return mine_;
    }
    [[nodiscard]] result_blocks& results() noexcept { return results_; }
    [[nodiscard]] std::span<chunk_event const> trace() const noexcept { return trace_; }

private:
    [[nodiscard]] bool leaving() const noexcept {
        auto const* d = port_.settings().leaving;
        return d && d->asked();
    }
    /// Its owner wants the machine back: the tasks it has not started go back
    /// to the master with their bytes; it takes no more and waits for its stop.
    void depart() {
        wire_writer w;
        w.put(static_cast<std::uint64_t>(queue_.size()));
        for (auto const& t : queue_) write_task(w, t.head, t.payload);
        queue_.clear();
        left_ = true;
        port_.send_master(kind::leave, w.view());
    }

    /// this_task::estimate(remaining) from the running task: told to the master
    /// at once when it places by estimates.
    bool revise(double remaining) override {
        if (!hears_estimates_) return false;
        farm_revision const r{running_, remaining};
        port_.send_master(kind::info, std::as_bytes(std::span(&r, 1)));
        return true;
    }
    /// this_task::poll() from the running task: a transfer or a cancel is
    /// answered from the queue now (the running task is not in it), at most
    /// once per poll interval.
    void poll() override {
        if (left_ || leaving()) return; // it gives its tasks back at its next step
        double const now = port_.now();
        if (now - polled_ < port_.settings().poll_interval) return;
        polled_ = now;
        port_.pump(false);
    }

    /// A transfer: the largest tasks whose estimates fit in the amount go to
    /// the idle worker; this worker keeps at least one.
    void give(farm_transfer const& ask) {
        std::sort_heap(queue_.begin(), queue_.end(), runs_later); // ascending: the largest last
        std::vector<held_task> moving;
        double sum = 0.0;
        for (std::size_t i = queue_.size(); i-- > 0 && queue_.size() > 1;) {
            double const e = ask.estimate(queue_[i].head.heur);
            if (sum + e > ask.amount) continue;
            sum += e;
            moving.push_back(std::move(queue_[i]));
            queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
        }
        std::make_heap(queue_.begin(), queue_.end(), runs_later);
        wire_writer told;
        told.put(ask.to_index).put(static_cast<std::uint64_t>(moving.size()));
        // Another group asked (lent_to_group): it waits for an answer, none included.
        if (!moving.empty() || ask.to_index == lent_to_group) {
            wire_writer w;
            w.put(static_cast<std::uint64_t>(moving.size()));
            for (auto const& t : moving) {
                write_task(w, t.head, t.payload);
                told.put(t.head.id);
            }
            int const to = static_cast<int>(ask.to_rank);
            if (to == port_.rank()) throw error("loopsched: protocol: a transfer to the worker that holds the tasks");
            port_.send_rank(to, kind::work, std::move(w).take());
        }
        port_.send_master(kind::moved, told.view());
    }

    worker_port<T>& port_;
    rank_profile& profile_;
    Run& run_;
    std::vector<held_task> queue_; ///< a max-heap: the largest on top
    worker_statistics mine_;
    result_blocks results_;
    std::vector<chunk_event> trace_;
    worker_status status_;
    bool hears_estimates_;
    std::uint64_t running_ = 0; ///< the task running now, or last
    double polled_ = 0.0;       ///< when this_task::poll() last looked at messages
    bool in_task_ = false, reported_ = false;
    bool left_ = false;         ///< it left the farm (departure)
};

} // namespace loopsched::detail
