#include "model/value_units.h"

#include <catch2/catch.hpp>

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
}
