// Chronopoulos et al.'s test problem: the Mandelbrot set on [-2.0, 1.25] x [-1.25, 1.25],
// one column per loop iteration, columns optionally reordered with sampling
// frequency S_f (columns i mod S_f = 0 first, then 1, ...) to spread the cost.
#pragma once

#include "png.hpp"

#include <loopsched/concepts.hpp>
#include <loopsched/space/box.hpp>

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace loopsched::examples {

struct mandelbrot {
    index_t width = 1000;
    index_t height = 500;
    int max_iterations = 1000;
    index_t sampling = 4; ///< S_f; 1 keeps the natural column order
    double left = -2.0, right = 1.25, bottom = -1.25, top = 1.25; ///< the window in the complex plane

    /// The column computed at each loop position.
    [[nodiscard]] std::vector<index_t> column_order() const {
        std::vector<index_t> order;
        order.reserve(static_cast<std::size_t>(width));
        for (index_t r = 0; r < sampling; ++r)
            for (index_t x = r; x < width; x += sampling) order.push_back(x);
        return order;
    }

    /// Colours column x into rgb (3 bytes per row, top to bottom).
    void column(index_t x, std::span<std::uint8_t> rgb) const {
        for (index_t y = 0; y < height; ++y) pixel(x, y, &rgb[static_cast<std::size_t>(y) * 3]);
    }

    /// Colours pixel (x, y) (y = 0 at the top) into px[0..2].
    void pixel(index_t x, index_t y, std::uint8_t* px) const {
        double const cx = left + (right - left) * (static_cast<double>(x) + 0.5) / static_cast<double>(width);
        double const cy = top - (top - bottom) * (static_cast<double>(y) + 0.5) / static_cast<double>(height);
        double zx = 0.0, zy = 0.0;
        int n = 0;
        while (n < max_iterations && zx * zx + zy * zy <= 4.0) {
            double const t = zx * zx - zy * zy + cx;
            zy = 2.0 * zx * zy + cy;
            zx = t;
            ++n;
        }
        if (n == max_iterations) {
            px[0] = px[1] = px[2] = 0;
            return;
        }
        double const s = std::sqrt(static_cast<double>(n) / max_iterations); // brighter edges
        px[0] = static_cast<std::uint8_t>(255.0 * 9.0 * (1 - s) * s * s * s);
        px[1] = static_cast<std::uint8_t>(255.0 * 15.0 * (1 - s) * (1 - s) * s * s);
        px[2] = static_cast<std::uint8_t>(255.0 * 8.5 * (1 - s) * (1 - s) * (1 - s) * s);
    }

    [[nodiscard]] std::size_t column_bytes() const { return static_cast<std::size_t>(height) * 3; }

    /// The loop body: fills the columns of the positions in `part`.
    [[nodiscard]] auto body() const {
        return [this, order = column_order()](index_range const& part, std::span<std::uint8_t> out) {
            std::size_t at = 0;
            for (index_t p : part.indices()) {
                column(order[static_cast<std::size_t>(p)], out.subspan(at, column_bytes()));
                at += column_bytes();
            }
        };
    }

    /// The PNG of the gathered columns (one column per loop position).
    [[nodiscard]] std::vector<std::uint8_t> png(std::span<std::uint8_t const> columns) const {
        std::vector<std::uint8_t> rgb(static_cast<std::size_t>(width * height) * 3);
        auto const order = column_order();
        for (std::size_t p = 0; p < order.size(); ++p)
            for (index_t y = 0; y < height; ++y)
                for (int c = 0; c < 3; ++c)
                    rgb[(static_cast<std::size_t>(y * width + order[p])) * 3 + static_cast<std::size_t>(c)] =
                            columns[p * column_bytes() + static_cast<std::size_t>(y) * 3 + static_cast<std::size_t>(c)];
        return encode_png(rgb, static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height));
    }

    /// The image computed by a plain sequential loop: the reference.
    [[nodiscard]] std::vector<std::uint8_t> sequential_png() const {
        std::vector<std::uint8_t> columns(static_cast<std::size_t>(width) * column_bytes());
        body()(make_range(width), columns);
        return png(columns);
    }
};

} // namespace loopsched::examples
