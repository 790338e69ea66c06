#pragma once
// Portable random numbers for deterministic generators (strata synth): the same seed
// gives the same numbers with every compiler, libm and optimisation level.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

// Bit-identical results on every platform: no fused multiply-add may change a rounding.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace strata::storage::portable {

// ---- portable random numbers ----------------------------------------------------------
//
// std:: distributions are implementation-defined and libm's log/exp need not round alike
// everywhere, so the maths below uses only +, -, *, /, sqrt (correctly rounded by IEEE
// 754), and the exact frexp/ldexp/floor. Callers draw at most one random number per
// expression, since compilers order the evaluation of function arguments differently
// (GCC and clang do: the pinned-hash test catches it).

inline constexpr double kLn2 = 0.69314718055994530942;
inline constexpr double kSqrtHalf = 0.70710678118654752440;

inline constexpr std::array<double, 12> kOddReciprocals = { 1.0 / 1, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9,
    1.0 / 11, 1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23 };

inline constexpr std::array<double, 19> kInverseFactorials = [] {
    std::array<double, 19> c {};
    double f = 1;
    for (int i = 0; i < 19; ++i) {
        if (i > 0)
            f *= i;
        c[static_cast<std::size_t>(i)] = 1.0 / f;
    }
    return c;
}();

/// ln(x) for x > 0: x = m * 2^e with m in [sqrt(1/2), sqrt(2)), ln(m) = 2 atanh(s).
inline double portableLog(double x)
{
    int exponent = 0;
    double m = std::frexp(x, &exponent);
    if (m < kSqrtHalf) {
        m *= 2;
        --exponent;
    }
    const double s = (m - 1) / (m + 1);  // |s| < 0.172
    const double s2 = s * s;
    double sum = 0;
    for (std::size_t k = kOddReciprocals.size(); k-- > 0;)
        sum = sum * s2 + kOddReciprocals[k];
    return 2 * s * sum + exponent * kLn2;
}

/// e^x: x = k ln2 + r with |r| <= ln2 / 2, then a Taylor polynomial of r.
inline double portableExp(double x)
{
    x = std::clamp(x, -700.0, 700.0);
    const double k = std::floor(x / kLn2 + 0.5);
    const double r = x - k * kLn2;
    double sum = 0;
    for (std::size_t i = kInverseFactorials.size(); i-- > 0;)
        sum = sum * r + kInverseFactorials[i];
    return std::ldexp(sum, static_cast<int>(k));
}

/// xoshiro256** seeded through splitmix64 (both public domain, by Vigna and Blackman).
class Random
{
public:
    explicit Random(std::uint64_t seed)
    {
        for (std::uint64_t& word : m_state)
            word = splitMix(seed);
    }

    std::uint64_t next()
    {
        const std::uint64_t result = rotl(m_state[1] * 5, 7) * 9;
        const std::uint64_t t = m_state[1] << 17;
        m_state[2] ^= m_state[0];
        m_state[3] ^= m_state[1];
        m_state[1] ^= m_state[2];
        m_state[0] ^= m_state[3];
        m_state[2] ^= t;
        m_state[3] = rotl(m_state[3], 45);
        return result;
    }

    /// Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Uniform integer in [lo, hi].
    std::int64_t uniformInt(std::int64_t lo, std::int64_t hi)
    {
        const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
        return lo + static_cast<std::int64_t>(next() % span);
    }
    bool chance(double p) { return uniform() < p; }
    /// Standard normal by Marsaglia's polar method.
    double normal()
    {
        for (;;) {
            const double u = 2 * uniform() - 1;
            const double v = 2 * uniform() - 1;
            const double s = u * u + v * v;
            if (s > 0 && s < 1)
                return u * std::sqrt(-2 * portableLog(s) / s);
        }
    }
    /// Log-normal with the given median and shape (sigma of the underlying normal).
    double logNormal(double median, double sigma) { return median * portableExp(sigma * normal()); }
    /// Pareto with minimum 1 and tail index alpha: the heavy tail of kernel durations.
    double pareto(double alpha) { return portableExp(-portableLog(1.0 - uniform()) / alpha); }

private:
    static std::uint64_t splitMix(std::uint64_t& x)
    {
        std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

    std::array<std::uint64_t, 4> m_state {};
};

} // namespace strata::storage::portable
