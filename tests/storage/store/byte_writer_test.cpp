// ByteWriter writes through a pointer into a string kept longer than what was written:
// these pin that what comes out is what was written, however the writes and a caller's
// own appends to bytes() interleave, and however often the string grows.
#include "storage/store/byte_io.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>

using strata::storage::ByteReader;
using strata::storage::ByteWriter;

TEST_CASE("ByteWriter: varints, bytes, doubles and strings read back in order", "[byte_io]") {
    ByteWriter out;
    const std::uint64_t values[] = { 0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, std::uint64_t(1) << 35,
        std::numeric_limits<std::uint64_t>::max() };
    // Enough rows to grow the string many times from empty.
    for (int round = 0; round < 2000; ++round) {
        for (std::uint64_t v : values)
            out.varint(v);
        out.svarint(-round);
        out.u8(static_cast<std::uint8_t>(round));
        out.f64(round * 0.5);
        out.string(round % 3 == 0 ? std::string()
                                  : std::string(static_cast<std::size_t>(round % 70), 'x'));
    }
    const std::string bytes = out.bytes();
    ByteReader in(bytes);
    for (int round = 0; round < 2000; ++round) {
        for (std::uint64_t v : values)
            REQUIRE(in.varint() == v);
        REQUIRE(in.svarint() == -round);
        REQUIRE(in.u8() == static_cast<std::uint8_t>(round));
        REQUIRE(in.f64() == round * 0.5);
        REQUIRE(in.string().size() == (round % 3 == 0 ? 0u : static_cast<std::size_t>(round % 70)));
    }
    REQUIRE(in.atEnd());
}

TEST_CASE("ByteWriter: writes after a caller's own appends to bytes() follow them", "[byte_io]") {
    ByteWriter out;
    REQUIRE(out.bytes().empty());
    out.u8('a');
    out.bytes() += "bc";
    out.varint(300);  // two bytes: 0xAC 0x02
    REQUIRE(out.bytes() == std::string("abc\xAC\x02"));
    out.bytes() = "xy";  // replaced, as a test of a cut tile does
    out.u8('z');
    out.bytes().append(100, 'q');
    out.bytes() += 'r';  // appends back to back, no write between
    out.u8('!');
    REQUIRE(out.bytes() == "xyz" + std::string(100, 'q') + "r!");
    // Taken away: writing starts again from nothing.
    const std::string taken = std::move(out.bytes());
    REQUIRE(taken.size() == 105);
    out.bytes().clear();
    out.u8('k');
    REQUIRE(out.bytes() == "k");
}
