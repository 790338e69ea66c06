#include "model/time_units.h"

#include <catch2/catch.hpp>

using namespace strata::model;

TEST_CASE("times parse with units, exactly, and reject garbage", "[time]")
{
    CHECK(parseTime("42") == 42);
    CHECK(parseTime("42ns") == 42);
    CHECK(parseTime("300us") == 300'000);
    CHECK(parseTime("12.5ms") == 12'500'000);
    CHECK(parseTime("2s") == 2'000'000'000);
    CHECK(parseTime("0.000000001s") == 1);
    CHECK(parseTime("-3us") == -3000);
    CHECK_FALSE(parseTime(""));
    CHECK_FALSE(parseTime("ms"));
    CHECK_FALSE(parseTime("12.5 ms"));
    CHECK_FALSE(parseTime("1e400"));
    CHECK_FALSE(parseTime("99999999999999999999s"));
    CHECK_FALSE(parseTime("abc"));
}

TEST_CASE("decimal microseconds become nanoseconds without a double's rounding", "[time]")
{
    // A Kineto absolute timestamp: a double would lose the last digits.
    CHECK(parseDecimalScaled("4501783126066.206", kNsPerUs) == 4501783126066206LL);
    CHECK(parseDecimalScaled("1.0005", kNsPerUs) == 1001);  // rounds to nearest
    CHECK(parseDecimalScaled("1.5e3", kNsPerUs) == 1'500'000);
    CHECK(parseDecimalScaled("-0.5", 1) == -1);
    CHECK_FALSE(parseDecimalScaled(".", kNsPerUs));
    CHECK_FALSE(parseDecimalScaled("1.2.3", kNsPerUs));
    CHECK_FALSE(parseDecimalScaled("9223372036854775807", kNsPerUs));
}

TEST_CASE("windows parse as T0:T1 and must not be empty", "[time]")
{
    CHECK(parseTimeRange("1ms:2ms") == TimeRange{1'000'000, 2'000'000});
    CHECK_FALSE(parseTimeRange("2ms:1ms"));
    CHECK_FALSE(parseTimeRange("1ms"));
}

TEST_CASE("durations format with an adaptive unit", "[time]")
{
    CHECK(formatDuration(812) == "812ns");
    CHECK(formatDuration(12'500) == "12.50us");
    CHECK(formatDuration(3'210'000) == "3.210ms");
    CHECK(formatDuration(42'000'000'000) == "42.00s");
}

TEST_CASE("timestamps show as many decimals as their resolution needs", "[time]")
{
    CHECK(formatTimestamp(142'300'125, 1'000) == "142.300ms");
    CHECK(formatTimestamp(142'300'125, 1) == "142.300125ms");
    CHECK(formatTimestamp(142'300'125, 10'000'000) == "142ms");
    CHECK(formatTimestamp(142'300'125, 100'000) == "142.3ms");
    CHECK(formatTimestamp(-2'264'000, 1'000'000) == "-2ms");
    CHECK(formatTimestamp(4'501'783'126'066'206, 1) == "4501783.126066206s");
    CHECK(formatTimestamp(999, 1) == "999ns");
    CHECK(formatTimestamp(0, 5) == "0ns");
}
