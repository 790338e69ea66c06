#pragma once
// A small validating JSON scanner for importers that stream: scanJsonObject() checks the
// syntax of one object (structure, strings and their escapes, numbers, literals; not
// UTF-8) and lists its top-level members as views into the text, in one pass. It tells a
// syntax error (JsonSyntaxError, with an offset) from text that simply stops early (a
// return of 0: the caller reads more and scans again), which is what a reader needs to
// report "byte N: expected ..." and to accept a file cut at its end.
//
// Why not simdjson On-Demand per event: an event must be delimited before simdjson can
// parse it, and delimiting already walks every byte; recording the top-level members
// during that walk gives one pass, full validation (simdjson skips what is not read) and
// exact offsets for "expected ..." messages. Measured on the H100 Kineto trace: this
// scanner 0.6-0.75 GB/s; delimiting alone 1.1-1.7 GB/s plus simdjson on the delimited
// event 1.4-2.5 GB/s (about 0.9 GB/s together). Either is far above what inflate and two
// passes allow end to end (200-270 MB/s). `strata bench` compares the two on the same
// synthetic file every run (json_scanner_mb_per_s against simdjson_ondemand_mb_per_s:
// On-Demand over the whole document with its AVX2 kernels, reading the same members):
// 566 against 466 MB/s on 2026-11-26, so this scanner stays. Strings, where most bytes of a trace
// are, are skipped 16 bytes at a time (SSE2), and so are digit runs. Complexity: O(length), no
// allocation beyond `fields`.
//
// Parsed by recursive descent (one function per kind of value) since 2026-11-27: the
// state machine before it paid a switch per token; 1.5x faster in one `strata bench` run
// (579 against 373 MB/s, the machine loaded). A file is read twice by the Chrome importer
// (chrome_json_importer.h); the first time, listJsonObject() only finds the members, and
// the second read checks them.
//
// Not a block scanner in the simdjson way either (measured 2026-11-27, bench/RESULTS.md
// session 10): classifying each event 64 bytes at a time into quote and punctuation bit
// masks, then walking the punctuation, cost 1.7x this scanner's instructions on Kineto
// events, whose ~10 members of ~14 bytes make the work per token, not per byte. Strings and
// numbers, most values, are read inline by the member and element loops (anyValue).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

/// A top-level member of a JSON object: its key as written between the quotes (escapes
/// are not decoded) and its value's raw JSON text ("\"X\"", "12.5", "{...}").
struct JsonField
{
    std::string_view key;
    std::string_view value;
};

/// A JSON syntax error `offset` bytes into the scanned text.
struct JsonSyntaxError
{
    std::size_t offset = 0;
    const char* what = "";
};

/// Scans the JSON object that starts at text[0] == '{', checks its syntax and lists its
/// top-level members in `fields` (views into `text`). Returns the object's length in
/// bytes, or 0 when `text` ends before the object does. Throws JsonSyntaxError.
std::size_t scanJsonObject(std::string_view text, std::vector<JsonField>& fields);

/// Where a scan puts the members it finds, one call of `add` each, in order. A scan that
/// returns 0 or throws may have given some already; `restart` (when set) is called when a
/// scan drops those it gave and starts again.
struct JsonFieldSink
{
    void (*add)(void* context, const JsonField& field) = nullptr;
    void (*restart)(void* context) = nullptr;
    void* context = nullptr;
};

/// scanJsonObject() with the members given to `sink` as they are found, for callers that
/// sort them at once (no list to fill, then read again).
std::size_t scanJsonObject(std::string_view text, const JsonFieldSink& sink);

/// scanJsonObject() for text that it has accepted before (the same bytes, read again):
/// the same result, faster, as it does not check what it skips (nested values are
/// skipped by their brackets and strings, numbers and literals by the byte after them).
/// Text whose members it cannot follow (a file changed since) is handed to
/// scanJsonObject(), which throws or returns what it finds; bad text inside a value
/// may go unnoticed.
std::size_t listJsonObject(std::string_view text, std::vector<JsonField>& fields);
std::size_t listJsonObject(std::string_view text, const JsonFieldSink& sink);

/// The value of member `key`, or an empty view when absent (the first one if repeated).
std::string_view findJsonField(const std::vector<JsonField>& fields, std::string_view key);

/// The text of a raw JSON string value (with its quotes); escapes are decoded into
/// `scratch` when there are any. nullopt when `raw` is not a string.
std::optional<std::string_view> jsonString(std::string_view raw, std::string& scratch);

/// Raw JSON text with the whitespace between tokens removed (strings kept as written).
void minifyJson(std::string_view raw, std::string& out);
/// True when `raw` has no white space outside its strings: minifyJson() would copy it whole.
bool isMinifiedJson(std::string_view raw);

/// Low-level: `p` is just after a string's opening quote. Returns its closing quote, or
/// nullptr when `end` comes first. Throws JsonSyntaxError (offset from `base`) on a bad
/// escape.
const char* skipJsonString(const char* p, const char* end, const char* base);

/// Low-level: the end of the JSON number at `p`, or nullptr when `end` comes first (a
/// number is only complete once a byte that cannot extend it follows). Throws
/// JsonSyntaxError (offset from `base`).
const char* skipJsonNumber(const char* p, const char* end, const char* base);

}  // namespace strata::storage
