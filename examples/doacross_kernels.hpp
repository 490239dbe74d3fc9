// The DOACROSS test problems of Ciorba as loopsched loops: heat conduction
// (one time step), Floyd-Steinberg error diffusion, Hydro (modified Livermore
// kernel 23, 3-D) and the artificial loop with five dependence vectors. Each
// is a body over a sub-box, its dependences and its fields; the examples, the
// tests and the benchmarks share them.
#pragma once

#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/options.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/space/window.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace kernels {

using loopsched::box;
using loopsched::index_t;
using loopsched::vec;
using loopsched::window;

/// Heat conduction, one Gauss-Seidel sweep of Ciorba section 4.3.2:
/// A[i][j] = (A[i-1][j] + A[i][j-1] + A'[i+1][j] + A'[i][j+1]) / 4, where A' is
/// the value before the sweep. Flow dependences (1,0), (0,1); the reads of A'
/// one position ahead make its input halo 1.
struct heat {
    static constexpr std::string_view name = "heat";
    static constexpr std::size_t rank = 2;
    using dependences = loopsched::uniform<vec{1, 0}, vec{0, 1}>;
    static constexpr index_t input_halo = 1;

    static double initial(box<2>::point const& p) { return static_cast<double>((p[0] * 7 + p[1] * 3) % 11) * 0.1; }
    static auto fields() {
        return std::tuple(loopsched::make_field<double>([](auto const& p) { return initial(p); }));
    }

    struct body {
        box<2> space;
        void operator()(box<2> const& part, window<double, 2>& a) const {
            index_t const n0 = space.upper()[0], n1 = space.upper()[1];
            for (index_t i = part.lower()[0]; i < part.upper()[0]; ++i)
                for (index_t j = part.lower()[1]; j < part.upper()[1]; ++j) {
                    double const up = i > 0 ? a(i - 1, j) : 1.0; // a hot edge
                    double const left = j > 0 ? a(i, j - 1) : 0.0;
                    double const down = i + 1 < n0 ? a(i + 1, j) : 0.0;
                    double const right = j + 1 < n1 ? a(i, j + 1) : 0.0;
                    a(i, j) = 0.25 * (up + left + down + right);
                }
        }
    };
};

/// Floyd-Steinberg error diffusion of a grey image, written as the pixel
/// pulling the errors of its four earlier neighbours: dependences (0,1) (left),
/// (1,-1), (1,0), (1,1) (the row above). Two fields: the diffused error and the
/// output pixel. (1,-1) points back along x, so the library skews the subchunks.
struct floyd_steinberg {
    static constexpr std::string_view name = "floyd-steinberg";
    static constexpr std::size_t rank = 2;
    using dependences = loopsched::uniform<vec{0, 1}, vec{1, -1}, vec{1, 0}, vec{1, 1}>;
    static constexpr index_t input_halo = 0;

    /// The input image: a smooth gradient with a ripple (a read-only input every rank computes).
    static float grey(index_t y, index_t x) {
        return static_cast<float>((x * 255) / 1000 % 256) * 0.7f + static_cast<float>((x * y) % 97);
    }
    static float no_error(box<2>::point const&) { return 0.0f; }
    static std::uint8_t black(box<2>::point const&) { return 0; }
    static auto fields() {
        return std::tuple(loopsched::make_field<float>([](auto const& p) { return no_error(p); }),
                          loopsched::make_field<std::uint8_t>([](auto const& p) { return black(p); }));
    }

    struct body {
        box<2> space;
        void operator()(box<2> const& part, window<float, 2>& err, window<std::uint8_t, 2>& out) const {
            index_t const width = space.upper()[1];
            auto e = [&](index_t y, index_t x) { return y >= 0 && x >= 0 && x < width ? err(y, x) : 0.0f; };
            for (index_t y = part.lower()[0]; y < part.upper()[0]; ++y)
                for (index_t x = part.lower()[1]; x < part.upper()[1]; ++x) {
                    float const v = grey(y, x) + (7.0f * e(y, x - 1) + 3.0f * e(y - 1, x + 1) + 5.0f * e(y - 1, x) +
                                                  1.0f * e(y - 1, x - 1)) /
                                                         16.0f;
                    std::uint8_t const pixel = v < 128.0f ? 0 : 255;
                    out(y, x) = pixel;
                    err(y, x) = v - static_cast<float>(pixel);
                }
        }
    };
};

