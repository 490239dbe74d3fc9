// The runtime's one tag registry, and loop_link: one loop's view of a channel.
// A message's tag is its kind plus its loop's number, so a rank takes only the
// running loop's messages: an older loop's are dropped, a later loop's kept.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/transport/channel.hpp>
#include <loopsched/transport/deadline.hpp>
#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <thread>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// Every message the runtime sends, whatever the algorithm.
enum class kind : int {
    hello = 1, ///< any rank -> coordinator: the loop's shape as it sees it, and its status (its first request)
    go,        ///< coordinator -> root, when they differ: every rank agreed; their statuses (masterless: to every rank, a word)
    failed,    ///< any rank -> master (or coordinator): this rank failed, and why
    abort,     ///< master (or coordinator) -> every rank: the loop failed, and why
    request,   ///< worker -> master: status, timing of its last unit, results of finished units
    work,      ///< master -> worker: a grant
    stop,      ///< master -> worker: nothing more for you
    report,    ///< worker -> master, after stop: statistics, remaining results, trace
    table,     ///< master -> every rank: the loop's statistics
    probe,     ///< root <-> one rank: link measurement, echoed
    successor, ///< DOACROSS master -> worker: the holder of the chunk after yours
    data,      ///< DOACROSS worker -> worker: communication sets
    extend,    ///< DOACROSS worker -> master: may I take the next chunk too?
    extension, ///< DOACROSS master -> worker: yes, this one
    declined,  ///< DOACROSS master -> worker: no
    calibrate, ///< measure_powers: probe times and the powers
    transfer,  ///< task farm / D&C manager -> busy worker: move work to that idle worker; DOALL (TreeS): split your chunk
    moved,     ///< task farm / D&C worker -> master: the tasks it moved (or dropped on a cancel); none: refused; DOALL: the part split off
    cancel,    ///< task farm master -> worker: drop the tasks you have not started; DOALL: your chunk is done elsewhere
    reply,     ///< divide and conquer worker -> worker: a task's result, for the frame that waits for it
    steal,     ///< divide and conquer thief -> victim: give me work (answered with work, possibly none)
    info,      ///< divide and conquer worker -> manager: its queue's summed cost, or workers it could not use
    solution,  ///< divide and conquer worker -> manager: the original problem's result
    group,     ///< hierarchical root -> sub-master: you lead these workers (ranks and statuses)
    group_table, ///< hierarchical sub-master -> root, before its report: its workers' statistics
    leave,       ///< DOALL worker -> master: it leaves the loop; the range it gives back
    alive,       ///< worker -> master: still here (silent past a quarter of runtime_settings::silence)
    drain,       ///< hierarchical farm root -> sub-master: no task comes before your results return
    lost,        ///< the transport -> a master: the sender failed (a notice, loss_rule::deliver)
    count_
};
inline constexpr int kind_bits = 5;
static_assert(static_cast<int>(kind::count_) <= (1 << kind_bits), "the tag registry outgrew its bits");

inline constexpr kind kind_of(int tag) noexcept { return static_cast<kind>(tag & ((1 << kind_bits) - 1)); }

/// What a transport's notice that a peer failed (failed_tag) means to this
/// rank's part of a loop. Every notice is also kept in the channel (failed()).
enum class loss_rule : std::uint8_t {
    fatal,      ///< any failure ends this rank's part: rank_lost (the default)
    answers_to, ///< the failure of the rank it answers to (its master) ends it; others are that rank's affair
    deliver     ///< the notice comes out as a kind::lost message from the failed rank: this rank decides
};

/// One loop over a channel: takes the channel's next loop number, tags every
/// message with it, and receives only the loop's own messages (any sender).
/// Loop numbers travel modulo 2^bits (bits from the transport's tag bound:
/// 26 with Open MPI, 10 with MPI's minimum); a message is this loop's, a later
/// loop's (kept in the channel) or an earlier one's (dropped) by its distance.
template <Transport T>
class loop_link {
public:
    explicit loop_link(channel<T>& ch) : ch_(ch), t_(ch.transport()), loop_mask_(mask_of(ch)) {
        loop_ = static_cast<std::uint32_t>(ch.begin_loop()) & loop_mask_;
        if (!ch.later().empty()) take_arrived_early();
    }
    loop_link(loop_link const&) = delete;
    loop_link& operator=(loop_link const&) = delete;

    [[nodiscard]] int rank() const { return t_.rank(); }
    [[nodiscard]] int size() const { return t_.size(); }
    [[nodiscard]] double now() const { return t_.now(); }
    [[nodiscard]] T& transport() noexcept { return t_; }

    [[nodiscard]] int tag(kind k) const noexcept { return static_cast<int>(loop_ << kind_bits) | static_cast<int>(k); }

