// A minimal binary encoding for the runtime's messages (same machine
// architecture on every rank, as MPI_BYTE transfers assume).
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace loopsched::detail {

class wire_writer {
public:
    template <class T>
        requires std::is_trivially_copyable_v<T>
    wire_writer& put(T const& value) {
        std::memcpy(grow(sizeof(T)), &value, sizeof(T));
        return *this;
    }
    wire_writer& put(std::string const& text) {
        put(text.size());
        auto const* p = reinterpret_cast<std::byte const*>(text.data());
        if (!text.empty()) std::memcpy(grow(text.size()), p, text.size());
        return *this;
    }
    /// Bytes without a length: the reader must know how many to take.
    wire_writer& put_raw(std::span<std::byte const> data) {
        if (!data.empty()) std::memcpy(grow(data.size()), data.data(), data.size());
        return *this;
    }
    bytes take() && {
        bytes_.resize(used_);
        return std::move(bytes_);
    }

private:
    /// Room for n more bytes, left uninitialised. Every request and reply is
    /// encoded here: the buffer starts at its inline capacity and grows
    /// geometrically, so a small message costs no resize per field.
    std::byte* grow(std::size_t n) {
        if (n > bytes_.size() - used_)
            bytes_.resize(std::max(2 * bytes_.size(), used_ + n), boost::container::default_init);
        std::byte* const at = bytes_.data() + used_;
        used_ += n;
        return at;
    }

    bytes bytes_ = bytes(bytes{}.capacity(), boost::container::default_init);
    std::size_t used_ = 0;
};

class wire_reader {
public:
    explicit wire_reader(std::span<std::byte const> bytes) : bytes_(bytes) {}
    explicit wire_reader(bytes const& data) : bytes_(data.data(), data.size()) {}

    template <class T>
        requires std::is_trivially_copyable_v<T>
    T get() {
        T value;
        std::memcpy(&value, advance(sizeof(T)).data(), sizeof(T));
        return value;
    }
    std::string get_string() {
        auto n = get<std::size_t>();
        auto s = advance(n);
        return std::string(reinterpret_cast<char const*>(s.data()), n);
    }
    std::span<std::byte const> get_raw(std::size_t n) { return advance(n); }

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
