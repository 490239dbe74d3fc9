// A DOACROSS loop under a static mapping (SDS or a chain mapping, Ciorba):
// every rank derives the same tiles and owners, runs its own tiles in an
// order the dependences agree with, receives the tiles it reads from their
// owners and sends its tiles to the owners of their dependents. Nobody deals
// work: the protocol core only opens the loop, carries the gathered fields to
// the root, and ends it (or fails it everywhere).
#pragma once

#include <loopsched/dependence/tiling.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/doacross_mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/doacross/doacross.hpp>
#include <loopsched/runtime/doacross/doacross_body.hpp>
#include <loopsched/runtime/core/plan.hpp>
#include <loopsched/runtime/core/profile.hpp>
#include <loopsched/runtime/core/wire.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// What every rank derives alike: the tiles, their owners and the region a
/// tile's body reads.
template <std::size_t N>
struct tiled_plan {
    tiling<N> tiles;
    doacross_mapping mapping;
    std::size_t workers = 1;
    tile_placement placed; ///< empty until place(): a worker learns the powers from its go
    typename box<N>::point back{}, ahead{}; ///< how far a tile's reads reach before and after it

    tiled_plan(tiling<N> t, doacross_mapping m, std::size_t w, std::span<distance_vector<N> const> vectors,
               index_t input_halo)
        : tiles(std::move(t)), mapping(std::move(m)), workers(w) {
        for (auto const& v : vectors)
            for (std::size_t k = 0; k < N; ++k) back[k] = std::max(back[k], v[k]), ahead[k] = std::max(ahead[k], -v[k]);
        for (std::size_t k = 0; k < N; ++k) ahead[k] = std::max(ahead[k], input_halo);
    }

    /// Places the tiles from every worker's available power (V/Q), as the root saw them at the opening.
    void place(std::span<double const> powers) {
        require(powers.size() == workers, "powers", powers.size(), "must give one per worker");
        placement_info info{workers, {}};
        for (double const p : powers) info.status.push_back(worker_status{p, 1.0});
        placed = mapping.start(info).place(tiles);
    }

    /// The tile, the points it reads through the dependences before it and
    /// the input halo after it, within the space.
    [[nodiscard]] box<N> region(std::size_t tile) const {
        auto const b = tiles.bounds(tile);
        auto lo = b.lower(), hi = b.upper();
        auto const& s = tiles.space();
        for (std::size_t k = 0; k < N; ++k) {
            lo[k] = std::max(s.lower()[k], lo[k] - back[k]);
            hi[k] = std::min(s.upper()[k], hi[k] + ahead[k]);
        }
        return {lo, hi};
    }
};

/// The intersection of two boxes (empty where they do not meet).
template <std::size_t N>
box<N> intersect(box<N> const& a, box<N> const& b) {
    auto lo = a.lower(), hi = a.upper();
    for (std::size_t k = 0; k < N; ++k) {
        lo[k] = std::max(lo[k], b.lower()[k]);
        hi[k] = std::max(lo[k], std::min(hi[k], b.upper()[k]));
    }
    return {lo, hi};
}

/// The smallest box holding every box of `boxes` (none: the empty box).
template <std::size_t N>
box<N> enclosing(std::span<box<N> const> boxes) {
    if (boxes.empty()) return {};
    auto lo = boxes[0].lower(), hi = boxes[0].upper();
    for (auto const& b : boxes)
        for (std::size_t k = 0; k < N; ++k) lo[k] = std::min(lo[k], b.lower()[k]), hi[k] = std::max(hi[k], b.upper()[k]);
    return {lo, hi};
}
template <std::size_t N>
box<N> enclosing(std::vector<box<N>> const& boxes) {
    return enclosing(std::span<box<N> const>(boxes));
}

/// The root's side: nothing to deal (each worker's tiles are known). A
/// worker's first request (its hello) makes it busy with its tiles, counted
/// one unit each; its next says it is through, and is answered with a stop.
/// Gathered tiles are unpacked into the root's windows.
template <Transport T, std::size_t N>
class tiled_master {
public:
    static constexpr master_hooks hooks{.holds = true};

    /// `powers`: every worker's V/Q, which the go carries so that all place the tiles alike.
    tiled_master(master_port<T>& port, tiled_plan<N> const& plan, std::vector<double> powers,
                 field_windows<N>* results)
        : port_(port), plan_(plan), powers_(std::move(powers)), results_(results), served_(plan.workers, false),
          through_(plan.workers, false) {}

