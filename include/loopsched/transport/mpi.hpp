// The Boost.MPI transport: any boost::mpi::communicator (the world or a sub-communicator).
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/transport/channel.hpp>
#include <loopsched/transport/clock.hpp>
#include <loopsched/transport/transport.hpp>
#include <loopsched/transport/ulfm.hpp>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loopsched {

namespace detail {
#if LOOPSCHED_ULFM
/// The ranks of `comm` MPI has seen fail, acknowledged (so that receives from
/// any source go on), in the order MPI lists them.
inline std::vector<int> acknowledged_failures(MPI_Comm comm) {
    MPIX_Comm_failure_ack(comm);
    MPI_Group failed = MPI_GROUP_NULL, all = MPI_GROUP_NULL;
    MPIX_Comm_failure_get_acked(comm, &failed);
    MPI_Comm_group(comm, &all);
    int n = 0;
    MPI_Group_size(failed, &n);
    std::vector<int> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
    if (n > 0) MPI_Group_translate_ranks(failed, n, in.data(), all, out.data());
    MPI_Group_free(&failed);
    MPI_Group_free(&all);
    std::erase(out, MPI_UNDEFINED);
    return out;
}
#endif
} // namespace detail

/// Messages travel as raw bytes (MPI_BYTE), never through Boost.Serialization.
/// A small message costs one MPI_Send and one MPI_Recv into a fixed buffer, with
/// no probe: the runtime's requests and replies are all small. A message of
/// `eager_capacity` bytes or more is announced by a message of exactly that
/// size carrying its length, and follows on the same tag (MPI keeps the order).
/// Every message of `blocking_limit` bytes or more (the large part of a large
/// one included) goes out with MPI_Isend, the transport keeping its bytes until
/// it completes: send() never waits for the receiver. Measured here, a 256-byte
/// MPI_Send could stall for milliseconds while the receiver computed, which
/// stalls a DOACROSS pipeline; the runtime's requests and replies stay below
/// the limit and keep the cheaper MPI_Send.
///
/// With ULFM (LOOPSCHED_ULFM) and a communicator whose errors return (the
/// library's duplicate), a peer's failure never blocks a call: a send to a
/// failed rank is dropped, and the next receive delivers, once per failed
/// rank, a notice (a message from it with the tag failed_tag, no bytes).
class mpi_transport {
public:
    static constexpr int eager_capacity = 1024;
    static constexpr std::size_t blocking_limit = 128;

    /// Borrows `comm`, which must outlive the transport.
    explicit mpi_transport(MPI_Comm comm) : raw_(comm) {
        MPI_Comm_rank(raw_, &rank_);
        MPI_Comm_size(raw_, &size_);
    }
    explicit mpi_transport(boost::mpi::communicator const& comm) : mpi_transport(static_cast<MPI_Comm>(comm)) {}
    mpi_transport(mpi_transport const&) = delete;
    mpi_transport& operator=(mpi_transport const&) = delete;

    /// Never waits: a send still under way may be a failed loop's message to
    /// a rank that left that loop and will drop it only at its next receive
    /// (or never, if it runs no more loops), and Open MPI cannot cancel a send.
    /// Such requests are released and their bytes kept until the process
    /// ends, so MPI may still read them.
    ~mpi_transport() {
        counter_close();
        if (in_flight_.empty()) return;
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (finalized) return;
        complete_finished_sends();
        for (auto& p : in_flight_) MPI_Request_free(&p.request);
        static std::list<in_flight> abandoned;
        abandoned.splice(abandoned.end(), in_flight_);
    }

    [[nodiscard]] int rank() const noexcept { return rank_; }
    [[nodiscard]] int size() const noexcept { return size_; }
    [[nodiscard]] MPI_Comm handle() const noexcept { return raw_; }
    /// The largest tag MPI allows on this communicator (at least 32767).
    [[nodiscard]] int tag_bound() const {
        void* value = nullptr;
        int found = 0;
        MPI_Comm_get_attr(raw_, MPI_TAG_UB, &value, &found);
        return found ? *static_cast<int*>(value) : 32767;
    }

