// The args column by member (args_codec.h, exact tiles at codec version 3): every row
// decodes to exactly the text it was given, whatever that text is; Kineto-like args take
// far fewer bytes than their text, arrays of whole numbers too; tiles of codec versions 1
// and 2 still decode; and the timeline's decoding (no args) reads the same events.

#include "storage/store/args_codec.h"

#include "storage/store/byte_io.h"
#include "storage/store/tile_codec.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

using namespace strata;
using storage::ArgsColumn;

namespace {

/// `texts` as a column (an empty text is a row without args).
ArgsColumn columnOf(const std::vector<std::string>& texts)
{
    ArgsColumn args;
    for (std::size_t i = 0; i < texts.size(); ++i)
        args.append(i, texts[i]);
    return args;
}

/// `texts` by member.
std::string byMember(const std::vector<std::string>& texts)
{
    storage::ByteWriter out;
    storage::writeArgsByMember(out, columnOf(texts), texts.size());
    return out.bytes();
}

/// Encodes rows [0, texts.size()) by member and decodes them; every row must come back.
std::size_t requireRoundTrip(const std::vector<std::string>& texts)
{
    const std::string bytes = byMember(texts);
    storage::ByteReader in(bytes);
    const ArgsColumn back = storage::readArgsByMember(in, texts.size());
    CHECK(in.atEnd());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        INFO("row " << i << ": " << texts[i]);
        REQUIRE(back.at(i) == texts[i]);
    }
    return bytes.size();
}

/// A random JSON value, minified unless `spaced`.
std::string randomValue(std::mt19937_64& rng, int depth, bool spaced)
{
    const auto pick = [&rng](int n) {
        return std::uniform_int_distribution<int>(0, n - 1)(rng);
    };
    static const std::vector<std::string> scalars = { "0", "-0", "7", "-12", "007", "1.5", "1e3",
        "-2.5E-3", "123456789012345678", "-123456789012345678", "1234567890123456789",
        "9223372036854775807", "-9223372036854775808", "true", "false", "null", "\"\"", "\"a b\"",
        "\"q\\\"uote\"", "\"back\\\\slash\"", "\"\\u00e9t\\u00e9\"", "\"{[,:]}\"",
        "\"caf\xc3\xa9\"" };
    const int kind = depth > 2 ? 0 : pick(5);
    if (kind <= 2)
        return scalars[static_cast<std::size_t>(pick(static_cast<int>(scalars.size())))];
    const std::string gap = spaced && pick(2) ? " " : "";
    std::string out(kind == 3 ? "[" : "{");
    const int n = pick(4);
    for (int i = 0; i < n; ++i) {
        if (i > 0)
            out += "," + gap;
        if (kind == 4)
            out += "\"k" + std::to_string(pick(3)) + "\":" + gap;
        out += randomValue(rng, depth + 1, spaced);
    }
    return out + (kind == 3 ? "]" : "}");
}

/// Random args: mostly objects of a few key sets (as a trace has), some spaced, some not
/// objects at all, some empty.
std::string randomArgs(std::mt19937_64& rng)
{
    const auto pick = [&rng](int n) {
        return std::uniform_int_distribution<int>(0, n - 1)(rng);
    };
    static const std::vector<std::vector<std::string>> shapes = { { "device", "stream",
                                                                      "correlation" },
        { "cbid", "correlation" }, { "External id", "Sequence number" }, { "a\\\"b", "\\u0041" },
        { "dup", "dup" }, {}, { "grid", "block" } };
    switch (pick(12)) {
    case 0:
        return "";
    case 1:
        return randomValue(rng, 0, true);  // not necessarily an object
    case 2:
        return "[1,2]";
    case 3:
        return "{\"a\":1 }";
    case 4:
        return "{\"open\":";
    default:
        break;
    }
    const bool spaced = pick(8) == 0;
    const auto& keys = shapes[static_cast<std::size_t>(pick(static_cast<int>(shapes.size())))];
    std::string out = "{";
    for (std::size_t k = 0; k < keys.size(); ++k) {
        if (k > 0)
            out += spaced ? ", " : ",";
        out += "\"" + keys[k] + "\":";
        if (keys[k] == "grid" || keys[k] == "block") {
            // Arrays of whole numbers, mostly of one width (a column of numbers per
            // element), some of another or holding something else (the column as text).
            static const std::vector<std::string> odd = { "-0", "01", "1.5", "\"1\"", "[1]",
                "123456789012345678", "-123456789012345678", "1234567890123456789" };
            const int width = pick(10) == 0 ? 1 + pick(17) : 3;
            out += "[";
            for (int e = 0; e < width; ++e) {
                out += e > 0 ? "," : "";
                out += pick(50) == 0
                    ? odd[static_cast<std::size_t>(pick(static_cast<int>(odd.size())))]
                    : std::to_string(std::uniform_int_distribution<long>(-3, 70000)(rng));
            }
            out += "]";
            continue;
        }
        out += pick(3) == 0 ? randomValue(rng, 0, spaced)
                            : std::to_string(std::uniform_int_distribution<long>(-5, 900000)(rng));
    }
    return out + "}";
}

}  // namespace

