// The start of every loop: each rank sends the coordinator (rank 0) the loop's
// shape as it sees it, with its status (its first request), or the error its
// own checks found. The coordinator compares them all, so arguments that differ
// across ranks, or fail on one rank only, end the loop on every rank with the
// same invalid_parameter before any body runs; no rank waits for a message
// that cannot come, whatever each rank believes the root to be. Also the
// exchanges every algorithm ends with: the abort, a failure told, the table.
#pragma once

#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/detail/function_ref.hpp>
#include <loopsched/detail/small_vector.hpp>
#include <loopsched/error.hpp>
#include <loopsched/request.hpp>
#include <loopsched/runtime/core/link.hpp>
#include <loopsched/runtime/core/messages.hpp>
#include <loopsched/runtime/core/wire.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loopsched::detail {

/// The loop as one rank sees it: what every rank must pass alike. Sent in each
/// rank's hello; no padding, so it travels as it lies.
struct loop_shape {
    std::int64_t extent = 0;        ///< iterations (positions along the cut dimension)
    std::uint64_t space = 0;        ///< fingerprint of the whole space's bounds
    std::uint64_t result_bytes = 0; ///< gathered bytes per iteration
    std::uint64_t policy = 0;       ///< fingerprint of the policy
    std::uint64_t mapping = 0;      ///< fingerprint of the mapping
    std::uint64_t powers = 0;       ///< fingerprint of options.powers
    std::uint64_t run_queues = 0;   ///< fingerprint of options.run_queues
    double poll_interval = 0.0;
    double request_ahead = 0.0;
    std::uint64_t extra = 0; ///< fingerprint of the algorithm's own options
    std::int32_t root = 0;
    std::uint32_t dimension = 0;
    std::uint32_t flags = 0;     ///< see flag
    std::uint32_t algorithm = 0; ///< see algorithm_id

    enum flag : std::uint32_t {
        master_computes = 1,
        read_os_load = 2,
        emulate_powers = 4,
        deterministic = 8,
        trace = 16
    };
};
static_assert(sizeof(loop_shape) == 10 * 8 + 4 * 4, "a loop shape has no padding to send");

enum class algorithm_id : std::uint32_t {
    parallel_for = 1,
    parallel_for_doacross,
    calibration,
    task_farm,
    divide_and_conquer
};

/// What a hello carries: the rank's shape and status.
struct hello_message {
    loop_shape shape;
    worker_status status;
};

/// Why `theirs` (from rank `rank`) and `mine` (the coordinator's, rank 0) are
/// not one loop, naming the first field that differs; nullopt if they agree.
inline std::optional<failure> compare_shapes(loop_shape const& mine, loop_shape const& theirs, int rank) {
    auto differs = [&](std::string name, std::string a, std::string b) {
        return failure::invalid(rank, std::move(name), a + " on rank 0 and " + b + " on rank " + std::to_string(rank),
                                "every rank must pass the same " + std::string("value to the same loop"));
    };
    auto hashed = [&](char const* name) { return differs(name, "one value", "another"); };
    auto number = [](auto v) { return to_text(v); };
    if (mine.algorithm != theirs.algorithm)
        return differs("algorithm", number(mine.algorithm), number(theirs.algorithm));
    if (mine.root != theirs.root) return differs("options.root", number(mine.root), number(theirs.root));
    if (mine.extent != theirs.extent) return differs("iterations", number(mine.extent), number(theirs.extent));
    if (mine.space != theirs.space) return hashed("iteration space");
    if (mine.dimension != theirs.dimension)
        return differs("options.dimension", number(mine.dimension), number(theirs.dimension));
    if (mine.result_bytes != theirs.result_bytes)
        return differs("gathered bytes per iteration", number(mine.result_bytes), number(theirs.result_bytes));
    if (mine.policy != theirs.policy) return hashed("policy");
    if (mine.mapping != theirs.mapping) return hashed("mapping");
    if (std::uint32_t const d = mine.flags ^ theirs.flags) {
        static constexpr char const* names[] = {"options.master_computes", "options.read_os_load",
                                                "options.emulate_powers", "options.deterministic", "options.trace"};
        auto const bit = static_cast<std::size_t>(std::countr_zero(d));
        bool const a = (mine.flags >> bit) & 1u, b = (theirs.flags >> bit) & 1u;
        return differs(bit < 5 ? names[bit] : "options", a ? "true" : "false", b ? "true" : "false");
    }
    if (mine.powers != theirs.powers) return hashed("options.powers");
    if (mine.run_queues != theirs.run_queues) return hashed("options.run_queues");
    if (std::bit_cast<std::uint64_t>(mine.poll_interval) != std::bit_cast<std::uint64_t>(theirs.poll_interval))
        return differs("options.poll_interval", number(mine.poll_interval), number(theirs.poll_interval));
    if (std::bit_cast<std::uint64_t>(mine.request_ahead) != std::bit_cast<std::uint64_t>(theirs.request_ahead))
        return differs("options.request_ahead", number(mine.request_ahead), number(theirs.request_ahead));
    if (mine.extra != theirs.extra) return hashed("the algorithm's options");
    return std::nullopt;
}

