#include "storage/store/args_codec.h"

#include "storage/store/json_bytes.h"

#include <charconv>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strata::storage {

namespace {

constexpr std::size_t kNone = std::string_view::npos;
constexpr std::uint32_t kVerbatim = ~std::uint32_t(0);
/// More decoded args text than this in one tile is corruption.
constexpr std::uint64_t kMaxArgsBytes = std::uint64_t(1) << 30;

/// One member of an object: its key as written between the quotes, its value's text.
struct Member
{
    std::string_view key;
    std::string_view value;
};

/// The closing quote of the string whose text starts at `p`, or kNone.
std::size_t stringEnd(std::string_view text, std::size_t p)
{
    const char* const end = text.data() + text.size();
    for (const char* q = text.data() + p; q < end;) {
        q = findQuoteOrBackslash(q, end);
        if (q == end)
            break;
        if (*q == '"')
            return static_cast<std::size_t>(q - text.data());
        q += 2;  // an escape: the next character is part of the string
    }
    return kNone;
}

/// The end of the object or array opening at `p`, or kNone. Only brackets and strings
/// are followed: the value is kept as written, whatever it holds.
std::size_t nestedEnd(std::string_view text, std::size_t p)
{
    const char* done = skipNestedJson(text.data() + p, text.data() + text.size());
    return done ? static_cast<std::size_t>(done - text.data()) : kNone;
}

/// The end of the value starting at `p` (a string, an object or array, or a token up to
/// the next ',' or '}'), or kNone.
std::size_t valueEnd(std::string_view text, std::size_t p)
{
    if (p >= text.size())
        return kNone;
    const char c = text[p];
    if (c == '"') {
        const std::size_t close = stringEnd(text, p + 1);
        return close == kNone ? kNone : close + 1;
    }
    if (c == '{' || c == '[')
        return nestedEnd(text, p);
    std::size_t end = p;
    while (end < text.size() && text[end] != ',' && text[end] != '}')
        ++end;
    return end == p || end == text.size() ? kNone : end;
}

/// The members of `text` when it is exactly {"k":v,...} (every byte accounted for, so
/// that rebuilding gives it back); false otherwise.
bool splitMembers(std::string_view text, std::vector<Member>& members)
{
    members.clear();
    if (text.size() < 2 || text.front() != '{')
        return false;
    if (text == "{}")
        return true;
    std::size_t p = 1;
    while (true) {
        if (p >= text.size() || text[p] != '"')
            return false;
        const std::size_t close = stringEnd(text, p + 1);
        if (close == kNone || close + 1 >= text.size() || text[close + 1] != ':')
            return false;
        const std::size_t end = valueEnd(text, close + 2);
        if (end == kNone)
            return false;
        members.push_back(
            { text.substr(p + 1, close - p - 1), text.substr(close + 2, end - close - 2) });
        if (text[end] == '}')
            return end + 1 == text.size();
        if (text[end] != ',')
            return false;
        p = end + 1;
    }
}

/// The whole number written as std::to_chars writes it (-?[1-9][0-9]{0,17} or 0: the
/// values that round-trip through an int64) that starts at `p`, before `end`: its value
/// in `value` and `p` moved past it; false (`p` anywhere) when the digits there break
/// that form.
bool readWhole(const char*& p, const char* end, std::int64_t& value)
{
    const bool negative = p < end && *p == '-';
    p += negative;
    const char* const digits = p;
    std::uint64_t v = 0;
    for (unsigned d; p < end && (d = static_cast<unsigned char>(*p) - '0') <= 9; ++p)
        v = v * 10 + d;
    const auto n = static_cast<std::size_t>(p - digits);
    if (n == 0 || n > 18 || (*digits == '0' && (n > 1 || negative)))
        return false;
    value = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    return true;
}

/// Whether `text` is exactly one whole number of readWhole()'s form.
bool wholeNumber(std::string_view text, std::int64_t& value)
{
    const char* p = text.data();
    const char* const end = p + text.size();
    return readWhole(p, end, value) && p == end;
}

/// Arrays of whole numbers a column stores as numbers: at most this many elements.
constexpr std::size_t kMaxArrayElements = 16;

/// The count of elements of `text` when it is an array of 1..kMaxArrayElements whole
/// numbers as wholeNumber() takes them, written minified ([a,b,c]), each put at `out`;
/// 0 otherwise. One pass over the digits: Kineto gives two such arrays to every kernel.
std::size_t wholeArray(std::string_view text, std::int64_t* out)
{
    if (text.size() < 3 || text.front() != '[' || text.back() != ']')
        return 0;
    const char* p = text.data() + 1;
    const char* const close = text.data() + text.size() - 1;
    for (std::size_t count = 1; count <= kMaxArrayElements; ++count) {
        if (!readWhole(p, close, *out++))
            return 0;
        if (p == close)
            return count;
        if (*p++ != ',')
            return 0;
    }
    return 0;
}

/// Appends the text of `v` to `numbers`.
void appendNumber(std::string& numbers, std::int64_t v)
{
    char text[24];
    numbers.append(text, std::to_chars(text, text + sizeof text, v).ptr);
}

/// Writes `count` values, `stride` apart from `values` on, as zigzag varints of their
/// differences, each against the one before (the first against 0).
void writeDeltas(ByteWriter& out, const std::int64_t* values, std::size_t count, std::size_t stride)
{
    std::int64_t previous = 0;
    for (std::size_t i = 0; i < count; ++i, values += stride) {
        out.varint(zigzag(static_cast<std::int64_t>(
            static_cast<std::uint64_t>(*values) - static_cast<std::uint64_t>(previous))));
        previous = *values;
    }
}

/// Whether the n bytes at a and b are the same, compared a word at a time: the literals
/// of a shape are short, and a call of memcmp for each cost more than comparing them.
inline bool sameBytes(const char* a, const char* b, std::size_t n)
{
    for (; n >= 8; a += 8, b += 8, n -= 8) {
        std::uint64_t x = 0, y = 0;
        std::memcpy(&x, a, 8);
        std::memcpy(&y, b, 8);
        if (x != y)
            return false;
    }
    for (; n > 0; ++a, ++b, --n) {
        if (*a != *b)
            return false;
    }
    return true;
}

/// A key set, and the values of its rows. Its text between the values (`{"k1":`,
/// `,"k2":`, ...) is kept whole, so a row of the shape is recognised by comparing those
/// literals and finding the end of each value between them, where splitting the row and
/// comparing its keys one by one took ~760 instructions a row (7 members, as Kineto's
/// kernels have): ~8 % of a JSON ingest's instructions.
struct Shape
{
    std::vector<std::string_view> keys;
    std::string literals;  ///< the text before each value, one after the other
    std::vector<std::uint32_t> literalEnds;  ///< in `literals`, one per key
    std::vector<std::string_view> values;  ///< by row, then key
    std::size_t rows = 0;