    /// The library's channel for this communicator: a duplicate of it, made
    /// the first time (a collective call) and kept with the communicator.
    channel<mpi_transport>& library_channel();

    void send(int dest, int tag, bytes data) {
        detail::require(data.size() <= static_cast<std::size_t>(INT_MAX), "message size", data.size(),
                        "must fit in an MPI count (int)");
        if (data.size() >= static_cast<std::size_t>(eager_capacity)) {
            std::array<std::byte, eager_capacity> announce{};
            std::uint64_t const n = data.size();
            std::memcpy(announce.data(), &n, sizeof n);
            if (!ok(MPI_Send(announce.data(), eager_capacity, MPI_BYTE, dest, tag, raw_), "MPI_Send")) return;
        }
        if (data.size() >= blocking_limit) {
            complete_finished_sends();
            auto& p = in_flight_.emplace_back(std::move(data));
            if (!ok(MPI_Isend(p.data.data(), static_cast<int>(p.data.size()), MPI_BYTE, dest, tag, raw_, &p.request),
                    "MPI_Isend"))
                in_flight_.pop_back();
            return;
        }
        ok(MPI_Send(data.data(), static_cast<int>(data.size()), MPI_BYTE, dest, tag, raw_), "MPI_Send");
    }
    /// As send(), for bytes the caller keeps: a small message leaves straight
    /// from them, a larger one is copied first (its send may outlive them).
    void send_view(int dest, int tag, std::span<std::byte const> data) {
        if (data.size() < blocking_limit)
            ok(MPI_Send(data.data(), static_cast<int>(data.size()), MPI_BYTE, dest, tag, raw_), "MPI_Send");
        else
            send(dest, tag, copy_bytes(data));
    }
    message receive(int source, int tag) { return copy(receive_view(source, tag)); }
    std::optional<message> try_receive(int source, int tag) {
        auto v = try_receive_view(source, tag);
        if (!v) return std::nullopt;
        return copy(*v);
    }
    /// receive(), the bytes left where they arrived: valid until the next receive.
    message_view receive_view(int source, int tag) {
        if (LOOPSCHED_ULFM && !notices_.empty()) [[unlikely]] // only ULFM queues them
            return notice();
        MPI_Status status;
        while (!ok(MPI_Recv(buffer_.data(), eager_capacity, MPI_BYTE, wildcard_source(source), wildcard_tag(tag), raw_,
                            &status),
                   "MPI_Recv"))
            if (!notices_.empty()) return notice(); // else a failure already told: receive again
        return view(status);
    }
    std::optional<message_view> try_receive_view(int source, int tag) {
        if (LOOPSCHED_ULFM && !notices_.empty()) [[unlikely]] // only ULFM queues them
            return notice();
        int flag = 0;
        MPI_Status status;
        if (!ok(MPI_Iprobe(wildcard_source(source), wildcard_tag(tag), raw_, &flag, &status), "MPI_Iprobe"))
            return notices_.empty() ? std::nullopt : std::optional(notice());
        if (!flag) return std::nullopt;
        // Receive exactly the probed message: it may be the announcement of a large one.
        int const from = status.MPI_SOURCE;
        if (!ok(MPI_Recv(buffer_.data(), eager_capacity, MPI_BYTE, from, status.MPI_TAG, raw_, &status), "MPI_Recv"))
            return failed_peer(from);
        return view(status);
    }
    [[nodiscard]] double now() const noexcept { return detail::fast_clock::now(); }