    index_t serve(std::size_t k, request const&) {
        if (served_[k]) {
            through_[k] = true;
            return 0;
        }
        served_[k] = true;
        ++served_count_;
        // The go: a worker starts once the root has agreed, so nothing it
        // sends reaches a rank still gathering the opening.
        port_.send_worker(k, kind::work, std::as_bytes(std::span(powers_)));
        for (std::size_t tile : plan_.placed.order[k]) port_.count(k, plan_.tiles.points(tile));
        return 0; // busy all the same (holds): a tile may hold no point, and the count is made
    }
    /// Worker k runs its tiles and will say when it is through.
    [[nodiscard]] bool holds(std::size_t k) const noexcept {
        return served_[k] && !through_[k] && !plan_.placed.order[k].empty();
    }
    [[nodiscard]] bool done() const noexcept { return served_count_ == served_.size(); }

    void take_result(index_t first, index_t, std::span<std::byte const> bytes) {
        if (!results_) throw error("loopsched: results arrived for a DOACROSS loop that gathers none");
        if (first < 0 || static_cast<std::size_t>(first) >= plan_.tiles.size())
            throw error("loopsched: results for a tile outside the loop");
        std::size_t used = 0;
        plan_.tiles.for_each_part(static_cast<std::size_t>(first), [&](box<N> const& part) {
            used += results_->unpack(part, bytes.subspan(used));
        });
        if (used != bytes.size()) throw error("loopsched: a tile of results with bytes to spare");
    }
    void on_message(std::size_t, kind, message_view m) {
        throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) +
                    " at a statically mapped DOACROSS loop's root");
    }

private:
    master_port<T>& port_;
    tiled_plan<N> const& plan_;
    std::vector<double> powers_;
    field_windows<N>* results_;
    std::vector<bool> served_, through_;
    std::size_t served_count_ = 0;
};

/// A worker's side: its tiles in order, each once every tile it reads is here.
template <Transport T, std::size_t N>
class tiled_worker {
public:
    static constexpr worker_hooks hooks{.waited = true};

    /// `root_results`: the root's windows when this is the root's own worker and the loop gathers.
    /// `plan`: shared with the root's master on the root (placed there already), this rank's own elsewhere.
    tiled_worker(worker_port<T>& port, tiled_plan<N>& plan, std::size_t index, rank_profile& profile,
                 doacross_body<N>& body, field_windows<N>* root_results, bool gather)
        : port_(port), plan_(plan), index_(index), profile_(profile), body_(body), root_results_(root_results),
          gather_(gather), stats_{port.rank()} {}

    /// The go, with every worker's power: place the tiles, then run this worker's.
    void on_work(message_view m) {
        if (started_) throw error("loopsched: protocol: a second go at a statically mapped DOACROSS worker");
        if (plan_.placed.order.empty()) {
            std::vector<double> powers(m.payload.size() / sizeof(double));
            std::memcpy(powers.data(), m.payload.data(), powers.size() * sizeof(double));
            plan_.place(powers);
        }
        started_ = true;
        for (std::size_t t : mine())
            for (std::size_t s : plan_.tiles.sources(t)) ++uses_[s];
    }

    bool can_step() {
        if (!started_ || next_ == mine().size()) return false;
        for (std::size_t s : plan_.tiles.sources(mine()[next_]))
            if (!held_.contains(s)) return false;
        return true;
    }
    /// Runs the next tile; after the last, tells the master (from a step, so
    /// that the root's loop looks at the master's answer before it waits).
    double step() {
        run_tile(mine()[next_++]);
        if (next_ == mine().size()) finish();
        return 0.0;
    }
    [[nodiscard]] bool poll_after_step() const noexcept { return true; }