    /// How this rank takes a peer's failure from now on (see loss_rule);
    /// `master`: the rank it answers to, for loss_rule::answers_to.
    void on_losses(loss_rule rule, int master = -1) noexcept {
        rule_ = rule;
        master_ = master;
    }
    /// Ranks the transport said failed, in this loop or an earlier one on the channel.
    [[nodiscard]] std::vector<int> const& failed() const noexcept { return ch_.failed(); }

    void send(int dest, kind k, std::span<std::byte const> data) { send_view(t_, dest, tag(k), data); }
    void send(int dest, kind k, bytes data) { t_.send(dest, tag(k), std::move(data)); }

    /// The loop's next message from any rank; blocks. The view lives until the next receive.
    message_view receive() {
        if (next_early_ < early_.size()) return take_early();
        while (true) {
            message_view v = receive_view(t_, any_source, any_tag, held_);
            if (for_caller(v)) return v;
        }
    }
    /// As receive(), without blocking.
    std::optional<message_view> try_receive() {
        if (next_early_ < early_.size()) return take_early();
        while (auto v = try_receive_view(t_, any_source, any_tag, held_))
            if (for_caller(*v)) return v;
        return std::nullopt;
    }

    /// As receive(), giving up at `deadline` (the failure detector's wait).
    std::optional<message_view> receive_until(double deadline) {
        if (next_early_ < early_.size()) return take_early();
        while (auto v = receive_view_until(t_, any_source, any_tag, deadline, held_))
            if (for_caller(*v)) return v;
        return std::nullopt;
    }

    /// Receives `messages` (this loop's, received in this order) again, before
    /// anything not received yet: messages that overtook the one this rank
    /// waited for.
    void receive_again(std::vector<message> messages) {
        if (messages.empty()) return;
        early_.insert(early_.begin() + static_cast<std::ptrdiff_t>(next_early_),
                      std::make_move_iterator(messages.begin()), std::make_move_iterator(messages.end()));
    }

private:
    /// Whether a received message goes to the caller: this loop's, or a
    /// notice the rule delivers. Otherwise it was kept for a later loop,
    /// dropped as an earlier loop's, or taken by the rule (which may throw).
    bool for_caller(message_view& v) {
        if (v.tag == failed_tag) return take_notice(v);
        if (is_current(v.tag)) return true;
        keep_if_later(v);
        return false;
    }

    /// A peer failed: kept in the channel, then taken by the rule. True: `v`
    /// is now this loop's kind::lost message from it, for the caller.
    bool take_notice(message_view& v) {
        auto& failed = ch_.state().failed;
        if (std::ranges::find(failed, v.source) == failed.end()) failed.push_back(v.source);
        if (rule_ == loss_rule::deliver) {
            v = message_view(v.source, tag(kind::lost), {});
            return true;
        }
        if (rule_ == loss_rule::fatal || v.source == master_) throw rank_lost(v.source);
        return false;
    }

    /// The loop bits the transport's tags leave, asked of the transport once per channel.
    static std::uint32_t mask_of(channel<T>& ch) {
        if (ch.loop_mask() == 0) {
            int bits = 0;
            for (long long bound = static_cast<long long>(tag_bound_of(ch.transport())) + 1; bound > 1; bound >>= 1)
                ++bits;
            ch.set_loop_mask((std::uint32_t{1} << std::clamp(bits - kind_bits, 2, 26)) - 1);
        }
        return ch.loop_mask();
    }

    [[nodiscard]] std::uint32_t distance(int tag) const noexcept {
        return ((static_cast<std::uint32_t>(tag) >> kind_bits) - loop_) & loop_mask_;
    }
    [[nodiscard]] bool is_current(int tag) const noexcept { return distance(tag) == 0; }

    /// A later loop's message waits in the channel; an earlier loop's is dropped.
    void keep_if_later(message_view v) {
        if (distance(v.tag) <= loop_mask_ / 2)
            ch_.later().push_back(message{v.source, v.tag, copy_bytes(v.payload)});
    }
    /// What arrived for this loop while an earlier one ran, in arrival order
    /// (before anything still in the transport, so each sender's order holds).
    void take_arrived_early() {
        auto& later = ch_.later();
        std::deque<message> keep;
        for (auto& m : later) {
            if (is_current(m.tag))
                early_.push_back(std::move(m));
            else if (distance(m.tag) <= loop_mask_ / 2)
                keep.push_back(std::move(m));
        }
        later = std::move(keep);
    }
    message_view take_early() {
        held_ = std::move(early_[next_early_++]);
        return held_;
    }

    channel<T>& ch_;
    T& t_;
    std::uint32_t loop_mask_ = 0, loop_ = 0;
    // A vector, not a deque: libstdc++'s deque allocates when made, and a loop
    // makes its link every time; this one stays empty but after a failure.
    std::vector<message> early_;
    std::size_t next_early_ = 0;
    loss_rule rule_ = loss_rule::fatal;
    int master_ = -1;
    message held_; // the message a view points into, for transports that cannot lend their bytes
};

} // namespace loopsched::detail