TEST_CASE("args by member give back every row's text", "[store][codec]") {
    SECTION("chosen rows") {
        requireRoundTrip({});
        requireRoundTrip({ "", "", "" });
        requireRoundTrip({ "{}", "", "{}" });
        requireRoundTrip({ "{\"device\":0,\"stream\":7,\"correlation\":72952}",
            "{\"device\":0,\"stream\":7,\"correlation\":72953}", "",
            "{\"cbid\":211,\"correlation\":72953}",
            "{\"device\":0,\"stream\":13,\"correlation\":72960,\"grid\":[4096,1,1]}" });
        // Values that look whole but would not come back as written from an int64.
        requireRoundTrip({ "{\"n\":0}", "{\"n\":-0}", "{\"n\":007}", "{\"n\":1234567890123456789}",
            "{\"n\":-123456789012345678}", "{\"n\":1.0}", "{\"n\":1e2}" });
        // Text that is not a minified object is kept whole.
        requireRoundTrip({ "{ \"a\":1}", "{\"a\" :1}", "{\"a\":1 }", "{\"a\":1,}", "[1]", "5",
            "\"s\"", "{\"a\":", "{\"a\":\"unterminated}", "{\"a\":1}}", "{\"a\":{\"b\":[1,2}}",
            "{\"a\":\"\\\"}\"}", "{\"\":\"\"}", "{" });
        // Arrays of whole numbers: of one width in every row (a number column per element),
        // negative and at the edge of what an int64 gives back; a column with one array of
        // another width, or one that is not whole numbers written as to_chars writes them,
        // or not minified, is kept as text.
        const std::string grid = "{\"grid\":[4096,1,1],\"block\":[-7,123456789012345678,0]}";
        requireRoundTrip(
            { grid, "{\"grid\":[24,32,1],\"block\":[256,-123456789012345678,1]}", grid });
        for (const std::string other : { "[1,1]", "[1,1,1,1]", "[1.5,1,1]", "[-0,1,1]", "[01,1,1]",
                 "[1,,1]", "[1,1,]", "[,1,1]", "[1,1,1,]", "[ 1,1,1]", "[1,1,1 ]", "[1,[1],1]",
                 "[1,1]1]", "[1234567890123456789,1,1]", "[\"1\",1,1]", "[]", "[-]", "[1,-,1]" }) {
            INFO(other);
            requireRoundTrip({ grid, "{\"grid\":" + other + ",\"block\":[1,2,3]}", grid });
            requireRoundTrip({ "{\"grid\":" + other + ",\"block\":[1,2,3]}", grid });
        }
        // Up to 16 elements make number columns; more are kept as text.
        for (int width : { 1, 2, 15, 16, 17, 40 }) {
            std::string array = "[";
            for (int e = 0; e < width; ++e)
                array += (e > 0 ? "," : "") + std::to_string(e * 1000 - 3);
            array += "]";
            INFO(array);
            requireRoundTrip({ "{\"a\":" + array + "}", "{\"a\":" + array + "}", "{\"a\":[0]}" });
            requireRoundTrip({ "{\"a\":" + array + "}", "{\"a\":" + array + "}" });
        }
        // Keys that differ only by their escapes, and a repeated key.
        requireRoundTrip({ "{\"\\u0041\":1}", "{\"A\":1}", "{\"k\":1,\"k\":2}" });
        // Rows that start like the row before them (the writer tries its key set first)
        // and differ after: one member more or less, a longer key, bytes after the end.
        const std::string row = "{\"device\":0,\"stream\":7}";
        requireRoundTrip({ row, "{\"device\":0,\"stream\":7,\"grid\":[1,1,1]}", row,
            "{\"device\":0}", row, "{\"device\":0,\"streams\":7}", row,
            "{\"device\":0,\"stream\":7}}", row, "{\"device\":0,\"stream\":7", row,
            "{\"device\":0,\"stream\":}", row, "{\"device\":0,\"stream\":\"7,8\"}", row,
            "{\"device\":{\"a\":1},\"stream\":[7]}", row, "{}", row, "{\"dev\":0,\"stream\":7}" });
    }

    SECTION("random rows") {
        for (std::uint64_t seed = 1; seed <= 200; ++seed) {
            std::mt19937_64 rng(seed);
            std::vector<std::string> texts(std::uniform_int_distribution<int>(1, 300)(rng));
            for (std::string& t : texts)
                t = randomArgs(rng);
            INFO("seed " << seed);
            requireRoundTrip(texts);
        }
    }
}

