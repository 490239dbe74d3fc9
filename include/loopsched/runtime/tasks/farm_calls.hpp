// What a task farm's engine needs of the user's types, erased at its seams:
// the body on a task's bytes, the producer over the farm's driver, and where
// results reaching the root go; run_task_farm puts the user's types there.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/runtime/core/payload.hpp>
#include <loopsched/runtime/core/statistics.hpp>
#include <loopsched/task_farm_handle.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// What the farm engine needs of the user's functions, erased, so that the
/// engine is compiled once per transport and result handling rather than once
/// per body and producer (one indirect call per task, on the worker; the
/// root's delivery of results stays direct, since the root serves everyone).
struct farm_calls {
    /// The body on one task: the task's bytes in, the result's bytes appended to `result`.
    std::function<void(std::span<std::byte const> task, std::vector<std::byte>& result)> run;
    /// The producer, on the root, submitting through the farm's driver.
    std::function<void(farm_driver& driver)> produce;
    std::uint64_t types = 0; ///< the task and result types' fingerprint, agreed by the ranks
};

/// What a farm's run leaves besides its results.
struct farm_run {
    loop_statistics statistics;
    std::vector<std::uint64_t> cancelled; ///< on the root, sorted
    std::size_t moved = 0;                ///< on the root
};

/// Where a result reaching the root goes: the producer's handle, which
/// decodes it (one type per task and result type, not per body).
template <class Handle>
struct deliver_to {
    Handle* handle;
    void operator()(std::uint64_t id, std::span<std::byte const> result) const { handle->deliver(id, result); }
};

/// Where results reaching the root go, through a function pointer: the
/// separately compiled engine's form of deliver_to (one engine for every
/// task and result type).
struct result_sink {
    void* target = nullptr;
    void (*deliver)(void* target, std::uint64_t id, std::span<std::byte const> result) = nullptr;

    template <class Handle>
    static result_sink to(Handle& handle) {
        return {&handle, [](void* t, std::uint64_t id, std::span<std::byte const> result) {
                    static_cast<Handle*>(t)->deliver(id, result);
                }};
    }
    void operator()(std::uint64_t id, std::span<std::byte const> result) const { deliver(target, id, result); }
};

/// A task farm with the user's types: encodes tasks and results at the seams
/// of farm_calls and runs `engine(calls, handle)`, which returns the farm_run;
/// `out` (a farm_outcome) gets the results (on the root), the cancelled ids,
/// the moves and the statistics.
template <transferable Task, class Produce, class Body, class Engine, class Outcome>
void run_task_farm(Produce& produce, Body& body, Engine&& engine, Outcome& out) {
    using Result = farm_result_t<Body, Task>;
    static_assert(transferable<Result>, "task_farm: body(task) must return a transferable (or nothing)");
    task_farm_handle<Task, Result> handle;
    farm_calls const calls{
            .run =
                    [&body](std::span<std::byte const> task_bytes, std::vector<std::byte>& result) {
                        Task const task = from_bytes<Task>(task_bytes);
                        if constexpr (std::is_void_v<std::invoke_result_t<Body&, Task const&>>) {
                            body(task);
                            write_values(result, std::span<Result const>());
                        } else {
                            Result const r = body(task);
                            write_values(result, std::span<Result const>(&r, 1));
                        }
                    },
            .produce =
                    [&](farm_driver& driver) {
                        handle.attach(&driver);
                        produce(handle);
                        handle.attach(nullptr);
                    },
            .types = types_fingerprint<Task, Result>()};
    farm_run run = engine(calls, handle);
    out.statistics = std::move(run.statistics);
    out.cancelled = std::move(run.cancelled);
    out.moved = run.moved;
    out.value = handle.take_results(); // empty but on the root
}

} // namespace loopsched::detail
