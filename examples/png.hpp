// PNG encoding for the examples through libpng: 8-bit RGB, compressed at a
// fixed zlib level, so the same pixels always give the same bytes.
#pragma once

#include <loopsched/error.hpp>

#include <png.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace loopsched::examples {

/// `rgb` holds width x height pixels, row-major, 3 bytes each.
inline std::vector<std::uint8_t> encode_png(std::span<std::uint8_t const> rgb, std::uint32_t width,
                                            std::uint32_t height) {
    if (rgb.size() != std::size_t{width} * height * 3)
        throw invalid_parameter("rgb size", std::to_string(rgb.size()), "must be width x height x 3");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        throw error("libpng: out of memory");
    }
    std::vector<std::uint8_t> out;
    // libpng reports errors by longjmp: nothing with a destructor may be made
    // between here and the end of the encoding but `out`, made before.
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        throw error("libpng: cannot encode the image");
    }
    png_set_write_fn(
            png, &out,
            [](png_structp p, png_bytep data, png_size_t size) {
                auto& bytes = *static_cast<std::vector<std::uint8_t>*>(png_get_io_ptr(p));
                bool grown = true;
                try { // an exception must not cross libpng's C frames
                    bytes.insert(bytes.end(), data, data + size);
                } catch (...) {
                    grown = false;
                }
                if (!grown) png_error(p, "out of memory");
            },
            nullptr);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 6);
    png_write_info(png, info);
    for (std::uint32_t y = 0; y < height; ++y) png_write_row(png, rgb.data() + std::size_t{y} * width * 3);
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return out;
}

} // namespace loopsched::examples