TEST_CASE("Kineto-like args take a fraction of their text by member", "[store][codec]") {
    std::vector<std::string> texts;
    std::size_t textBytes = 0;
    for (int i = 0; i < 500; ++i) {
        texts.push_back(i % 2
                ? "{\"cbid\":211,\"correlation\":" + std::to_string(70000 + i) + "}"
                : "{\"device\":0,\"stream\":7,\"correlation\":" + std::to_string(70000 + i)
                    + ",\"registers per thread\":40,\"grid\":[4096,1,1]}");
        textBytes += texts.back().size();
    }
    const std::size_t bytes = requireRoundTrip(texts);
    INFO(bytes << " bytes by member, " << textBytes << " as text");
    CHECK(5 * bytes < textBytes);
}

TEST_CASE("arrays of whole numbers take a byte or two an element", "[store][codec]") {
    // Kineto's launch dimensions: a few kinds of kernel, one after another. As text,
    // "grid":[4096,1,1],"block":[256,1,1] holds 21 bytes of values a row.
    std::vector<std::string> texts;
    static const std::string dims[] = { "\"grid\":[4096,1,1],\"block\":[256,1,1]",
        "\"grid\":[24,32,1],\"block\":[128,1,1]", "\"grid\":[12,32,1],\"block\":[256,1,1]" };
    for (int i = 0; i < 600; ++i)
        texts.push_back("{\"stream\":7," + dims[i % 3] + "}");
    const std::size_t bytes = requireRoundTrip(texts);
    INFO(bytes << " bytes by member");
    CHECK(bytes < 600 * 10);  // 6 elements and the stream: 7 numbers, at most 2 bytes for 1
}

TEST_CASE("an args layout of codec version 2 holds arrays as text", "[store][codec]") {
    const std::vector<std::string> texts = { "{\"grid\":[4096,1,1]}", "{\"grid\":[24,32,1]}" };
    const std::string withArrays = byMember(texts);
    storage::ByteReader in(withArrays);
    REQUIRE_THROWS_AS(
        storage::readArgsByMember(in, texts.size(), storage::ArgsLayout::ArraysAsText),
        storage::CorruptTile);

    // What version 2 wrote: the column's values as text (mode 0).
    storage::ByteWriter v2;
    v2.varint(1);
    v2.varint(1);
    v2.string("grid");
    v2.varint(1);
    v2.varint(1);
    v2.u8(0);
    v2.varint(texts[0].size() - 9);
    v2.varint(texts[1].size() - 9);
    v2.raw(std::string_view(texts[0]).substr(8, texts[0].size() - 9));
    v2.raw(std::string_view(texts[1]).substr(8, texts[1].size() - 9));
    const std::string bytes = v2.bytes();
    storage::ByteReader old(bytes);
    const ArgsColumn back =
        storage::readArgsByMember(old, texts.size(), storage::ArgsLayout::ArraysAsText);
    CHECK(old.atEnd());
    CHECK(back.at(0) == texts[0]);
    CHECK(back.at(1) == texts[1]);

    // A version 2 tile: the same body reads as it did; one with a number array is refused.
    storage::IntervalTile tile;
    for (std::uint32_t i = 0; i < 2; ++i) {
        tile.events.push_back(
            { model::TimeNs(10 * i), model::TimeNs(10 * i + 5), 1, 0, 0, model::Role::Useful, i });
    }
    tile.args.append(0, "{\"name\":\"x\"}");
    tile.args.append(1, "{\"name\":\"y\"}");
    std::string payload = storage::encodeTile(tile, 3);
    payload[3] = 2;
    CHECK(storage::decodeIntervalTile(payload).args.at(1) == "{\"name\":\"y\"}");
    tile.args = columnOf(texts);
    payload = storage::encodeTile(tile, 3);
    CHECK(storage::decodeIntervalTile(payload).args.at(1) == texts[1]);
    payload[3] = 2;
    REQUIRE_THROWS_AS(storage::decodeIntervalTile(payload), storage::CorruptTile);
}