/// Sends `f` to every rank but this one (they are all waiting for this loop's
/// next message), then throws it here.
template <Transport T>
[[noreturn]] void abort_everyone(loop_link<T>& link, failure const& f) {
    wire_writer w;
    f.write(w);
    for (int r = 0; r < link.size(); ++r)
        if (r != link.rank()) link.send(r, kind::abort, w.view());
    f.raise(link.rank());
}

/// Tells `to` (the master or the coordinator) that this rank failed, then
/// waits for the verdict every rank receives and throws it; the loop's other
/// messages mean nothing now.
/// If `to` has failed (or fails while this rank waits), no verdict can come:
/// rank_lost names it, as on every other rank that answers to it.
template <Transport T>
[[noreturn]] void tell_and_wait(loop_link<T>& link, int to, failure const& f) {
    if (std::ranges::find(link.failed(), to) != link.failed().end()) throw rank_lost(to);
    link.on_losses(loss_rule::answers_to, to);
    wire_writer out;
    f.write(out);
    link.send(to, kind::failed, out.view());
    while (true) {
        message_view const m = link.receive();
        if (kind_of(m.tag) == kind::abort) failure::read(m).raise(link.rank());
    }
}

/// Past this many ranks, a rank other than the root gets T_p, its own row and
/// the groups' rows, not every worker's: the whole table to every rank is P^2
/// rows to send (13 GB at 16,384 ranks) and to keep.
inline constexpr int full_table_ranks = 1024;

/// Sends the loop's table to every rank but this one (see full_table_ranks).
template <Transport T>
void send_table_to_everyone(loop_link<T>& link, loop_statistics const& table) {
    if (link.size() > full_table_ranks) {
        loop_statistics own{table.parallel_seconds, {}, {}, table.groups};
        std::vector<std::size_t> row_of(static_cast<std::size_t>(link.size()), table.workers.size());
        for (std::size_t k = 0; k < table.workers.size(); ++k)
            row_of[static_cast<std::size_t>(table.workers[k].rank)] = k;
        for (int r = 0; r < link.size(); ++r) {
            if (r == link.rank()) continue;
            std::size_t const k = row_of[static_cast<std::size_t>(r)];
            own.workers.resize(k < table.workers.size() ? 1 : 0);
            if (k < table.workers.size()) own.workers[0] = table.workers[k];
            wire_writer w;
            link.send(r, kind::table, encode_table(w, own));
        }
        return;
    }
    wire_writer w;
    auto const encoded = encode_table(w, table);
    for (int r = 0; r < link.size(); ++r)
        if (r != link.rank()) link.send(r, kind::table, encoded);
}

/// What the coordinator makes of the other ranks' first words in a loop (or,
/// ahead of time, their last): a failure one reports, a shape that differs
/// from its own, or a message that has no business there. The verdict names
/// the lowest rank's, so every run of the same mistake reads the same.
class shape_check {
public:
    /// `checking`: compare shapes (not when the coordinator's own check failed).
    shape_check(loop_shape const& mine, bool checking) : mine_(mine), checking_(checking) {}

    /// One rank's message (a hello, or a report that opens with one); its hello if it had one.
    std::optional<hello_message> take(message_view m) {
        kind const k = kind_of(m.tag);
        if (k == kind::failed) {
            note(m.source, failure::read(m));
        } else if ((k == kind::hello || k == kind::report) && m.payload.size() >= sizeof(hello_message)) {
            // A report that opens with a hello comes from a rank that runs the loop
            // ahead of time (a static mapping): its shape names the difference.
            hello_message h;
            std::memcpy(&h, m.payload.data(), sizeof h);
            if (checking_) note(m.source, compare_shapes(mine_, h.shape, m.source));
            return h;
        } else if (!protocol_) {
            protocol_ = failure::fault(m.source, "loopsched: protocol: a message out of place at a loop's start or end");
        }
        return std::nullopt;
    }
    /// This rank's own error, else the lowest rank's, else a protocol error; nullopt if all is well.
    [[nodiscard]] std::optional<failure> verdict(std::optional<failure> const& own) const {
        return own ? own : reported_ ? reported_ : protocol_;
    }

private:
    void note(int rank, std::optional<failure> f) {
        if (f && rank < reported_by_) {
            reported_ = std::move(f);
            reported_by_ = rank;
        }
    }