    void on_message(kind what, message_view m) {
        if (what != kind::data)
            throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) +
                        " at a statically mapped DOACROSS worker");
        // The tile's pieces this rank reads (see share): their bounds, then their values.
        wire_reader r(m.payload);
        auto const tile = r.get<std::uint64_t>();
        if (tile >= plan_.tiles.size() || held_.contains(tile))
            throw error("loopsched: protocol: tile " + std::to_string(tile) + " arrived twice or does not exist");
        auto const count = r.get<std::uint64_t>();
        std::vector<box<N>> pieces;
        for (std::uint64_t k = 0; k < count; ++k) {
            auto const lo = r.get<typename box<N>::point>();
            auto const hi = r.get<typename box<N>::point>();
            pieces.emplace_back(lo, hi);
        }
        auto& w = held_[tile] = body_.make();
        w->reset(enclosing(pieces));
        for (auto const& piece : pieces)
            (void)w->unpack(piece, r.get_raw(static_cast<std::size_t>(piece.size()) * body_.point_bytes()));
    }
    void waited(double seconds) { stats_.wait_seconds += seconds; }

    worker_statistics statistics(double) const { return stats_; }
    result_blocks& results() noexcept { return results_; }
    [[nodiscard]] std::span<chunk_event const> trace() const noexcept { return trace_; }

private:
    [[nodiscard]] std::vector<std::size_t> const& mine() const { return plan_.placed.order[index_]; }

    void run_tile(std::size_t tile) {
        double const start = port_.now();
        box<N> const region = plan_.region(tile);
        auto const work = body_.make();
        work->reset(region);
        work->fill(region);
        // Only the tiles it depends on: every other point of the region holds
        // its value from before the loop, as the sequential loop reads it.
        for (std::size_t s : plan_.tiles.sources(tile)) {
            auto const& from = *held_.at(s);
            plan_.tiles.for_each_part(s, [&](box<N> const& part) {
                box<N> const both = intersect(part, region);
                if (!both.empty()) work->copy_from(from, both);
            });
        }
        double const begin = port_.now();
        profile_.run([&] {
            plan_.tiles.for_each_part(tile, [&](box<N> const& part) { work->run(part); });
        });
        double const end = port_.now();
        stats_.compute_seconds += end - begin;
        index_t const points = plan_.tiles.points(tile);
        stats_.iterations += points;
        ++stats_.chunks;
        if (port_.settings().trace)
            trace_.push_back({port_.rank(), static_cast<index_t>(tile), points, start, end});
        for (std::size_t s : plan_.tiles.sources(tile)) release(s);
        share(tile, *work);
    }

    /// Sends the tile to the owners of its dependents, keeps it while own
    /// tiles still read it, and gathers it. A rank receives only the points
    /// its dependent tiles read (their regions): a halo, not the whole tile,
    /// as S-A's synchronization points send.
    void share(std::size_t tile, field_windows<N> const& work) {
        auto pack = [&](auto& out) {
            plan_.tiles.for_each_part(tile, [&](box<N> const& part) { work.pack(part, out); });
        };
        std::vector<int> ranks;
        for (std::size_t d : plan_.tiles.dependents(tile)) {
            int const rank = port_.settings().worker_ranks[plan_.placed.owner[d]];
            if (rank != port_.rank() && std::ranges::find(ranks, rank) == ranks.end()) ranks.push_back(rank);
        }
        for (int rank : ranks) {
            // Per part of the tile, the box enclosing what this rank's dependents read of it.
            std::vector<box<N>> pieces;
            plan_.tiles.for_each_part(tile, [&](box<N> const& part) {
                std::vector<box<N>> read;
                for (std::size_t d : plan_.tiles.dependents(tile))
                    if (port_.settings().worker_ranks[plan_.placed.owner[d]] == rank)
                        if (auto const both = intersect(part, plan_.region(d)); !both.empty()) read.push_back(both);
                if (!read.empty()) pieces.push_back(enclosing(read));
            });
            wire_writer w;
            w.put(static_cast<std::uint64_t>(tile));
            w.put(static_cast<std::uint64_t>(pieces.size()));
            for (auto const& piece : pieces) w.put(piece.lower()).put(piece.upper());
            values_.clear();
            for (auto const& piece : pieces) work.pack(piece, values_);
            w.put_raw(values_);
            double const before = port_.now();
            port_.send_rank(rank, kind::data, std::move(w).take());
            stats_.comm_seconds += port_.now() - before;
        }
        if (uses_.contains(tile)) {
            auto& kept = held_[tile] = body_.make();
            kept->reset(plan_.tiles.bounds(tile));
            plan_.tiles.for_each_part(tile, [&](box<N> const& part) { kept->copy_from(work, part); });
        }
        if (root_results_) {
            plan_.tiles.for_each_part(tile, [&](box<N> const& part) { root_results_->copy_from(work, part); });
        } else if (gather_) {
            results_.add_written(static_cast<index_t>(tile), 1, [&](std::vector<std::byte>& out) { pack(out); });
        }
    }
    void release(std::size_t tile) {
        if (auto it = uses_.find(tile); it != uses_.end() && --it->second == 0) {
            uses_.erase(it);
            held_.erase(tile);
        }
    }
    void finish() {
        port_.request(profile_.status(port_.now()), chunk_timing{}, results_);
    }

    worker_port<T>& port_;
    tiled_plan<N>& plan_;
    std::size_t index_;
    rank_profile& profile_;
    doacross_body<N>& body_;
    field_windows<N>* root_results_;
    bool gather_;
    std::size_t next_ = 0;
    bool started_ = false;
    std::unordered_map<std::size_t, std::unique_ptr<field_windows<N>>> held_;   ///< tiles own tiles still read: received or own
    std::unordered_map<std::size_t, std::size_t> uses_; ///< own tiles yet to read each tile
    std::vector<std::byte> values_;                     ///< a share's values, kept for its storage
    worker_statistics stats_;
    result_blocks results_;
    std::vector<chunk_event> trace_;
};

