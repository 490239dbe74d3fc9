// What every algorithm returns: outcome<Value>, the run's value (on the root)
// and its statistics (on every rank), or a type derived from it with the
// algorithm's report (farm_outcome, dnc_outcome, doacross_outcome); and what
// every engine returns to its facade (detail::engine_run).
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/statistics.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {

// A DOACROSS loop's outcome names these; their definitions come with the
// loop's own headers (dependence/layout.hpp, adaptor/interval_model.hpp,
// space/window.hpp), so that an outcome of another algorithm does not parse them.
struct doacross_layout;
struct interval_model;
template <class T, std::size_t N>
class window;

/// A run's value (filled on the root rank; default-constructed elsewhere) and
/// its statistics (on every rank, the trace on the root only).
template <class Value>
struct outcome {
    Value value{};              ///< the run's result, on the root rank
    loop_statistics statistics; ///< the run's statistics, on every rank
};

/// A run that gathers nothing (a parallel_for without gather): its statistics only.
template <>
struct outcome<void> {
    loop_statistics statistics; ///< the run's statistics, on every rank
};

/// The one way to ask a loop for its results on the root rank, an argument
/// after the body: parallel_for's `gather<R>{per_iteration}` collects the
/// values of type R the body writes for each iteration; parallel_for_doacross's
/// `gather<>{}` collects the fields the loop writes. Without it nothing is
/// gathered and each rank sees its own chunks only, in the body. (Farms and
/// divide-and-conquer always return their results: they are the run's value.)
template <class R = void>
requires std::is_void_v<R> || transferable<R>
struct gather {
    std::size_t per_iteration = 1; ///< values of type R each iteration writes
};

/// parallel_for_doacross's: the loop's fields, whole, on the root.
template <>
struct gather<void> {};

/// A gathering parallel_for's outcome: per_iteration values of iteration i at
/// [i * per_iteration, (i + 1) * per_iteration) of `value`.
template <class R>
using gathered = outcome<std::vector<R>>;

/// What a farm reports besides its results (on the root).
struct farm_report {
    std::vector<std::uint64_t> cancelled; ///< the ids of cancelled tasks, sorted
    std::size_t moved = 0;                ///< tasks a busy worker passed to an idle one (redistribution)
};

/// A farm's outcome: on the root, every task's result by creation order in
/// `value` (unless a callback took them) and the report; the statistics on
/// every rank.
template <class Result>
struct farm_outcome : outcome<std::vector<Result>>, farm_report {};

/// What divide and conquer reports besides its result: one row per worker (on the root, by rank).
struct dnc_report {
    std::vector<dnc_worker_statistics> workers; ///< one row per worker, by rank, on the root
};

/// A divide-and-conquer run's outcome: the result in `value` (on the root; a
/// default value elsewhere), the workers' rows, and the statistics on every rank.
template <class Result>
struct dnc_outcome : outcome<Result>, dnc_report {};

namespace detail {
/// X, named so that it depends on N: a class template's base of that type is
/// then made where the template is used, not where it is defined.
template <class X, std::size_t N>
struct depends_on {
    using type = X;
};
} // namespace detail

/// What a DOACROSS loop reports besides its fields: the layout and the
/// synchronization interval that ran. (A template only so that its members'
/// types may be incomplete here: use doacross_report.)
template <class Layout = doacross_layout, class Model = interval_model>
struct basic_doacross_report {
    Layout layout;        ///< the chunking and synchronization dimensions, and the skew, that ran
    index_t interval = 0; ///< h
    /// With h=auto, on the root: the model's measured inputs, from which h
    /// came; model->predicted_seconds(interval) is the time it predicts.
    std::optional<Model> model{};
};
/// What a DOACROSS loop reports besides its fields (see basic_doacross_report).
using doacross_report = basic_doacross_report<>;

/// What a DOACROSS loop returns on every rank: the fields as windows over the
/// whole space (`value`, on the root, holding the final values when the
/// call passed gather<>{}; empty otherwise), the statistics and the report.
template <std::size_t N, class... T>
struct doacross_outcome : outcome<std::tuple<window<T, N>...>>,
                          basic_doacross_report<typename detail::depends_on<doacross_layout, N>::type> {
    /// Field I's window.
    template <std::size_t I = 0>
    [[nodiscard]] auto& array() noexcept {
        return std::get<I>(this->value);
    }
    /// Field I's window, read-only.
    template <std::size_t I = 0>
    [[nodiscard]] auto const& array() const noexcept {
        return std::get<I>(this->value);
    }
};

namespace detail {

/// A loop's engine reports nothing besides its statistics.
struct no_report {};

/// What every engine returns to its facade: the statistics, the algorithm's
/// report, and the run's value as bytes where the engine makes one (divide
/// and conquer's solution, on the root; a loop's and a farm's results reach
/// the caller as they arrive).
template <class Report = no_report>
struct engine_run : Report {
    loop_statistics statistics;
    std::vector<std::byte> value;
};

using doall_run = engine_run<>;
using farm_run = engine_run<farm_report>;
using dnc_run = engine_run<dnc_report>;
using doacross_run = engine_run<doacross_report>;

/// Moves a run's statistics and report into the call's outcome (the value is the facade's).
template <class Report, class Outcome>
void take_run(engine_run<Report>&& run, Outcome& out) {
    out.statistics = std::move(run.statistics);
    if constexpr (!std::is_same_v<Report, no_report>)
        static_cast<Report&>(out) = std::move(static_cast<Report&>(run));
}

} // namespace detail
} // namespace loopsched
