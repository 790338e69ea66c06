#include "model/value_units.h"

#include <catch2/catch.hpp>

#include <cmath>

using strata::model::formatQuantity;

TEST_CASE("counter values read with SI prefixes and 4 significant digits", "[units]")
{
    CHECK(formatQuantity(7.279e9, "B") == "7.279 GB");
    CHECK(formatQuantity(1.8794e9, "B") == "1.879 GB");
    CHECK(formatQuantity(1410, "MHz") == "1.41 GHz");  // loggers' prefixed units convert
    CHECK(formatQuantity(116913, "mW") == "116.9 W");
    CHECK(formatQuantity(12, "ms") == "12 ms");
    CHECK(formatQuantity(20480, "MiB") == "2.048e+04 MiB");  // no prefix on a prefix
    CHECK(formatQuantity(100, "%") == "100 %");
    CHECK(formatQuantity(0.004, "%") == "0.004 %");  // no "m%"
    CHECK(formatQuantity(0.0025, "s") == "2.5 ms");
    CHECK(formatQuantity(-12500, "") == "-12.5k");
    CHECK(formatQuantity(0, "W") == "0 W");
    CHECK(formatQuantity(3.2e16, "B") == "32 PB");
    CHECK(formatQuantity(2e-12, "s") == "0.002 ns");
    // Rounding happens before the prefix is chosen.
    CHECK(formatQuantity(9999.5, "B") == "10 kB");
    CHECK(formatQuantity(999950, "B") == "1 MB");
    CHECK(formatQuantity(0.99995, "s") == "1 s");
    CHECK(formatQuantity(1e18, "B") == "1e+18 B");  // past P: plain
    CHECK(formatQuantity(-0.0, "B") == "0 B");
    CHECK(formatQuantity(std::nan(""), "W") == "n/a W");
    CHECK(formatQuantity(12000, "%") == "1.2e+04 %");  // never "12 k%"
    CHECK(formatQuantity(123456789, "misses") == "123.5 Mmisses");  // a word, not a prefix
    CHECK(formatQuantity(3e9, "Gbps") == "3e+09 Gbps");
}