/// Hydro, modified Livermore kernel 23 over time steps l (Ciorba section 5.1):
/// za[l][j][k] = za[l-1][j][k] + 0.175 (qa - za[l-1][j][k]) with
/// qa = za[l-1][j+1][k] zr + za[l][j-1][k] zb + za[l-1][j][k+1] zu + za[l][j][k-1] zv + zz.
/// Dependences (1,-1,0), (0,1,0), (1,0,-1), (0,0,1), (1,0,0) in (l, j, k).
struct hydro {
    static constexpr std::string_view name = "hydro";
    static constexpr std::size_t rank = 3;
    using dependences = loopsched::uniform<vec{1, -1, 0}, vec{0, 1, 0}, vec{1, 0, -1}, vec{0, 0, 1}, vec{1, 0, 0}>;
    static constexpr index_t input_halo = 0;

    // The kernel's read-only coefficient arrays, as functions of (j, k).
    static double zr(index_t j, index_t k) { return 0.1 + 0.01 * static_cast<double>((j * 13 + k * 7) % 10); }
    static double zb(index_t j, index_t k) { return 0.2 + 0.01 * static_cast<double>((j * 5 + k * 3) % 10); }
    static double zu(index_t j, index_t k) { return 0.15 + 0.01 * static_cast<double>((j + k * 11) % 10); }
    static double zv(index_t j, index_t k) { return 0.25 + 0.01 * static_cast<double>((j * 3 + k) % 10); }
    static double zz(index_t j, index_t k) { return 0.05 * static_cast<double>((j + k) % 4); }
    static double start(index_t j, index_t k) { return 0.01 * static_cast<double>((j * 17 + k * 29) % 100); }
    static double initial(box<3>::point const&) { return 0.0; }
    static auto fields() {
        return std::tuple(loopsched::make_field<double>([](auto const& p) { return initial(p); }));
    }

    struct body {
        box<3> space;
        void operator()(box<3> const& part, window<double, 3>& za) const {
            index_t const nj = space.upper()[1], nk = space.upper()[2];
            auto at = [&](index_t l, index_t j, index_t k) {
                if (j < 0 || j >= nj || k < 0 || k >= nk) return 0.0;
                return l < 0 ? start(j, k) : za(l, j, k);
            };
            for (index_t l = part.lower()[0]; l < part.upper()[0]; ++l)
                for (index_t j = part.lower()[1]; j < part.upper()[1]; ++j)
                    for (index_t k = part.lower()[2]; k < part.upper()[2]; ++k) {
                        double const before = at(l - 1, j, k);
                        double const qa = at(l - 1, j + 1, k) * zr(j, k) + at(l, j - 1, k) * zb(j, k) +
                                          at(l - 1, j, k + 1) * zu(j, k) + at(l, j, k - 1) * zv(j, k) + zz(j, k);
                        za(l, j, k) = before + 0.175 * (qa - before);
                    }
        }
    };
};

/// The artificial loop of Ciorba with vectors (1,8), (8,1), (2,5), (3,3), (6,2):
/// A[i][j] = 2 A[i-1][j-8] + A[i-8][j-1] + 3 B[i-2][j-5];
/// B[i][j] = sum_{k < j mod 16} C[i][k] C[i][j] + B[i-3][j-3] + B[i-6][j-2],
/// in wrapping 32-bit arithmetic (the thesis's inner k loop runs to j; bounded
/// here so iterations stay irregular but cheap).
struct artificial {
    static constexpr std::string_view name = "artificial";
    static constexpr std::size_t rank = 2;
    using dependences = loopsched::uniform<vec{1, 8}, vec{8, 1}, vec{2, 5}, vec{3, 3}, vec{6, 2}>;
    static constexpr index_t input_halo = 0;

    static std::uint32_t c(index_t i, index_t k) { return static_cast<std::uint32_t>((i * 31 + k * 17) % 7 + 1); }
    static std::uint32_t one(box<2>::point const&) { return 1; }
    static auto fields() {
        auto const ones = loopsched::make_field<std::uint32_t>([](auto const& p) { return one(p); });
        return std::tuple(ones, ones);
    }