    explicit Shape(const std::vector<Member>& members)
    {
        for (const Member& m : members) {
            keys.push_back(m.key);
            literals.append(literals.empty() ? "{\"" : ",\"").append(m.key).append("\":");
            literalEnds.push_back(static_cast<std::uint32_t>(literals.size()));
        }
    }

    /// Appends the values of `text` as a row of this shape: false (nothing appended) when
    /// it is not {"k1":v1,...} with this shape's keys, what splitMembers() would say.
    bool match(std::string_view text)
    {
        if (keys.empty())
            return false;  // "{}" goes the slow way (rare)
        const std::size_t first = values.size();
        std::size_t p = 0;
        std::size_t literal = 0;
        for (const std::uint32_t literalEnd : literalEnds) {
            const std::size_t n = literalEnd - literal;
            if (text.size() - p <= n || !sameBytes(text.data() + p, literals.data() + literal, n)) {
                values.resize(first);
                return false;
            }
            p += n;
            literal = literalEnd;
            const std::size_t end = valueEnd(text, p);
            if (end == kNone) {
                values.resize(first);
                return false;
            }
            values.push_back(text.substr(p, end - p));
            p = end;
        }
        if (p + 1 != text.size() || text[p] != '}') {
            values.resize(first);
            return false;
        }
        ++rows;
        return true;
    }