    loop_shape const& mine_;
    bool checking_;
    std::optional<failure> reported_, protocol_;
    int reported_by_ = std::numeric_limits<int>::max();
};

/// The coordinator of every loop's agreement: rank 0, whatever the arguments say.
inline constexpr int coordinator = 0;

/// The loop's opening on every rank. `local`: the error this rank's own checks
/// found, if any. Returns every rank's status on the root (index = rank), and
/// nothing on the other ranks, whose first message from the master is their
/// first grant (or the abort). Throws the loop's failure on every rank.
/// Every rank's status, inline for up to 16 ranks (a loop should not allocate for it).
using status_by_rank = boost::container::small_vector<worker_status, 16>;

/// The binomial tree over a loop's ranks, rooted at the coordinator, through
/// which a loop without a master spreads its go and gathers its reports: the
/// coordinator then sends and receives log2(ranks) messages, not one per rank
/// (16,383 at 16,384 simulated ranks, each with its processor time). Rank r's
/// parent is r with its lowest set bit cleared.
inline int tree_parent(int rank) noexcept { return rank & (rank - 1); }

/// Calls f(child) for each of `rank`'s children in the binomial tree over
/// `ranks` ranks, the largest subtree first (it has the longest way to go):
/// rank + 2^k for every 2^k below rank's lowest set bit (every 2^k below
/// `ranks` for rank 0).
template <class F>
void for_each_tree_child(int rank, int ranks, F&& f) {
    int step = 1;
    while (step < ranks && (rank & step) == 0) step <<= 1;
    for (step >>= 1; step > 0; step >>= 1)
        if (rank + step < ranks) f(rank + step);
}

/// A loop without a master: every rank, not only the root, waits for the
/// coordinator's go, which carries one word. `make()` computes it on the
/// coordinator once every rank has said hello, while all of them wait (a
/// loop's shared counter is then still); `word` is its value on every rank.
/// `choice` and `statuses`, set on the coordinator, reach every rank: with
/// `statuses`, the go also carries every rank's status, which the agreement
/// then returns on every rank (a policy that depends on who claims needs them
/// all), or one status, every rank's, where all are equal; `choice` is the
/// scheme an automatic policy runs (0 otherwise).
struct go_for_everyone {
    function_ref<std::int64_t()> make;
    std::int64_t word = 0;
    bool statuses = false;
    std::uint32_t choice = 0;
};

