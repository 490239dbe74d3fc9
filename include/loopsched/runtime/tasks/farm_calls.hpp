// What a task farm's engine needs of the user's types, erased at its seams:
// the body on a task's bytes, the producer over the farm's driver, and where
// results reaching the root go; farm_seams puts the user's types there.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/payload.hpp>
#include <loopsched/statistics.hpp>
#include <loopsched/task_farm_handle.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// What the farm engine needs of the user's functions, erased, so that the
/// engine is compiled once per transport and result handling rather than once
/// per body and producer (one indirect call per task, on the worker; the
/// root's delivery of results stays direct, since the root serves everyone).
/// Plain function pointers over the caller's farm_seams, as dnc_calls.
struct farm_calls {
    void* seams = nullptr; ///< the caller's farm_seams (alive for the run)
    void (*run_task)(void* seams, std::span<std::byte const> task, std::vector<std::byte>& result) = nullptr;
    void (*produce_tasks)(void* seams, farm_driver& driver) = nullptr;
    std::uint64_t types = 0; ///< the task and result types' fingerprint, agreed by the ranks

    /// The body on one task: the task's bytes in, the result's bytes appended to `result`.
    void run(std::span<std::byte const> task, std::vector<std::byte>& result) const { run_task(seams, task, result); }
    /// The producer, on the root, submitting through the farm's driver.
    void produce(farm_driver& driver) const { produce_tasks(seams, driver); }
};

/// Where a result reaching the root goes: the producer's handle, which
/// decodes it (one type per task and result type, not per body).
template <class Handle>
struct deliver_to {
    Handle* handle;
    void operator()(std::uint64_t id, std::span<std::byte const> result) const { farm_handle_access::deliver(*handle, id, result); }
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
                    farm_handle_access::deliver(*static_cast<Handle*>(t), id, result);
                }};
    }
    void operator()(std::uint64_t id, std::span<std::byte const> result) const { deliver(target, id, result); }
};

/// A task farm's user side: the producer and the body behind farm_calls, the
/// producer's handle, and the outcome made from the engine's run. Building it
/// runs nothing; the facade passes calls() and a delivery to the engine.
template <transferable Task, class Produce, class Body>
class farm_seams {
public:
    using result_type = farm_result_t<Body, Task>;
    using handle_type = task_farm_handle<Task, result_type>;
    static_assert(transferable<result_type>, "task_farm: body(task) must return a transferable (or nothing)");

    farm_seams(Produce& produce, Body& body) : produce_(produce), body_(body) {}
    farm_seams(farm_seams const&) = delete; // calls() points at it
    farm_seams& operator=(farm_seams const&) = delete;

    [[nodiscard]] farm_calls calls() {
        return {.seams = this,
                .run_task =
                        [](void* s, std::span<std::byte const> task_bytes, std::vector<std::byte>& result) {
                            auto& self = *static_cast<farm_seams*>(s);
                            Task const task = from_bytes<Task>(task_bytes);
                            if constexpr (std::is_void_v<std::invoke_result_t<Body&, Task const&>>) {
                                self.body_(task);
                                write_values(result, std::span<result_type const>());
                            } else {
                                result_type const r = self.body_(task);
                                write_values(result, std::span<result_type const>(&r, 1));
                            }
                        },
                .produce_tasks =
                        [](void* s, farm_driver& driver) {
                            auto& self = *static_cast<farm_seams*>(s);
                            farm_handle_access::attach(self.handle_, &driver);
                            self.produce_(self.handle_);
                            farm_handle_access::attach(self.handle_, nullptr);
                        },
                .types = types_fingerprint<Task, result_type>()};
    }
    /// Results reaching the root, for an engine instantiated here.
    [[nodiscard]] deliver_to<handle_type> delivery() noexcept { return {&handle_}; }
    /// The same through a function pointer, for a compiled engine.
    [[nodiscard]] result_sink sink() noexcept { return result_sink::to(handle_); }
    /// The call's outcome: the run's and, on the root, the results.
    [[nodiscard]] farm_outcome<result_type> outcome(farm_run&& run) {
        farm_outcome<result_type> out;
        take_run(std::move(run), out);
        out.value = farm_handle_access::take_results(handle_); // empty but on the root
        return out;
    }

private:
    Produce& produce_;
    Body& body_;
    handle_type handle_;
};

} // namespace loopsched::detail