    void add(const std::vector<Member>& members)
    {
        for (const Member& m : members)
            values.push_back(m.value);
        ++rows;
    }
};

/// A column of `rows` arrays of whole numbers (layout mode 2) written back as their text
/// ([a,b,c]) at the end of `numbers`, each row's offset and length in `spans`.
void readNumberArrays(ByteReader& in, std::uint64_t rows, std::string& numbers,
    std::vector<std::pair<std::size_t, std::size_t>>& spans)
{
    const std::uint64_t n = in.varint();
    // Every element takes at least a byte: a count beyond the bytes left is corrupt.
    if (n == 0 || n > in.remaining() || (rows > 0 && n > in.remaining() / rows))
        throw CorruptTile("tile claims more arg array elements than it holds");
    std::vector<std::int64_t> elements(rows * n);  // element-major, as written
    for (std::uint64_t e = 0; e < n; ++e) {
        std::int64_t v = 0;
        for (std::uint64_t r = 0; r < rows; ++r)
            elements[e * rows + r] = v = in.delta(v);
    }
    for (std::uint64_t r = 0; r < rows; ++r) {
        const std::size_t start = numbers.size();
        numbers.push_back('[');
        for (std::uint64_t e = 0; e < n; ++e) {
            if (e > 0)
                numbers.push_back(',');
            appendNumber(numbers, elements[e * rows + r]);
        }
        numbers.push_back(']');
        spans.emplace_back(start, numbers.size() - start);
    }
}

}  // namespace

void writeArgsByMember(ByteWriter& out, const ArgsColumn& args, std::size_t rows)
{
    std::vector<Shape> shapes;
    std::unordered_map<std::string, std::uint32_t> shapeIds;
    std::vector<std::uint32_t> rowShapes(rows, 0);
    std::vector<std::string_view> verbatim;
    std::vector<Member> members;
    std::string key;
    std::uint32_t lastShape = 0;
    for (std::size_t i = 0; i < rows; ++i) {
        const std::string_view text = args.at(i);
        if (text.empty())
            continue;
        // Rows of one shape come in runs: try the last one before splitting and hashing.
        if (lastShape != 0 && shapes[lastShape - 1].match(text)) {
            rowShapes[i] = lastShape;
            continue;
        }
        if (!splitMembers(text, members)) {
            verbatim.push_back(text);
            rowShapes[i] = kVerbatim;  // numbered after the shapes, below
            continue;
        }
        key.clear();  // each key after its length: no two shapes give the same string
        for (const Member& m : members) {
            const auto length = static_cast<std::uint32_t>(m.key.size());
            key.append(reinterpret_cast<const char*>(&length), sizeof length).append(m.key);
        }
        auto [it, added] = shapeIds.try_emplace(key, shapes.size() + 1);
        if (added)
            shapes.emplace_back(members);
        const std::uint32_t id = it->second;
        lastShape = id;
        rowShapes[i] = id;
        shapes[id - 1].add(members);
    }

    out.varint(shapes.size());
    for (const Shape& shape : shapes) {
        out.varint(shape.keys.size());
        for (std::string_view k : shape.keys)
            out.string(k);
    }
    const std::uint64_t verbatimShape = shapes.size() + 1;
    for (std::uint32_t s : rowShapes)
        out.varint(s == kVerbatim ? verbatimShape : s);
    std::vector<std::int64_t> whole;
    for (const Shape& shape : shapes) {
        const std::size_t width = shape.keys.size();
        for (std::size_t k = 0; k < width; ++k) {
            // The key's values, a row apart.
            const auto column = [&shape, width, k](auto each) {
                for (std::size_t r = 0; r < shape.rows; ++r)
                    each(shape.values[r * width + k]);
            };
            whole.clear();
            if (!shape.values[k].empty() && shape.values[k].front() == '[') {
                // Arrays of whole numbers (Kineto's grid and block): a column per element.
                std::int64_t row[kMaxArrayElements];
                const std::size_t n = wholeArray(shape.values[k], row);
                whole.resize(n * shape.rows);
                std::copy(row, row + n, whole.begin());
                bool same = n > 0;
                for (std::size_t r = 1; r < shape.rows && same; ++r) {
                    same = wholeArray(shape.values[r * width + k], row) == n;
                    std::copy(row, row + n, whole.data() + r * n);
                }
                if (same) {
                    out.u8(2);
                    out.varint(n);
                    for (std::size_t e = 0; e < n; ++e)
                        writeDeltas(out, whole.data() + e, shape.rows, n);
                    continue;
                }
                whole.clear();
            }
            bool allWhole = true;
            for (std::size_t r = 0; r < shape.rows && allWhole; ++r) {
                std::int64_t v = 0;
                allWhole = wholeNumber(shape.values[r * width + k], v);
                whole.push_back(v);
            }
            if (allWhole) {
                out.u8(1);
                writeDeltas(out, whole.data(), whole.size(), 1);
            } else {
                out.u8(0);
                column([&out](std::string_view text) { out.varint(text.size()); });
                column([&out](std::string_view text) { out.raw(text); });
            }
        }
    }
    for (std::string_view text : verbatim)
        out.varint(text.size());
    for (std::string_view text : verbatim)
        out.raw(text);
}

