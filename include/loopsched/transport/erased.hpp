// erased_transport: any Transport behind one virtual call per operation, and
// erased_channel, a view of a channel over it. A compiled library holds each
// engine once, over erased_transport, for every transport (impl/compiled_engines.ipp).
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/transport/channel.hpp>
#include <loopsched/transport/counter.hpp>
#include <loopsched/transport/deadline.hpp>
#include <loopsched/transport/transport.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>

namespace loopsched::detail {

/// What erased_transport calls: the Transport operations and the optional
/// ones the engines look for (send_view, the views, the bounded wait, the tag
/// bound, a simulated rank's stack, the shared counter).
class transport_interface {
public:
    [[nodiscard]] virtual int rank() const = 0;
    [[nodiscard]] virtual int size() const = 0;
    [[nodiscard]] virtual double now() const = 0;
    [[nodiscard]] virtual int tag_bound() const = 0;
    /// The stack of the rank's own actor where the transport runs ranks on
    /// stacks of their own (a simulator), else 0: the thread's.
    [[nodiscard]] virtual std::size_t actor_stack_bytes() const = 0;
    virtual void send(int dest, int tag, bytes data) = 0;
    virtual void send_view(int dest, int tag, std::span<std::byte const> data) = 0;
    virtual message receive(int source, int tag) = 0;
    virtual std::optional<message> try_receive(int source, int tag) = 0;
    virtual message_view receive_view(int source, int tag) = 0;
    virtual std::optional<message_view> try_receive_view(int source, int tag) = 0;
    virtual std::optional<message_view> receive_view_until(int source, int tag, double deadline) = 0;
    /// The shared counter (see has_shared_counter), where the transport has one.
    [[nodiscard]] virtual bool has_counter() const = 0;
    [[nodiscard]] virtual bool counter_opened() const = 0;
    virtual void counter_open() = 0;
    virtual std::int64_t counter_fetch_add(std::int64_t n) = 0;
    virtual void claims_reserve(std::int64_t entries) = 0;
    virtual void claims_clear() = 0;
    virtual std::int32_t claims_compare_and_swap(std::int64_t slot, std::int32_t who) = 0;
    virtual void claims_read(std::int64_t slot, std::span<std::int32_t> out) = 0;

protected:
    ~transport_interface() = default;
};

/// A Transport that forwards to a transport_interface it does not own.
class erased_transport {
public:
    explicit erased_transport(transport_interface& t) : t_(&t), rank_(t.rank()), size_(t.size()) {}

    [[nodiscard]] int rank() const noexcept { return rank_; }
    [[nodiscard]] int size() const noexcept { return size_; }
    [[nodiscard]] double now() const { return t_->now(); }
    [[nodiscard]] int tag_bound() const { return t_->tag_bound(); }
    [[nodiscard]] std::size_t actor_stack_bytes() const { return t_->actor_stack_bytes(); }
    void send(int dest, int tag, bytes data) { t_->send(dest, tag, std::move(data)); }
    void send_view(int dest, int tag, std::span<std::byte const> data) { t_->send_view(dest, tag, data); }
    message receive(int source, int tag) { return t_->receive(source, tag); }
    std::optional<message> try_receive(int source, int tag) { return t_->try_receive(source, tag); }
    message_view receive_view(int source, int tag) { return t_->receive_view(source, tag); }
    std::optional<message_view> try_receive_view(int source, int tag) { return t_->try_receive_view(source, tag); }
    std::optional<message_view> receive_view_until(int source, int tag, double deadline) {
        return t_->receive_view_until(source, tag, deadline);
    }
    [[nodiscard]] bool has_counter() const { return t_->has_counter(); }
    [[nodiscard]] bool counter_opened() const { return t_->counter_opened(); }
    void counter_open() { t_->counter_open(); }
    std::int64_t counter_fetch_add(std::int64_t n) { return t_->counter_fetch_add(n); }
    void claims_reserve(std::int64_t entries) { t_->claims_reserve(entries); }
    void claims_clear() { t_->claims_clear(); }
    std::int32_t claims_compare_and_swap(std::int64_t slot, std::int32_t who) {
        return t_->claims_compare_and_swap(slot, who);
    }
    void claims_read(std::int64_t slot, std::span<std::int32_t> out) { t_->claims_read(slot, out); }

private:
    transport_interface* t_;
    int rank_, size_; // asked on every message: kept here, not behind the call
};

/// transport_interface over a T it does not own. Views point into T's buffer
/// or into held_, until the next receive, as the Transport helpers say.
template <Transport T>
class transport_adapter final : public transport_interface {
public:
    explicit transport_adapter(T& t) noexcept : t_(t) {}
    transport_adapter(transport_adapter const&) = delete;
    transport_adapter& operator=(transport_adapter const&) = delete;