    /// The shared counter (see has_shared_counter): one 64-bit integer in a
    /// window on rank 0, reached by MPI_Fetch_and_op in a passive-target epoch
    /// that stays open. Where every rank is on one node (MPI_Comm_split_type)
    /// the window is MPI_Win_allocate_shared's and a claim is the processor's
    /// own atomic on it (std::atomic_ref: a lock-free atomic is address-free,
    /// so processes that map the same memory share it), some 5 times cheaper
    /// than MPI_Fetch_and_op and its flush. Opened by the first loop without
    /// a master (collective), closed with the transport, which must then be
    /// destroyed on every rank (the library's channel is, when its
    /// communicator is freed or MPI finalized).
    [[nodiscard]] bool counter_opened() const noexcept { return counter_.window != MPI_WIN_NULL; }
    void counter_open() {
        if (counter_opened()) return;
        MPI_Comm node = MPI_COMM_NULL;
        ok(MPI_Comm_split_type(raw_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
        int node_ranks = 0;
        MPI_Comm_size(node, &node_ranks);
        MPI_Comm_free(&node);
        // LOOPSCHED_MPI_ATOMICS=rma takes MPI's atomics on one node too (the
        // path between nodes, to test or measure it); every rank must agree.
        char const* const atomics = std::getenv("LOOPSCHED_MPI_ATOMICS");
        int shared = node_ranks == size_ && !(atomics && std::string_view(atomics) == "rma");
        ok(MPI_Allreduce(MPI_IN_PLACE, &shared, 1, MPI_INT, MPI_MIN, raw_), "MPI_Allreduce");
        one_node_ = shared != 0;
        counter_ = open_on_rank0<std::int64_t>(1);
    }
    std::int64_t counter_fetch_add(std::int64_t n) {
        if (auto* at = counter_.shared<std::int64_t>())
            return std::atomic_ref<std::int64_t>(*at).fetch_add(n, std::memory_order_relaxed);
        std::int64_t before = 0;
        if (!ok(MPI_Fetch_and_op(&n, &before, MPI_INT64_T, 0, 0, MPI_SUM, counter_.window), "MPI_Fetch_and_op") ||
            !ok(MPI_Win_flush(0, counter_.window), "MPI_Win_flush"))
            return std::numeric_limits<std::int64_t>::max() / 2; // rank 0 failed: no step is left; its notice follows
        return before;
    }
    /// The claims log: a window of 32-bit entries on rank 0 like the counter's,
    /// reached by MPI_Compare_and_swap and MPI_Get_accumulate (MPI_NO_OP) or,
    /// in shared memory, the processor's atomics. Growing it frees the window
    /// and allocates one twice as large (collective).
    void claims_reserve(std::int64_t entries) {
        if (entries <= claims_entries_) return;
        std::int64_t const size = std::max(entries, 2 * claims_entries_);
        close(claims_);
        claims_ = open_on_rank0<std::int32_t>(size);
        claims_entries_ = size;
    }
    void claims_clear() noexcept {
        if (claims_.local == nullptr) return; // never reserved, or not rank 0
        MPI_Win_sync(claims_.window); // the others' atomics, before the local reads
        auto* const log = static_cast<std::int32_t*>(claims_.local);
        for (std::int64_t i = 0; i < claims_entries_; ++i) {
            std::atomic_ref<std::int32_t> entry(log[i]);
            if (entry.load(std::memory_order_relaxed) == 0) break;
            entry.store(0, std::memory_order_relaxed);
        }
        MPI_Win_sync(claims_.window); // the zeros, before the go that follows
    }
    std::int32_t claims_compare_and_swap(std::int64_t slot, std::int32_t who) {
        std::int32_t before = 0;
        if (auto* log = claims_.shared<std::int32_t>()) {
            std::atomic_ref<std::int32_t>(log[slot]).compare_exchange_strong(before, who, std::memory_order_relaxed);
            return before;
        }
        std::int32_t const empty = 0;
        if (!ok(MPI_Compare_and_swap(&who, &empty, &before, MPI_INT32_T, 0, slot, claims_.window),
                "MPI_Compare_and_swap") ||
            !ok(MPI_Win_flush(0, claims_.window), "MPI_Win_flush"))
            return -1; // rank 0 failed; its notice follows
        return before;
    }
    void claims_read(std::int64_t slot, std::span<std::int32_t> out) {
        std::ranges::fill(out, 0);
        int const count = static_cast<int>(
                std::clamp<std::int64_t>(claims_entries_ - slot, 0, static_cast<std::int64_t>(out.size())));
        if (count == 0) return;
        if (auto* log = claims_.shared<std::int32_t>()) {
            for (int i = 0; i < count; ++i)
                out[static_cast<std::size_t>(i)] =
                        std::atomic_ref<std::int32_t>(log[slot + i]).load(std::memory_order_relaxed);
            return;
        }
        if (!ok(MPI_Get_accumulate(nullptr, 0, MPI_INT32_T, out.data(), count, MPI_INT32_T, 0, slot, count,
                                   MPI_INT32_T, MPI_NO_OP, claims_.window),
                "MPI_Get_accumulate") ||
            !ok(MPI_Win_flush(0, claims_.window), "MPI_Win_flush"))
            std::ranges::fill(out, 0); // rank 0 failed: the compare-and-swap that follows says so
    }
    /// Frees the counter's and the log's windows (collective), if they were
    /// opened and MPI still runs.
    void counter_close() noexcept {
        close(claims_);
        claims_entries_ = 0;
        close(counter_);
    }

private:
    /// A window whose memory is all on rank 0, held in a passive-target epoch
    /// (lock_all) from its opening to its closing.
    struct rank0_window {
        MPI_Win window = MPI_WIN_NULL;
        void* local = nullptr;     ///< rank 0: the memory itself
        void* in_shared = nullptr; ///< every rank, in shared memory: rank 0's memory, mapped here
        /// The memory as T, where every rank reaches it by the processor's atomics.
        template <class T>
        [[nodiscard]] T* shared() const noexcept {
            return static_cast<T*>(in_shared);
        }
    };

    /// Opens a window of `count` zeroed Ts on rank 0 (collective), in shared
    /// memory where every rank is on one node. Processes that map the same
    /// memory share a lock-free atomic (std::atomic_ref: address-free), some 5
    /// times cheaper than an MPI atomic and its flush.
    template <class T>
    rank0_window open_on_rank0(std::int64_t count) {
        rank0_window w;
        MPI_Aint const held = rank_ == 0 ? static_cast<MPI_Aint>(count * static_cast<std::int64_t>(sizeof(T))) : 0;
        void* base = nullptr;
        if (one_node_)
            ok(MPI_Win_allocate_shared(held, sizeof(T), MPI_INFO_NULL, raw_, &base, &w.window),
               "MPI_Win_allocate_shared");
        else
            ok(MPI_Win_allocate(held, sizeof(T), MPI_INFO_NULL, raw_, &base, &w.window), "MPI_Win_allocate");
#if LOOPSCHED_ULFM
        MPI_Win_set_errhandler(w.window, MPI_ERRORS_RETURN);
#endif
        if (rank_ == 0) {
            std::memset(base, 0, static_cast<std::size_t>(held)); // local stores, before any epoch
            w.local = base;
        }
        if (std::atomic_ref<T>::is_always_lock_free && one_node_) {
            MPI_Aint size = 0;
            int unit = 0;
            void* at = nullptr;
            MPI_Win_shared_query(w.window, 0, &size, &unit, &at);
            if (reinterpret_cast<std::uintptr_t>(at) % std::atomic_ref<T>::required_alignment == 0) w.in_shared = at;
        }
        MPI_Win_lock_all(MPI_MODE_NOCHECK, w.window);
        ok(MPI_Barrier(raw_), "MPI_Barrier"); // the zeros are in place before anyone uses them
        return w;
    }
    /// Frees a window opened by open_on_rank0 (collective), if MPI still runs.
    static void close(rank0_window& w) noexcept {
        if (w.window == MPI_WIN_NULL) return;
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) {
            MPI_Win_unlock_all(w.window);
            MPI_Win_free(&w.window);
        }
        w = rank0_window{};
    }

    /// Bytes in a received message. Open MPI's status holds the count in bytes,
    /// and MPI_Get_count spends some 40 instructions checking its arguments on
    /// every message; other MPIs go through it.
    static std::size_t received_bytes(MPI_Status const& status) {
#if defined(OPEN_MPI)
        return status._ucount;
#else
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        return static_cast<std::size_t>(count);
#endif
    }

    static int wildcard_source(int s) { return s == any_source ? MPI_ANY_SOURCE : s; }
    static int wildcard_tag(int t) { return t == any_tag ? MPI_ANY_TAG : t; }

    /// The message in buffer_, or the large message it announces (received into large_).
    message_view view(MPI_Status const& status) {
        std::size_t const count = received_bytes(status);
        if (count < static_cast<std::size_t>(eager_capacity))
            return {status.MPI_SOURCE, status.MPI_TAG, {buffer_.data(), count}};
        std::uint64_t n = 0;
        std::memcpy(&n, buffer_.data(), sizeof n);
        large_.resize(n, boost::container::default_init);
        if (!ok(MPI_Recv(large_.data(), static_cast<int>(n), MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, raw_,
                         MPI_STATUS_IGNORE),
                "MPI_Recv")) {
            large_.clear();
            return failed_peer(status.MPI_SOURCE); // it failed between the announcement and the message
        }
        return {status.MPI_SOURCE, status.MPI_TAG, {large_.data(), large_.size()}};
    }
    /// A message of its own; a large one takes large_'s bytes rather than copying them.
    message copy(message_view v) {
        if (!large_.empty() && v.payload.data() == large_.data()) return {v.source, v.tag, std::exchange(large_, {})};
        return {v.source, v.tag, copy_bytes(v.payload)};
    }

    void complete_finished_sends() {
        std::erase_if(in_flight_, [](in_flight& p) {
            int done = 0;
            // An error: the receiver failed (ULFM); the send is over all the same.
            return MPI_Test(&p.request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done != 0;
        });
    }

    /// An MPI call's result: true on success. A peer's failure (ULFM) is
    /// learned and false returned; any other error throws, naming the call.
    bool ok(int code, char const* call) {
        if (code == MPI_SUCCESS) [[likely]]
            return true;
        return peer_failed(code, call);
    }
    [[gnu::cold, gnu::noinline]] bool peer_failed(int code, char const* call) {
#if LOOPSCHED_ULFM
        int kind = 0;
        MPI_Error_class(code, &kind);
        if (kind == MPIX_ERR_PROC_FAILED || kind == MPIX_ERR_PROC_FAILED_PENDING) {
            learn_failures();
            return false;
        }
#endif
        char text[MPI_MAX_ERROR_STRING] = {};
        int length = 0;
        MPI_Error_string(code, text, &length);
        throw error(std::string("loopsched: ") + call + " failed: " + std::string(text, static_cast<std::size_t>(length)));
    }
    /// Acknowledges the failures MPI has seen (so that receives from any
    /// source go on) and queues a notice for each rank not told before.
    void learn_failures() {
#if LOOPSCHED_ULFM
        for (int const r : detail::acknowledged_failures(raw_))
            if (std::find(told_.begin(), told_.end(), r) == told_.end()) {
                told_.push_back(r);
                notices_.push_back(r);
            }
#endif
    }
    /// The oldest failure not yet told, as a notice.
    message_view notice() {
        int const r = notices_.front();
        notices_.erase(notices_.begin());
        return {r, failed_tag, {}};
    }
    /// A receive from `source` failed: it did. Its notice, now or again.
    message_view failed_peer(int source) {
        std::erase(notices_, source);
        return {source, failed_tag, {}};
    }

    /// A large send under way: its bytes live here until MPI is done with them.
    struct in_flight {
        explicit in_flight(bytes d) : data(std::move(d)) {}
        bytes data;
        MPI_Request request = MPI_REQUEST_NULL;
    };

    MPI_Comm raw_;
    rank0_window counter_;           ///< the shared counter, once opened
    rank0_window claims_;            ///< the claims log, once reserved
    std::int64_t claims_entries_ = 0;
    bool one_node_ = false;          ///< every rank on one node: windows in shared memory
    int rank_ = 0, size_ = 0;
    std::array<std::byte, eager_capacity> buffer_; // only received bytes are read
    bytes large_;                                  // the last large message received by receive_view
    std::list<in_flight> in_flight_;
    std::vector<int> told_, notices_; ///< ULFM: failed ranks; those whose notice is still to come
};

namespace detail {

/// What the library keeps with a user's communicator (as an MPI attribute):
/// a duplicate of it and the channel over that duplicate.
struct mpi_library {
    explicit mpi_library(MPI_Comm user) : duplicate(dup(user)), channel(std::in_place, duplicate) {}
    mpi_library(mpi_library const&) = delete;
    mpi_library& operator=(mpi_library const&) = delete;
    ~mpi_library() {
        channel.transport().counter_close(); // its window, before the communicator it was made on
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Comm_free(&duplicate);
    }
    /// With ULFM its errors return, so that a failed peer is news, not the
    /// end; and it is made by MPIX_Comm_shrink, which completes when a rank
    /// fails meanwhile and gives every survivor the same group (Open MPI
    /// 5.0.11's MPI_Comm_dup crashed on the survivors when a rank died during
    /// it). A rank missing from that group failed before: every survivor
    /// throws rank_lost naming it.
    static MPI_Comm dup(MPI_Comm user) {
        MPI_Comm d = MPI_COMM_NULL;
#if LOOPSCHED_ULFM
        if (int const code = MPIX_Comm_shrink(user, &d); code != MPI_SUCCESS)
            throw error("loopsched: MPIX_Comm_shrink failed (error code " + std::to_string(code) + ")");
        if (int const missing = first_missing(user, d); missing >= 0) {
            MPI_Comm_free(&d);
            throw rank_lost(missing);
        }
        MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
#else
        MPI_Comm_dup(user, &d);
#endif
        return d;
    }
    /// The lowest rank of `user` that `part` lacks, or -1.
    static int first_missing(MPI_Comm user, MPI_Comm part) {
        MPI_Group all = MPI_GROUP_NULL, kept = MPI_GROUP_NULL, gone = MPI_GROUP_NULL;
        MPI_Comm_group(user, &all);
        MPI_Comm_group(part, &kept);
        MPI_Group_difference(all, kept, &gone);
        int size = 0, first = 0, rank = -1;
        MPI_Group_size(gone, &size);
        if (size > 0) MPI_Group_translate_ranks(gone, 1, &first, all, &rank);
        for (MPI_Group* g : {&all, &kept, &gone}) MPI_Group_free(g);
        return rank;
    }

    MPI_Comm duplicate;
    loopsched::channel<mpi_transport> channel;
};

/// The attribute key under which a communicator keeps its mpi_library. A
/// duplicate of the user's communicator does not inherit it (MPI_Comm_dup
/// copies no attribute), and freeing the communicator frees it.
inline int mpi_library_key() {
    static int const key = [] {
        int k = MPI_KEYVAL_INVALID;
        MPI_Comm_create_keyval(
                MPI_COMM_NULL_COPY_FN,
                [](MPI_Comm, int, void* value, void*) -> int {
                    delete static_cast<mpi_library*>(value);
                    return MPI_SUCCESS;
                },
                &k, nullptr);
        return k;
    }();
    return key;
}

} // namespace detail

/// The library's channel for a communicator: over a duplicate of it, made at
/// the first call (collective) and kept with the communicator.
inline channel<mpi_transport>& mpi_channel(MPI_Comm comm) {
    int const key = detail::mpi_library_key();
    void* value = nullptr;
    int found = 0;
    MPI_Comm_get_attr(comm, key, &value, &found);
    if (!found) {
        value = new detail::mpi_library(comm);
        MPI_Comm_set_attr(comm, key, value);
    }
    return static_cast<detail::mpi_library*>(value)->channel;
}

inline channel<mpi_transport>& mpi_transport::library_channel() { return mpi_channel(raw_); }

} // namespace loopsched
