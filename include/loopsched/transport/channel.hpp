// channel<T>: the library's own view of a transport, as a duplicated
// communicator is an MPI library's: a message context no user message reaches,
// the count of loops run over it, and messages that arrived early for a later loop.
#pragma once

#include <loopsched/transport/transport.hpp>

#include <cstdint>
#include <deque>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {

namespace detail {
/// A channel's loop count and early messages, apart from its transport: an
/// erased view of a channel (transport/erased.hpp) shares its channel's.
struct channel_state {
    std::uint64_t loops = 0;
    std::uint32_t loop_mask = 0;
    std::deque<message> later;
    std::vector<int> failed; ///< ranks the transport said failed, in the order it said so
};
} // namespace detail

/// Made once per communicator (or in-process endpoint, or simulated rank) and
/// kept: every algorithm of the library runs over it. `T` must reach a message
/// context of its own (an MPI_Comm_dup, the in-process network's library
/// context), so that no user message can reach a loop and no loop message a
/// user. Each loop takes the next loop number on every rank (loops are
/// collective), and its messages carry it: nothing of one loop can reach another.
///
/// (T is checked against Transport where a channel is made, not where it is
/// named: a transport's own class names its channel before it is complete.)
template <class T>
class channel {
public:
    template <class... A>
    requires std::is_constructible_v<T, A...>
    explicit channel(std::in_place_t, A&&... args) : transport_(std::forward<A>(args)...), state_(&own_.emplace()) {
        static_assert(Transport<T>, "loopsched::channel<T>: T must model Transport");
    }
    explicit channel(T transport) requires std::is_move_constructible_v<T>
            : transport_(std::move(transport)), state_(&own_.emplace()) {
        static_assert(Transport<T>, "loopsched::channel<T>: T must model Transport");
    }
    /// A view over another channel's loops: its loop count and early messages
    /// are `shared`'s (the library's erased engines run over such a view).
    channel(T transport, detail::channel_state& shared) requires std::is_move_constructible_v<T>
            : transport_(std::move(transport)), state_(&shared) {
        static_assert(Transport<T>, "loopsched::channel<T>: T must model Transport");
    }
    channel(channel const&) = delete;
    channel& operator=(channel const&) = delete;

    [[nodiscard]] T& transport() noexcept { return transport_; }
    [[nodiscard]] T const& transport() const noexcept { return transport_; }
    [[nodiscard]] int rank() const { return transport_.rank(); }
    [[nodiscard]] int size() const { return transport_.size(); }

    /// The next loop's number, the same on every rank.
    [[nodiscard]] std::uint64_t begin_loop() noexcept { return ++state_->loops; }
    [[nodiscard]] std::uint64_t loops() const noexcept { return state_->loops; }
    /// Messages received for a loop after the one running (a fast rank's next
    /// loop starting while this rank still finishes a failed one), oldest first.
    [[nodiscard]] std::deque<message>& later() noexcept { return state_->later; }
    /// The loop numbers' bits in a tag, once known (0: not yet).
    [[nodiscard]] std::uint32_t loop_mask() const noexcept { return state_->loop_mask; }
    void set_loop_mask(std::uint32_t mask) noexcept { state_->loop_mask = mask; }
    /// Ranks the transport said failed (their notices came through a loop's
    /// link); a loop on this channel cannot count on them.
    [[nodiscard]] std::vector<int> const& failed() const noexcept { return state_->failed; }
    /// What a view over this channel shares (the constructor above).
    [[nodiscard]] detail::channel_state& state() noexcept { return *state_; }

private:
    T transport_;
    // Empty in a view: libstdc++'s deque allocates when made, and a view is
    // made for every loop a compiled engine runs. (Not movable: state_ may point here.)
    std::optional<detail::channel_state> own_;
    detail::channel_state* state_;
};

/// A transport that lends the library a channel of its own: `t.library_channel()`.
/// mpi_transport, in_process::endpoint and sim::transport do.
template <class T>
concept has_library_channel = requires(T& t) {
    t.library_channel();
};

namespace detail {
template <class T>
inline constexpr bool is_channel_v = false;
template <class T>
inline constexpr bool is_channel_v<channel<T>> = true;
} // namespace detail

/// What the algorithms run over: a channel, or a transport that lends one.
template <class T>
concept channel_source = detail::is_channel_v<T> || has_library_channel<T>;

namespace detail {

/// The channel the library runs over for `t`: t itself if it is one, else the
/// one it lends.
template <class T>
decltype(auto) channel_of(T& t) {
    if constexpr (is_channel_v<T>) {
        return (t);
    } else {
        static_assert(has_library_channel<T>,
                      "loopsched: this Transport lends no channel of its own: give it library_channel() returning a "
                      "loopsched::channel over a message context no user message reaches (see transport/channel.hpp), "
                      "or pass a loopsched::channel<T> you made");
        return (t.library_channel());
    }
}

} // namespace detail
} // namespace loopsched
