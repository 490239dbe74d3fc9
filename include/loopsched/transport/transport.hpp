// The Transport concept: what the master and worker engines need from a
// message layer (Boost.MPI, in-process threads, or a simulator), and the
// helpers that use a transport's optional members where it has them.
#pragma once

#include <loopsched/detail/small_vector.hpp>

#include <concepts>
#include <cstddef>
#include <deque>
#include <optional>
#include <span>
#include <utility>

namespace loopsched {

/// Wildcards for receive(): any sender, any tag.
inline constexpr int any_source = -1;
inline constexpr int any_tag = -1;

/// The tag of a transport's notice that a peer failed: a message from the
/// failed rank, with no bytes, delivered once by receive() and try_receive()
/// (the MPI transport where the library has User-Level Failure Mitigation).
/// No message a rank sends carries it: tags are never negative.
inline constexpr int failed_tag = -2;

/// A message's bytes. Requests and replies fit inline: no allocation per message.
using bytes = boost::container::small_vector<std::byte, 96>;

/// A copy of `data` as message bytes. From pointers the copy is one memcpy;
/// from span or vector iterators Boost.Container copies byte by byte.
inline bytes copy_bytes(std::span<std::byte const> data) { return bytes(data.data(), data.data() + data.size()); }

/// One received message.
struct message {
    int source = 0;
    int tag = 0;
    bytes payload;
};

/// A received message's bytes, borrowed: from a message, or from a transport's
/// own buffer until its next receive (see detail::receive_view).
struct message_view {
    int source = 0;
    int tag = 0;
    std::span<std::byte const> payload;

    message_view() = default;
    message_view(int from, int with_tag, std::span<std::byte const> data)
            : source(from), tag(with_tag), payload(data) {}
    // Implicit, as std::string_view from std::string: the message must outlive the view.
    message_view(message const& m) : source(m.source), tag(m.tag), payload(m.payload.data(), m.payload.size()) {}
};

/// A message layer between ranks 0 .. size()-1.
/// Requirements:
///  1. `rank()` and `size()`;
///  2. `send(dest, tag, data)`, which returns without waiting for the receiver
///     to act on the message (eager or buffered, as MPI does for small messages);
///  3. `receive(source, tag)`, blocking, and `try_receive(source, tag)`, not
///     blocking, each accepting the wildcards any_source / any_tag;
///  4. `now()`, a clock in seconds.
template <class T>
concept Transport = requires(T& t, T const& ct, int peer, int tag, bytes data) {
    { ct.rank() } -> std::same_as<int>;
    { ct.size() } -> std::same_as<int>;
    t.send(peer, tag, std::move(data));
    { t.receive(peer, tag) } -> std::same_as<message>;
    { t.try_receive(peer, tag) } -> std::same_as<std::optional<message>>;
    { ct.now() } -> std::same_as<double>;
};

namespace detail {

/// Whether the algorithms run over transport T through the engines
/// loopsched::compiled holds (config.hpp: LOOPSCHED_COMPILED), through T's
/// erased view, instead of instantiating them in every translation unit: for
/// every transport when the library is linked, none otherwise. (Not for the
/// erased transport itself, which the library's engines run over.)
template <class T>
inline constexpr bool engines_compiled_for =
#ifdef LOOPSCHED_COMPILED
        true;
#else
        false;
#endif

/// The stack of a rank's own actor where the transport runs ranks on stacks of
/// their own (a simulator's static actor_stack_bytes, or an erased transport's
/// member), else 0: the rank runs on its thread's stack.
template <class T>
std::size_t actor_stack_bytes_of([[maybe_unused]] T const& t) {
    if constexpr (requires { T::actor_stack_bytes; })
        return T::actor_stack_bytes;
    else if constexpr (requires { t.actor_stack_bytes(); })
        return t.actor_stack_bytes();
    else
        return 0;
}

/// Sends bytes the caller keeps: through the transport's send_view if it has
/// one (Boost.MPI sends a small message straight from them), else as a copy.
/// The runtime's per-chunk requests and replies go this way.
template <Transport T>
void send_view(T& t, int dest, int tag, std::span<std::byte const> data) {
    if constexpr (requires { t.send_view(dest, tag, data); })
        t.send_view(dest, tag, data);
    else
        t.send(dest, tag, copy_bytes(data));
}

/// receive() without copying the bytes where the transport can lend them
/// (Boost.MPI reads a small message in place): the view is valid until the
/// transport's next receive. Otherwise the message is kept in `held`. The
/// runtime's per-chunk requests and replies come this way.
template <Transport T>
message_view receive_view(T& t, int source, int tag, message& held) {
    if constexpr (requires {
                      { t.receive_view(source, tag) } -> std::same_as<message_view>;
                  }) {
        return t.receive_view(source, tag);
    } else {
        held = t.receive(source, tag);
        return held;
    }
}

/// try_receive() as receive_view() receives.
template <Transport T>
std::optional<message_view> try_receive_view(T& t, int source, int tag, message& held) {
    if constexpr (requires {
                      { t.try_receive_view(source, tag) } -> std::same_as<std::optional<message_view>>;
                  }) {
        return t.try_receive_view(source, tag);
    } else {
        auto m = t.try_receive(source, tag);
        if (!m) return std::nullopt;
        held = std::move(*m);
        return message_view(held);
    }
}

/// Takes the oldest message of `queue` from `source` with `tag` (wildcards
/// allowed): FIFO per sender, MPI's non-overtaking rule. For transports that
/// hold messages that arrived before anyone asked for them.
inline std::optional<message> take_matching(std::deque<message>& queue, int source, int tag) {
    for (auto it = queue.begin(); it != queue.end(); ++it)
        if ((source == any_source || it->source == source) && (tag == any_tag || it->tag == tag)) {
            message m = std::move(*it);
            queue.erase(it);
            return m;
        }
    return std::nullopt;
}

} // namespace detail
} // namespace loopsched