TEST_CASE(
    "exact tiles keep their args, and the timeline's decoding leaves them out", "[store][codec]") {
    storage::IntervalTile intervals;
    std::vector<std::string> texts = { "{\"a\":1}", "", "{\"a\":2,\"b\":\"x\"}", "[3]" };
    for (std::size_t i = 0; i < texts.size(); ++i) {
        intervals.events.push_back({ model::TimeNs(10 * i), model::TimeNs(10 * i + 5),
            model::StringId(i), 0, 0, model::Role::Useful, std::uint32_t(i) });
        intervals.args.append(i, texts[i]);
    }
    const std::string payload = storage::encodeTile(intervals, 3);
    CHECK(static_cast<std::uint8_t>(payload[3]) == storage::kArgsNumberArraysCodecVersion);
    const storage::IntervalTile full = storage::decodeIntervalTile(payload);
    const storage::IntervalTile drawn = storage::decodeIntervalTile(payload, false);
    REQUIRE(full.events.size() == texts.size());
    REQUIRE(drawn.events.size() == texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i) {
        CHECK(full.args.at(i) == texts[i]);
        CHECK(drawn.args.at(i).empty());
        CHECK(drawn.events[i].startNs == full.events[i].startNs);
        CHECK(drawn.events[i].seq == full.events[i].seq);
    }

    storage::InstantTile instants;
    instants.events = { { 5, 1, 2 }, { 7, 3, 0 } };
    instants.args.append(1, "{\"x\":[1,2]}");
    const storage::InstantTile back = storage::decodeInstantTile(storage::encodeTile(instants, 3));
    CHECK(back.args.at(0).empty());
    CHECK(back.args.at(1) == "{\"x\":[1,2]}");
}

TEST_CASE("exact tiles of codec version 1 still decode", "[store][codec]") {
    // Version 1 columns: n | start delta | duration | name | category | depth | role | seq
    // delta | each row's args length, then their text.
    storage::ByteWriter out;
    out.varint(2);
    out.svarint(100);
    out.svarint(50);
    out.varint(10);
    out.varint(20);
    out.varint(1);
    out.varint(2);
    out.varint(0);
    out.varint(0);
    out.varint(0);
    out.varint(1);
    out.u8(0);
    out.u8(0);
    out.svarint(0);
    out.svarint(1);
    out.varint(7);
    out.varint(0);
    out.bytes().append("{\"a\":1}");
    const std::string payload = storage::wrapPayload(storage::TileKind::Intervals, out.bytes(), 3);
    REQUIRE(static_cast<std::uint8_t>(payload[3]) == 1);
    const storage::IntervalTile tile = storage::decodeIntervalTile(payload);
    REQUIRE(tile.events.size() == 2);
    CHECK(tile.events[1].startNs == 150);
    CHECK(tile.events[1].endNs == 170);
    CHECK(tile.args.at(0) == "{\"a\":1}");
    CHECK(tile.args.at(1).empty());
}

TEST_CASE("an args column that would decode to gigabytes is refused", "[store][codec][bad]") {
    // One key of a megabyte, repeated by 1 100 rows: 1.1 GB of text from a 1 MB column.
    const std::size_t rows = 1100;
    storage::ByteWriter out;
    out.varint(1);
    out.varint(1);
    out.string(std::string(std::size_t(1) << 20, 'k'));
    for (std::size_t i = 0; i < rows; ++i)
        out.varint(1);
    out.u8(1);
    for (std::size_t i = 0; i < rows; ++i)
        out.varint(0);
    const std::string bytes = out.bytes();
    storage::ByteReader in(bytes);
    REQUIRE_THROWS_AS(storage::readArgsByMember(in, rows), storage::CorruptTile);
}

TEST_CASE("a number array column of no elements, or more than its bytes, is refused",
    "[store][codec][bad]") {
    for (const std::uint64_t width :
        { std::uint64_t(0), std::uint64_t(5), std::uint64_t(1) << 40 }) {
        INFO("width " << width);
        storage::ByteWriter out;
        out.varint(1);  // one shape of one key
        out.varint(1);
        out.string("grid");
        out.varint(1);  // two rows of it
        out.varint(1);
        out.u8(2);
        out.varint(width);
        for (int i = 0; i < 8; ++i)  // 8 values: 4 elements of 2 rows at most
            out.varint(0);
        const std::string bytes = out.bytes();
        storage::ByteReader in(bytes);
        REQUIRE_THROWS_AS(storage::readArgsByMember(in, 2), storage::CorruptTile);
    }
}