    [[nodiscard]] int rank() const override { return t_.rank(); }
    [[nodiscard]] int size() const override { return t_.size(); }
    [[nodiscard]] double now() const override { return t_.now(); }
    [[nodiscard]] int tag_bound() const override { return tag_bound_of(t_); }
    [[nodiscard]] std::size_t actor_stack_bytes() const override { return actor_stack_bytes_of(t_); }
    void send(int dest, int tag, bytes data) override { t_.send(dest, tag, std::move(data)); }
    void send_view(int dest, int tag, std::span<std::byte const> data) override {
        detail::send_view(t_, dest, tag, data);
    }
    message receive(int source, int tag) override { return t_.receive(source, tag); }
    std::optional<message> try_receive(int source, int tag) override { return t_.try_receive(source, tag); }
    message_view receive_view(int source, int tag) override { return detail::receive_view(t_, source, tag, held_); }
    std::optional<message_view> try_receive_view(int source, int tag) override {
        return detail::try_receive_view(t_, source, tag, held_);
    }
    std::optional<message_view> receive_view_until(int source, int tag, double deadline) override {
        return detail::receive_view_until(t_, source, tag, deadline, held_);
    }
    [[nodiscard]] bool has_counter() const override { return has_shared_counter<T>; }
    [[nodiscard]] bool counter_opened() const override {
        if constexpr (has_shared_counter<T>)
            return t_.counter_opened();
        else
            return false;
    }
    void counter_open() override {
        if constexpr (has_shared_counter<T>) t_.counter_open();
    }
    std::int64_t counter_fetch_add(std::int64_t n) override {
        if constexpr (has_shared_counter<T>)
            return t_.counter_fetch_add(n);
        else
            return no_counter(n);
    }
    void claims_reserve(std::int64_t entries) override {
        if constexpr (has_shared_counter<T>)
            t_.claims_reserve(entries);
        else
            no_counter(entries);
    }
    void claims_clear() override {
        if constexpr (has_shared_counter<T>) t_.claims_clear();
    }
    std::int32_t claims_compare_and_swap(std::int64_t slot, std::int32_t who) override {
        if constexpr (has_shared_counter<T>)
            return t_.claims_compare_and_swap(slot, who);
        else
            return static_cast<std::int32_t>(no_counter(who));
    }
    void claims_read(std::int64_t slot, std::span<std::int32_t> out) override {
        if constexpr (has_shared_counter<T>)
            t_.claims_read(slot, out);
        else
            no_counter(slot);
    }

private:
    [[noreturn]] static std::int64_t no_counter(std::int64_t) {
        throw error("loopsched: internal: a shared counter asked of a transport that has none");
    }
    T& t_;
    message held_;
};

/// A channel's erased view, for one call into the compiled engines: the same
/// loops and early messages, its transport behind transport_interface.
template <Transport T>
class erased_channel {
public:
    explicit erased_channel(channel<T>& ch) : adapter_(ch.transport()), view_(erased_transport(adapter_), ch.state()) {}
    erased_channel(erased_channel const&) = delete;
    erased_channel& operator=(erased_channel const&) = delete;

    [[nodiscard]] channel<erased_transport>& get() noexcept { return view_; }

private:
    transport_adapter<T> adapter_;
    channel<erased_transport> view_;
};

/// The compiled engines run over erased_transport itself: its facades never erase it again.
template <>
inline constexpr bool engines_compiled_for<erased_transport> = false;

} // namespace loopsched::detail
