// Where a task farm's producer runs: its handle's driver over a farm master
// and its loop, on the root or (producers in groups) on a sub-master.
#pragma once

#include <loopsched/detail/group_place.hpp>
#include <loopsched/error.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/tasks/farm_calls.hpp>
#include <loopsched/task_farm_handle.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// Where a producer runs: which group (0 of 1, all the power: the root's).
struct producer_place {
    group_place place;
    bool root = true; ///< on the root, which ends the farm on a misuse; a sub-master tells the root
};

/// The producer's side of a handle: the farm's master and its loop (the
/// root's, or with producers in groups a sub-master's).
template <class Loop, class Master>
class farm_driver_on : public farm_driver {
public:
    farm_driver_on(Loop& loop, Master& master, producer_place place = {})
            : loop_(loop), master_(master), place_(place) {}

    std::uint64_t submit(std::vector<std::byte> task, std::optional<double> cost, double priority) override {
        std::uint64_t id = 0;
        try {
            id = master_.submit(std::move(task), cost, priority);
        } catch (invalid_parameter const&) { // a misuse, not the producer's own failure: named as such everywhere
            if (!place_.root) throw;
            loop_.master().fail(failure::current(loop_.master().settings().root, false));
        }
        master_.check_limits();
        loop_.master().settle();
        loop_.poll(); // replies that arrived meanwhile free workers for the next tasks
        return master_.lending().producer_id(id);
    }
    void wait_all() override {
        master_.set_flushing(true);
        loop_.master().settle();
        loop_.run_until([&] { return master_.lending().own_resolved(); }); // not tasks other groups lent this one
        master_.set_flushing(false);
    }
    [[nodiscard]] bool stopping() const override { return master_.stopping(); }
    [[nodiscard]] group_place place() const override { return place_.place; }

private:
    Loop& loop_;
    Master& master_;
    producer_place place_;
};

/// Runs the producer, if any, over `master` on `loop` (opened), then the loop
/// to its end: the root's, or with producers in groups a sub-master's (and
/// then the root's without one).
template <class Loop, class Master>
void produce_and_run(Loop& loop, Master& master, farm_calls const* calls, int self, producer_place place = {}) {
    master.start_clock();
    farm_driver_on<Loop, Master> driver(loop, master, place);
    if (calls) calls->produce(driver);
    try {
        master.finish_production();
    } catch (invalid_parameter const&) {
        if (!place.root) throw;
        loop.master().fail(failure::current(self, false));
    }
    loop.master().settle();
    loop.run(); // to the last result and the table
}

} // namespace loopsched::detail
