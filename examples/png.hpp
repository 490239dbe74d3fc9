// A minimal PNG writer for the examples: 8-bit RGB, zlib "stored" blocks (no
// compression, so the bytes depend only on the pixels), CRC-32 and Adler-32.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace loopsched::examples {

namespace png_detail {

inline std::uint32_t crc32(std::span<std::uint8_t const> data, std::uint32_t crc = 0) {
    static auto const table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t n = 0; n < 256; ++n) {
            std::uint32_t c = n;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[n] = c;
        }
        return t;
    }();
    crc = ~crc;
    for (auto b : data) crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

inline void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (int shift : {24, 16, 8, 0}) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

inline void chunk(std::vector<std::uint8_t>& out, char const* type, std::vector<std::uint8_t> const& body) {
    put32(out, static_cast<std::uint32_t>(body.size()));
    std::vector<std::uint8_t> typed(type, type + 4);
    typed.insert(typed.end(), body.begin(), body.end());
    out.insert(out.end(), typed.begin(), typed.end());
    put32(out, crc32(typed));
}

} // namespace png_detail

/// The PNG file of a width x height RGB image, rows top to bottom.
inline std::vector<std::uint8_t> encode_png(std::span<std::uint8_t const> rgb, std::uint32_t width, std::uint32_t height) {
    using namespace png_detail;
    std::vector<std::uint8_t> raw; // each row: filter byte 0, then the pixels
    raw.reserve((3 * std::size_t{width} + 1) * height);
    for (std::uint32_t y = 0; y < height; ++y) {
        raw.push_back(0);
        auto row = rgb.subspan(std::size_t{y} * width * 3, std::size_t{width} * 3);
        raw.insert(raw.end(), row.begin(), row.end());
    }
    std::vector<std::uint8_t> z{0x78, 0x01}; // zlib header: deflate, 32 KiB window
    for (std::size_t at = 0; at < raw.size() || at == 0; at += 65535) {
        std::size_t const n = std::min<std::size_t>(65535, raw.size() - at);
        z.push_back(at + n == raw.size() ? 1 : 0); // BFINAL, BTYPE = stored
        z.push_back(static_cast<std::uint8_t>(n));
        z.push_back(static_cast<std::uint8_t>(n >> 8));
        z.push_back(static_cast<std::uint8_t>(~n));
        z.push_back(static_cast<std::uint8_t>(~n >> 8));
        z.insert(z.end(), raw.begin() + static_cast<std::ptrdiff_t>(at), raw.begin() + static_cast<std::ptrdiff_t>(at + n));
        if (raw.empty()) break;
    }
    std::uint32_t a = 1, b = 0;
    for (auto byte : raw) {
        a = (a + byte) % 65521;
        b = (b + a) % 65521;
    }
    put32(z, (b << 16) | a);

    std::vector<std::uint8_t> out{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    std::vector<std::uint8_t> header;
    put32(header, width);
    put32(header, height);
    header.insert(header.end(), {8, 2, 0, 0, 0}); // 8 bits, RGB, deflate, no filter, no interlace
    chunk(out, "IHDR", header);
    chunk(out, "IDAT", z);
    chunk(out, "IEND", {});
    return out;
}

} // namespace loopsched::examples
