// Opt-in: values that are not trivially copyable (strings, nested vectors,
// your types with a serialize() member) travel between ranks through
// Boost.Serialization's binary archives. Include it where such a value is a
// task, a result or a problem; the umbrella <loopsched/loopsched.hpp> does.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/payload.hpp>

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>

#include <cstddef>
#include <span>
#include <streambuf>
#include <string>
#include <vector>

namespace loopsched::detail {

/// Appends what an archive writes to a byte vector.
class appending_buffer : public std::streambuf {
public:
    explicit appending_buffer(std::vector<std::byte>& out) : out_(out) {}

protected:
    std::streamsize xsputn(char const* s, std::streamsize n) override {
        auto const* p = reinterpret_cast<std::byte const*>(s);
        out_.insert(out_.end(), p, p + n);
        return n;
    }
    int_type overflow(int_type c) override {
        if (!traits_type::eq_int_type(c, traits_type::eof())) out_.push_back(static_cast<std::byte>(c));
        return traits_type::not_eof(c);
    }

private:
    std::vector<std::byte>& out_;
};

/// Lets an archive read from bytes it does not own.
class reading_buffer : public std::streambuf {
public:
    explicit reading_buffer(std::span<std::byte const> in) {
        char* p = const_cast<char*>(reinterpret_cast<char const*>(in.data())); // read only: get area
        setg(p, p, p + in.size());
    }
};

inline constexpr unsigned archive_flags = boost::archive::no_header | boost::archive::no_codecvt;

/// One binary archive of all the values.
template <class T>
struct archived {
    static void write(std::vector<std::byte>& out, std::span<T const> values) {
        appending_buffer buffer(out);
        boost::archive::binary_oarchive archive(buffer, archive_flags);
        for (auto const& v : values) archive << v;
    }
    static void read(std::span<std::byte const> in, std::span<T> out) {
        reading_buffer buffer(in);
        try {
            boost::archive::binary_iarchive archive(buffer, archive_flags);
            for (auto& v : out) archive >> v;
        } catch (boost::archive::archive_exception const& e) {
            throw error(std::string("loopsched: results that do not deserialize: ") + e.what());
        }
    }
};

} // namespace loopsched::detail