    struct body {
        box<2> space;
        void operator()(box<2> const& part, window<std::uint32_t, 2>& a, window<std::uint32_t, 2>& b) const {
            auto get = [](window<std::uint32_t, 2> const& w, index_t i, index_t j) -> std::uint32_t {
                return i >= 0 && j >= 0 ? w(i, j) : 1u;
            };
            for (index_t i = part.lower()[0]; i < part.upper()[0]; ++i)
                for (index_t j = part.lower()[1]; j < part.upper()[1]; ++j) {
                    a(i, j) = 2u * get(a, i - 1, j - 8) + get(a, i - 8, j - 1) + 3u * get(b, i - 2, j - 5);
                    std::uint32_t sum = 0;
                    for (index_t k = 0; k < j % 16; ++k) sum += c(i, k) * c(i, j);
                    b(i, j) = sum + get(b, i - 3, j - 3) + get(b, i - 6, j - 2);
                }
        }
    };
};

/// K's fields with their initial values when `filled`, else none (their
/// initializers in empty std::optionals): the fields of a simulated body
/// that reads and writes nothing, where filling them is only memory traffic.
template <class K>
auto fields_filled_if(bool filled) {
    return std::apply(
            [&](auto const&... f) {
                return std::tuple(loopsched::make_field<typename std::remove_cvref_t<decltype(f)>::value_type>(
                        filled ? std::optional(f.initial) : std::nullopt)...);
            },
            K::fields());
}

/// Runs kernel K's dependences and `fields` (K's own by default) over
/// `space` with `body` (a simulation passes a cost instead of K's body) on
/// any transport or communicator; `gathered`: the fields come back whole on the root.
template <class K, class Comm, class Policy, class Body, class Fields = decltype(K::fields())>
auto run_with(Comm& comm, box<K::rank> const& space, Policy const& policy, Body const& body,
              loopsched::doacross_options options = {}, bool gathered = true, Fields const& fields = K::fields()) {
    options.input_halo = K::input_halo;
    // Unqualified: found by argument-dependent lookup where this is instantiated,
    // so that over MPI the communicator's overload counts (its header,
    // <loopsched/mpi/parallel_for_doacross.hpp>, included before or after this one).
    return std::apply(
            [&](auto const&... f) {
                typename K::dependences const deps{};
                if (gathered)
                    return parallel_for_doacross(comm, space, deps, policy, f..., body, loopsched::gather<>{}, options);
                return parallel_for_doacross(comm, space, deps, policy, f..., body, options);
            },
            fields);
}

/// Runs kernel K over `space` with parallel_for_doacross on any transport or communicator.
template <class K, class Comm, class Policy>
auto run(Comm& comm, box<K::rank> const& space, Policy const& policy, loopsched::doacross_options options = {},
         bool gathered = true) {
    return run_with<K>(comm, space, policy, typename K::body{space}, options, gathered);
}

/// The sequential loop: every field over the whole space, the body over all of it in order.
template <class K>
auto sequential(box<K::rank> const& space) {
    auto fields = K::fields();
    auto windows = std::apply(
            [&](auto const&... f) {
                return std::tuple(window<typename std::remove_cvref_t<decltype(f)>::value_type, K::rank>(space)...);
            },
            fields);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((std::get<I>(windows).fill(space, std::get<I>(fields).initial)), ...);
    }
    (std::make_index_sequence<std::tuple_size_v<decltype(fields)>>{});
    std::apply([&](auto&... w) { typename K::body{space}(space, w...); }, windows);
    return windows;
}

/// The bytes of every window, one after the other (what --output writes).
template <class Tuple>
std::vector<char> raw_bytes(Tuple const& windows) {
    std::vector<char> out;
    std::apply(
            [&](auto const&... w) {
                ((out.insert(out.end(), reinterpret_cast<char const*>(w.values().data()),
                             reinterpret_cast<char const*>(w.values().data() + w.values().size()))),
                 ...);
            },
            windows);
    return out;
}

} // namespace kernels