/// parallel_for_doacross with a static mapping, below the body's seam: the
/// checks every rank makes, the agreement, then the tiles on every rank (one
/// rank: the loop in order).
template <Transport T, std::size_t N>
doacross_run run_tiled_engine(channel<T>& ch, box<N> const& space, dependence_set<N> const& deps,
                              doacross_mapping const& mapping, doacross_body<N>& body, doacross_options const& o,
                              bool gather, std::exception_ptr earlier) {
    std::vector<distance_vector<N>> const vectors(deps.vectors().begin(), deps.vectors().end());
    auto check = [&](int ranks, std::size_t workers) {
        if (earlier) std::rethrow_exception(earlier);
        validate(o, ranks);
        require(!o.deterministic, "options.deterministic", o.deterministic,
                "has no meaning for a static mapping: its schedule is fixed already");
        return tiling<N>(space, vectors, tile_extents(space, mapping, workers));
    };
    if (ch.size() == 1) {
        (void)check(1, 1);
        return run_doacross_alone(ch.transport(), space, doacross_layout{}, body);
    }

    loop_link<T> link(ch);
    int const ranks = link.size(), self = link.rank();
    std::optional<tiling<N>> tiles;
    auto opened = open_loop(link, [&] {
        rank_plan plan = plan_ranks(ranks, self, space.size(), o);
        plan.settings.result_bytes = gather ? body.point_bytes() : 0;
        tiles.emplace(check(ranks, plan.settings.workers()));
        fingerprint f;
        f.add(mapping.name());
        for (auto e : tiles->extents()) f.add(e);
        loop_shape const shape =
                shape_of(o, {.algorithm = algorithm_id::parallel_for_doacross,
                             .extent = space.extent(0),
                             .space = space_fingerprint(space),
                             .result_bytes = plan.settings.result_bytes,
                             .policy = f.value(),
                             .mapping = mapping.name(),
                             .extra = doacross_fingerprint(deps, doacross_layout{}, o, body.fields_fingerprint())});
        return std::pair{std::move(plan), shape};
    });
    auto& plan = opened.plan;
    std::span<worker_status const> const opening = opened.statuses();

    // The root places the tiles from the statuses of the opening (only the
    // root has them); its go carries them to every worker, which places alike.
    tiled_plan<N> shared(*tiles, mapping, plan.settings.workers(), vectors, o.input_halo);
    std::vector<double> powers;
    if (self == o.root) {
        for (std::size_t k = 0; k < plan.settings.workers(); ++k) {
            auto const s = opening[static_cast<std::size_t>(plan.settings.worker_ranks[k])];
            powers.push_back(s.power / s.run_queue);
        }
        shared.place(powers);
    }
    doacross_run out;
    field_windows<N>* const results = gather && self == o.root ? &body.outcome() : nullptr;
    auto make_master = [&](master_port<T>& port) {
        if (results) results->reset(space);
        return tiled_master<T, N>(port, shared, powers, results);
    };
    auto make_worker = [&](worker_port<T>& port) {
        auto const index = static_cast<std::size_t>(plan.settings.index_of(self));
        return tiled_worker<T, N>(port, shared, index, plan.profile, body, port.is_local() ? results : nullptr,
                                  gather);
    };
    out.statistics = run_loop(link, plan.settings, opening, make_master, make_worker);
    return out;
}

} // namespace loopsched::detail