/// `silence` (finite with a failure detector): how long the coordinator waits
/// for the others' hellos before the loop fails, naming the first rank missing.
/// `everyone`: every rank waits for the go (see go_for_everyone).
template <Transport T>
status_by_rank agree_on_opening(loop_link<T>& link, loop_shape const& mine, std::optional<failure> const& local,
                                worker_status status, double silence, go_for_everyone* everyone = nullptr) {
    int const ranks = link.size(), self = link.rank();
    if (ranks == 1) {
        if (local) local->raise(self);
        if (everyone) everyone->word = everyone->make();
        return {status};
    }
    // A peer's failure: the coordinator ends the loop on every survivor (a
    // communicator with a failed rank cannot run one: survivors() makes the
    // next); the others hear it from the coordinator, unless it failed itself.
    // Each role sets its own rule once the loop runs.
    if (self == coordinator)
        link.on_losses(loss_rule::deliver);
    else
        link.on_losses(loss_rule::answers_to, coordinator);
    if (self != coordinator) {
        if (local) tell_and_wait(link, coordinator, *local);
        hello_message const hello{mine, status};
        link.send(coordinator, kind::hello, std::as_bytes(std::span(&hello, 1)));
        if (mine.root != self && !everyone) return {}; // the first grant (or the abort) comes to the worker's loop
        // The root learns the outcome before it grants anything (its workers
        // wait for it: the coordinator's failure is told to them from here);
        // without a master, every rank does.
        link.on_losses(loss_rule::deliver);
        int const sender = everyone ? tree_parent(self) : coordinator; // of the go
        // The go passes down a tree: a rank that had it first may send this
        // one the loop's first messages before it comes (a master's grant).
        std::vector<message> overtook;
        message_view m = link.receive();
        for (; kind_of(m.tag) != kind::go && kind_of(m.tag) != kind::abort; m = link.receive()) {
            if (kind_of(m.tag) == kind::lost) {
                // The go cannot come. The coordinator's loss is told to every rank
                // (nobody else would); a parent's is the coordinator's affair too,
                // which ends the loop on everyone once it misses that parent's report.
                if (m.source == coordinator) abort_everyone(link, failure::lost(m.source));
                if (m.source == sender) throw rank_lost(m.source);
            } else if (everyone) {
                overtook.push_back(message{m.source, m.tag, copy_bytes(m.payload)});
            } else {
                break;
            }
        }
        if (kind_of(m.tag) == kind::abort) failure::read(m).raise(self);
        if (kind_of(m.tag) != kind::go) // every rank is waiting for this loop's next message: tell them all
            abort_everyone(link, failure::fault(m.source, "loopsched: protocol: a message out of place at a loop's start"));
        wire_reader r(m.payload);
        if (everyone) {
            for_each_tree_child(self, ranks, [&](int child) { link.send(child, kind::go, m.payload); });
            link.receive_again(std::move(overtook));
            everyone->word = r.get<std::int64_t>();
            everyone->choice = r.get<std::uint32_t>();
            everyone->statuses = r.get<std::uint8_t>() != 0;
            if (!everyone->statuses) return {};
            // One status when all are equal, kept as one: 16,384 simulated ranks
            // would each hold 16,384 copies (4 GiB in all).
            if (r.get<std::uint8_t>() != 0) return status_by_rank(1, r.get<worker_status>());
            status_by_rank all(static_cast<std::size_t>(ranks));
            for (auto& s : all) s = r.get<worker_status>();
            return all;
        }
        status_by_rank all(static_cast<std::size_t>(ranks));
        for (auto& s : all) s = r.get<worker_status>();
        return all;
    }

    status_by_rank all(static_cast<std::size_t>(ranks));
    all[coordinator] = status;
    shape_check check(mine, !local);
    double const deadline = silence < std::numeric_limits<double>::infinity()
                                    ? link.now() + silence
                                    : std::numeric_limits<double>::infinity();
    if (!link.failed().empty()) abort_everyone(link, failure::lost(link.failed().front()));
    std::vector<bool> heard; // who said hello, when a silence is watched (a loop should not allocate otherwise)
    if (deadline < std::numeric_limits<double>::infinity()) heard.assign(static_cast<std::size_t>(ranks), false);
    for (int n = 1; n < ranks; ++n) {
        auto const m = deadline < std::numeric_limits<double>::infinity() ? link.receive_until(deadline)
                                                                           : std::optional(link.receive());
        if (!m) {
            int missing = 1;
            while (heard[static_cast<std::size_t>(missing)]) ++missing;
            abort_everyone(link, failure::fault(self, "loopsched: rank " + std::to_string(missing) +
                                                              " was presumed lost: it did not join the loop within " +
                                                              to_text(silence) + " s (options.presumed_lost_after)"));
        }
        if (kind_of(m->tag) == kind::lost) abort_everyone(link, failure::lost(m->source));
        if (!heard.empty()) heard[static_cast<std::size_t>(m->source)] = true;
        if (auto h = check.take(*m)) all[static_cast<std::size_t>(m->source)] = h->status;
    }
    std::optional<failure> const verdict = check.verdict(local);
    if (verdict) abort_everyone(link, *verdict);
    if (everyone) {
        everyone->word = everyone->make();
        wire_writer w;
        w.put(everyone->word);
        w.put(everyone->choice);
        w.put(static_cast<std::uint8_t>(everyone->statuses));
        if (everyone->statuses) {
            bool const equal = std::ranges::all_of(all, [&](worker_status const& s) { return s == all[0]; });
            w.put(static_cast<std::uint8_t>(equal));
            if (equal)
                w.put(all[0]);
            else
                for (auto const& s : all) w.put(s);
        }
        for_each_tree_child(coordinator, ranks, [&](int child) { link.send(child, kind::go, w.view()); });
        return all;
    }
    if (mine.root == coordinator) return all;
    wire_writer w;
    for (auto const& s : all) w.put(s);
    link.send(mine.root, kind::go, w.view());
    return {};
}

/// The loop's opening (agree_on_opening), after which a peer's failure is
/// fatal on this rank until its role in the loop says otherwise (run_loop).
template <Transport T>
status_by_rank agree(loop_link<T>& link, loop_shape const& mine, std::optional<failure> const& local,
                     worker_status status, double silence = std::numeric_limits<double>::infinity(),
                     go_for_everyone* everyone = nullptr) {
    status_by_rank all = agree_on_opening(link, mine, local, status, silence, everyone);
    link.on_losses(loss_rule::fatal);
    return all;
}

} // namespace loopsched::detail
