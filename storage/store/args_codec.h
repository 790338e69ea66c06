#pragma once
// The args column of exact interval and instant tiles, by member (tile codec version 2;
// version 3 adds arrays of whole numbers as number columns).
//
// Version 1 stored each row's args as its JSON text, one after the other. Most rows of a
// tile repeat a few key sets ({"device","stream","correlation",...} for every kernel), and
// their keys were most of the bytes zstd then had to match: on Kineto traces the args of
// exact tiles took 2 to 3.5 times the compressed bytes and 3 to 6 times the zstd time of
// this layout (measured on 5 real and synthetic traces, tiles of 512 rows, level 6).
//
// Layout (varints; svarint = zigzag):
//
//   varint S                          key sets ("shapes"), 1..S
//   S x { varint K, K x string key }  keys as written between their quotes
//   rows x varint shape               0 = no args, 1..S = a shape, S + 1 = verbatim
//   per shape, per key:               the values of the rows of that shape, in row order
//     u8 1, svarint deltas            all whole numbers (-?[1-9][0-9]{0,17} or 0): each
//                                     against the previous value of the column
//     u8 2, varint W, W x svarint deltas
//                                     all arrays of W >= 1 whole numbers ([a,b,c], as
//                                     Kineto's grid and block): per element, its values
//                                     each against the previous row's (from tile codec
//                                     version 3 on)
//     u8 0, varint lengths, bytes     otherwise: each value's JSON text
//   varint lengths, bytes             the verbatim rows' text
//
// A row is rebuilt as {"k1":v1,"k2":v2}: byte for byte its text when that text is a
// minified object (what importers give: chrome_json_converter.cpp minifies args).
// Anything else (white space between members, text that is not an object) is stored
// verbatim, so every row decodes to exactly the text it was given.

#include "storage/store/byte_io.h"
#include "storage/store/tiles.h"

#include <cstddef>

namespace strata::storage {

/// Writes rows [0, rows) of `args` in the layout above.
void writeArgsByMember(ByteWriter& out, const ArgsColumn& args, std::size_t rows);

/// What a column of an args layout may hold: arrays of whole numbers as number columns
/// (mode 2) from tile codec version 3 on.
enum class ArgsLayout : std::uint8_t { ArraysAsText, NumberArrays };

/// Reads what writeArgsByMember() wrote for `rows` rows (or, with ArraysAsText, what it
/// wrote before arrays had their mode). Throws CorruptTile.
ArgsColumn readArgsByMember(
    ByteReader& in, std::size_t rows, ArgsLayout layout = ArgsLayout::NumberArrays);

}  // namespace strata::storage
