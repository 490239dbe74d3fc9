// A minimal binary encoding for the runtime's messages (same machine
// architecture on every rank, as MPI_BYTE transfers assume).
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace loopsched::detail {

/// Encodes a message. A small one (every request and reply) stays in the
/// writer's own array and goes out through view() with no copy; a larger one
/// spills to a `bytes` buffer that take() hands over without copying.
class wire_writer {
public:
    wire_writer() = default;
    wire_writer(wire_writer const&) = delete; // data_ may point into this object
    wire_writer& operator=(wire_writer const&) = delete;

    template <class T>
    requires std::is_trivially_copyable_v<T> wire_writer& put(T const& value) {
        std::memcpy(grow(sizeof(T)), &value, sizeof(T));
        return *this;
    }
    wire_writer& put(std::string const& text) {
        put(text.size());
        auto const* p = reinterpret_cast<std::byte const*>(text.data());
        if (!text.empty()) std::memcpy(grow(text.size()), p, text.size());
        return *this;
    }
    /// An unsigned number in 7-bit groups, low first (LEB128): one byte below
    /// 128, where a count sent per rank is usually small.
    wire_writer& put_varint(std::uint64_t value) {
        for (; value >= 0x80; value >>= 7) put(static_cast<std::uint8_t>(value | 0x80));
        return put(static_cast<std::uint8_t>(value));
    }
    /// Bytes without a length: the reader must know how many to take.
    wire_writer& put_raw(std::span<std::byte const> data) {
        if (!data.empty()) std::memcpy(grow(data.size()), data.data(), data.size());
        return *this;
    }
    /// Room for `n` bytes the caller fills at once (a payload written in
    /// place, not copied in from a buffer of its own); valid until the next put.
    [[nodiscard]] std::span<std::byte> put_room(std::size_t n) { return {grow(n), n}; }
    /// The bytes written so far; valid until the next put or take.
    [[nodiscard]] std::span<std::byte const> view() const noexcept { return {data_, used_}; }
    /// The bytes outgrew the writer's own array: take() hands them over without a copy.
    [[nodiscard]] bool spilled() const noexcept { return data_ != small_.data(); }
    bytes take() && {
        if (data_ == small_.data()) return copy_bytes({small_.data(), used_});
        spilled_.resize(used_);
        return std::move(spilled_);
    }

private:
    static constexpr std::size_t small_capacity = 128;

    /// Room for n more bytes, left uninitialised; grows geometrically.
    std::byte* grow(std::size_t n) {
        if (n > capacity_ - used_) [[unlikely]]
            spill(n);
        std::byte* const at = data_ + used_;
        used_ += n;
        return at;
    }
    /// Kept out of line so that grow(), on every put, stays small enough to inline.
    [[gnu::noinline]] void spill(std::size_t n) {
        std::size_t const capacity = std::max(2 * capacity_, used_ + n);
        bool const leaving_small = data_ == small_.data();
        spilled_.resize(capacity, boost::container::default_init); // keeps what spilled before
        if (leaving_small) std::memcpy(spilled_.data(), small_.data(), used_);
        data_ = spilled_.data();
        capacity_ = capacity;
    }

    std::array<std::byte, small_capacity> small_; // uninitialised on purpose: only used_ bytes are read
    bytes spilled_;
    std::byte* data_ = small_.data();
    std::size_t capacity_ = small_capacity, used_ = 0;
};

class wire_reader {
public:
    explicit wire_reader(std::span<std::byte const> bytes) : bytes_(bytes) {}
    explicit wire_reader(bytes const& data) : bytes_(data.data(), data.size()) {}

    template <class T>
    requires std::is_trivially_copyable_v<T> T get() {
        T value;
        std::memcpy(&value, advance(sizeof(T)).data(), sizeof(T));
        return value;
    }
    std::string get_string() {
        auto n = get<std::size_t>();
        auto s = advance(n);
        return std::string(reinterpret_cast<char const*>(s.data()), n);
    }
    /// A number put_varint wrote.
    std::uint64_t get_varint() {
        std::uint64_t value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            auto const b = get<std::uint8_t>();
            value |= static_cast<std::uint64_t>(b & 0x7f) << shift;
            if ((b & 0x80) == 0) return value;
        }
        throw error("loopsched: a malformed number in a runtime message");
    }
    std::span<std::byte const> get_raw(std::size_t n) { return advance(n); }
    [[nodiscard]] std::size_t remaining() const noexcept { return bytes_.size() - offset_; }

private:
    std::span<std::byte const> advance(std::size_t n) {
        if (n > bytes_.size() - offset_) throw error("loopsched: truncated runtime message");
        auto s = bytes_.subspan(offset_, n);
        offset_ += n;
        return s;
    }
    std::span<std::byte const> bytes_;
    std::size_t offset_ = 0;
};

} // namespace loopsched::detail
