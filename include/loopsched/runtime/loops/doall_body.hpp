// A DOALL loop's body as its engine sees it (chunk_body: a few virtual calls
// per chunk) and what the loop's checks take from the space and the results'
// type; the engines below this seam do not depend on the user's types.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/error.hpp>
#include <loopsched/options.hpp>
#include <loopsched/runtime/core/result_blocks.hpp>
#include <loopsched/payload.hpp>
#include <loopsched/schedule.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// The engine's view of a loop's body: per chunk, begin(c), run(part) for
/// parts of c, end(c, blocks); the root takes blocks. Virtual, so that the
/// engine is compiled once per policy and mapping rather than once per body,
/// space and result type (a few indirect calls per chunk, none per iteration).
class chunk_body {
public:
    virtual void begin(chunk c) = 0;
    virtual void run(chunk part) = 0;
    /// c: the chunk begun, or its first iterations (what ran before a departure).
    virtual void end(chunk c, result_blocks& out) = 0;
    /// A block of results from a worker, on the root.
    virtual void take(index_t first, index_t size, std::span<std::byte const> bytes) = 0;

protected:
    ~chunk_body() = default;
};

/// A DOALL loop's body on one rank, and where its results go: nowhere (R =
/// void), straight into the root's buffer (on the root), or into a block that
/// travels to the root with the next request (elsewhere).
template <IterationSpace S, class Body, class R = void>
class doall_body final : public chunk_body {
public:
    /// `root_values`: the whole loop's results, on the root only (per_iteration values per iteration).
    doall_body(S const& space, std::size_t dimension, Body& body, std::size_t per_iteration = 0,
               std::span<std::conditional_t<std::is_void_v<R>, std::byte, R>> root_values = {})
            : space_(space), dimension_(dimension), body_(body), per_(per_iteration), root_(root_values) {}

    void begin(chunk c) override {
        if constexpr (!std::is_void_v<R>) {
            base_ = c.first;
            if (!on_root()) {
                scratch_.clear();
                scratch_.resize(static_cast<std::size_t>(c.size) * per_);
            }
        }
    }
    void run(chunk part) override {
        auto const sub = space_.slice(dimension_, part.first, part.end());
        if constexpr (std::is_void_v<R>) {
            body_(sub);
        } else {
            std::size_t const n = static_cast<std::size_t>(part.size) * per_;
            if (on_root())
                body_(sub, root_.subspan(static_cast<std::size_t>(part.first) * per_, n));
            else
                body_(sub, std::span<R>(scratch_).subspan(static_cast<std::size_t>(part.first - base_) * per_, n));
        }
    }
    void end(chunk c, result_blocks& out) override {
        if constexpr (!std::is_void_v<R>) {
            if (on_root()) return;
            // The first c.size iterations of the chunk begun (all of it, or what ran before a departure).
            auto const ran = std::span<R const>(scratch_).first(static_cast<std::size_t>(c.size) * per_);
            out.add_written(c.first, c.size, [&](std::vector<std::byte>& bytes) { write_values(bytes, ran); });
        }
    }
    void take(index_t first, index_t size, std::span<std::byte const> bytes) override {
        if constexpr (std::is_void_v<R>) {
            throw error("loopsched: results arrived for a loop that gathers none");
        } else {
            auto const n = static_cast<std::size_t>(size) * per_;
            auto const at = static_cast<std::size_t>(first) * per_;
            if (at > root_.size() || n > root_.size() - at)
                throw error("loopsched: results for iterations outside the loop");
            read_values(bytes, root_.subspan(at, n));
        }
    }

private:
    [[nodiscard]] bool on_root() const noexcept { return !root_.empty(); }

    S const& space_;
    std::size_t dimension_;
    Body& body_;
    std::size_t per_;
    std::span<std::conditional_t<std::is_void_v<R>, std::byte, R>> root_;
    std::conditional_t<std::is_void_v<R>, std::array<std::byte, 0>, std::vector<R>> scratch_{};
    index_t base_ = 0;
};

/// What a DOALL loop's checks need of its space and its results' type,
/// taken where those types are known, so that the engine needs neither.
struct doall_call {
    index_t iterations = 0;
    std::uint64_t space = 0;      ///< the space's fingerprint
    std::size_t result_bytes = 0; ///< gathered bytes per iteration (0: none)
    /// An error met making or checking the arguments (a spec that did not
    /// parse, a dimension the space has not): the loop's checks rethrow it,
    /// so that it fails the loop on every rank like any failed check.
    std::exception_ptr earlier{};
};

/// The space's and the results' part of a DOALL loop's checks, and the root's
/// buffer for the results (`root`: this rank is the root; none for R = void).
template <IterationSpace S, class R>
std::pair<doall_call, std::span<std::conditional_t<std::is_void_v<R>, std::byte, R>>>
describe_doall(S const& space, std::size_t per_iteration, std::vector<R>* values, parallel_for_options const& o,
               bool root, std::exception_ptr earlier = nullptr) {
    doall_call call;
    std::span<std::conditional_t<std::is_void_v<R>, std::byte, R>> root_values;
    call.earlier = earlier;
    if (earlier) return {call, root_values};
    try {
        require(o.dimension < S::rank, "options.dimension", o.dimension, "must be < the space's rank");
        index_t const n = space.extent(o.dimension);
        if constexpr (!std::is_void_v<R>) {
            require(per_iteration >= 1, "gather per_iteration", per_iteration, "must be >= 1");
            require(per_iteration <= std::numeric_limits<std::size_t>::max() / sizeof(R) &&
                            static_cast<std::size_t>(n) <=
                                    std::numeric_limits<std::ptrdiff_t>::max() / (per_iteration * sizeof(R)),
                    "gather per_iteration", per_iteration, "makes the result buffer larger than memory can address");
            call.result_bytes = per_iteration * sizeof(R);
            if (root) {
                values->resize(static_cast<std::size_t>(n) * per_iteration);
                root_values = std::span<R>(*values);
            }
        }
        call.iterations = n;
        call.space = space_fingerprint(space);
    } catch (...) {
        call.earlier = std::current_exception();
    }
    return {call, root_values};
}

/// A DOALL loop on this rank with the user's types, ready for an engine that
/// knows neither: its description (`call`) and its body behind chunk_body.
template <IterationSpace S, class Body, class R>
class described_doall {
public:
    described_doall(S const& space, Body& body, std::size_t per_iteration, std::vector<R>* values,
                    parallel_for_options const& o, bool root, std::exception_ptr earlier = nullptr)
        : described_(detail::describe_doall<S, R>(space, per_iteration, values, o, root, std::move(earlier))),
          body_(space, o.dimension, body, per_iteration, described_.second) {}

    [[nodiscard]] doall_call const& call() const noexcept { return described_.first; }
    [[nodiscard]] chunk_body& body() noexcept { return body_; }

private:
    std::pair<doall_call, std::span<std::conditional_t<std::is_void_v<R>, std::byte, R>>> described_;
    doall_body<S, Body, R> body_;
};

} // namespace loopsched::detail