ArgsColumn readArgsByMember(ByteReader& in, std::size_t rows, ArgsLayout layout)
{
    // Every shape, key and row takes at least a byte: counts beyond the bytes left are
    // corrupt, and checking them first bounds what is allocated.
    const auto count = [&in](std::uint64_t limit, const char* what) {
        const std::uint64_t n = in.varint();
        if (n > limit || n > in.remaining())
            throw CorruptTile(what);
        return n;
    };
    std::vector<std::vector<std::string_view>> keys(
        count(rows, "tile claims more arg shapes than rows"));
    for (auto& shape : keys) {
        shape.resize(count(in.remaining(), "tile claims more arg keys than it holds"));
        for (auto& k : shape)
            k = in.string();
    }
    const std::uint64_t verbatimShape = keys.size() + 1;
    std::vector<std::uint32_t> rowShapes(rows);
    std::vector<std::uint64_t> rowsOfShape(keys.size() + 2, 0);
    for (auto& s : rowShapes) {
        const std::uint64_t v = in.varint();
        if (v > verbatimShape)
            throw CorruptTile("tile names an arg shape it does not hold");
        s = static_cast<std::uint32_t>(v);
        ++rowsOfShape[s];
    }

    // The columns, in shape and key order. Whole numbers are written back as text into
    // one string, read once it is complete (it moves while it grows).
    struct Column
    {
        bool whole = false;
        std::size_t firstNumber = 0;  ///< whole: its first value in numberSpans
        std::vector<std::string_view> texts;  ///< otherwise
    };
    std::vector<std::size_t> firstColumn(keys.size(), 0);
    std::vector<Column> columns;
    std::string numbers;
    std::vector<std::pair<std::size_t, std::size_t>> numberSpans;  // offset, length
    for (std::size_t s = 0; s < keys.size(); ++s) {
        firstColumn[s] = columns.size();
        const std::uint64_t n = rowsOfShape[s + 1];
        for (std::size_t k = 0; k < keys[s].size(); ++k) {
            Column& column = columns.emplace_back();
            const std::uint8_t mode = in.u8();
            if (mode > (layout == ArgsLayout::NumberArrays ? 2 : 1))
                throw CorruptTile("tile has an unknown arg column");
            if (n > in.remaining())
                throw CorruptTile("tile claims more arg values than it holds");
            if (mode == 1) {
                column.whole = true;
                column.firstNumber = numberSpans.size();
                std::int64_t v = 0;
                for (std::uint64_t i = 0; i < n; ++i) {
                    const std::size_t start = numbers.size();
                    appendNumber(numbers, v = in.delta(v));
                    numberSpans.emplace_back(start, numbers.size() - start);
                }
            } else if (mode == 2) {
                column.whole = true;  // its texts are in `numbers` too
                column.firstNumber = numberSpans.size();
                readNumberArrays(in, n, numbers, numberSpans);
            } else {
                std::vector<std::uint64_t> lengths(n);
                for (auto& length : lengths)
                    length = in.varint();
                column.texts.resize(n);
                for (std::uint64_t i = 0; i < n; ++i)
                    column.texts[i] = in.raw(lengths[i]);
            }
        }
    }
    const auto value = [&](const Column& column, std::size_t row) {
        if (!column.whole)
            return column.texts[row];
        const auto [offset, length] = numberSpans[column.firstNumber + row];
        return std::string_view(numbers).substr(offset, length);
    };
    const std::uint64_t verbatimRows = rowsOfShape[verbatimShape];
    if (verbatimRows > in.remaining())
        throw CorruptTile("tile claims more verbatim args than it holds");
    std::vector<std::uint64_t> verbatimLengths(verbatimRows);
    for (auto& length : verbatimLengths)
        length = in.varint();
    std::vector<std::string_view> verbatim(verbatimRows);
    for (std::uint64_t i = 0; i < verbatimRows; ++i)
        verbatim[i] = in.raw(verbatimLengths[i]);

    ArgsColumn args;
    if (rowsOfShape[0] == rows)
        return args;  // no row has args: the column stays empty, as ArgsColumn::append keeps it

    // The text's size, so that the rows are written into it without growing it: each
    // row of a shape takes its punctuation and keys ({"k1":,"k2":}), then its values.
    std::uint64_t size = numbers.size();
    for (std::size_t s = 0; s < keys.size(); ++s) {
        std::uint64_t frame = 2 + (keys[s].empty() ? 0 : keys[s].size() - 1);
        for (std::string_view k : keys[s])
            frame += k.size() + 3;
        size += frame * rowsOfShape[s + 1];
    }
    for (const Column& column : columns) {
        for (std::string_view text : column.texts)
            size += text.size();
    }
    for (std::string_view text : verbatim)
        size += text.size();
    // Keys repeat in every row: a corrupted count of rows could ask for far more text than
    // any tile holds (a tile's rows are at most kEventsPerTile, their args its input's).
    if (size > kMaxArgsBytes)
        throw CorruptTile("tile's args would take more than 1 GB");
    args.bytes.resize(size);
    args.ends.reserve(rows);
    char* out = args.bytes.data();
    const auto put = [&out](std::string_view text) {
        std::memcpy(out, text.data(), text.size());
        out += text.size();
    };
    std::vector<std::size_t> next(keys.size() + 2, 0);  // the next value of each shape
    for (const std::uint32_t s : rowShapes) {
        if (s == verbatimShape) {
            put(verbatim[next[s]++]);
        } else if (s != 0) {
            const auto& shapeKeys = keys[s - 1];
            const std::size_t row = next[s]++;
            *out++ = '{';
            for (std::size_t k = 0; k < shapeKeys.size(); ++k) {
                if (k > 0)
                    *out++ = ',';
                *out++ = '"';
                put(shapeKeys[k]);
                put("\":");
                put(value(columns[firstColumn[s - 1] + k], row));
            }
            *out++ = '}';
        }
        args.ends.push_back(static_cast<std::uint64_t>(out - args.bytes.data()));
    }
    return args;
}

}  // namespace strata::storage
