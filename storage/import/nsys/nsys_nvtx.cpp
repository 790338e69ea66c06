// NVTX_EVENTS of an Nsight Systems export: push/pop ranges on their thread, start/end
// ranges on their process' "NVTX start/end ranges" row, marks as instants. One row type
// per eventType (ENUM_NSYS_EVENT_TYPE, stable across versions); the "Nvtxt" types 64-71
// are the same events recorded through the NVTX text API.

#include "storage/import/nsys/nsys_database.h"
#include "storage/import/nsys/nsys_importer_p.h"
#include "storage/store/trace_sink.h"

#include <map>

namespace strata::storage {

namespace {

constexpr std::string_view kTable = "NVTX_EVENTS";

enum NvtxEventType : std::int64_t {
    kCategory = 33,
    kMark = 34,
    kPushPopRange = 59,
    kStartEndRange = 60,
    kTextCategory = 64,
    kTextMark = 65,
    kTextPushPopRange = 70,
    kTextStartEndRange = 71,
    kDomainCreate = 75,
};

/// Row text: the `text` column, or StringIds[textId] (2022+ exports intern it).
std::string rowText(NsysImport& in, const SqliteStatement& row, int textColumn, int idColumn)
{
    if (!row.isNull(textColumn))
        return validUtf8(row.text(textColumn));
    if (!row.isNull(idColumn))
        return std::string(in.db.string(row.int64(idColumn)));
    return {};
}

struct NvtxNames
{
    std::map<std::int64_t, std::string> domains;  ///< by domainId
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> categories;  ///< (domain, id)
};

NvtxNames readNames(NsysImport& in)
{
    NvtxNames names;
    SqliteStatement rows =
        in.db.select(kTable, { "eventType", "domainId", "category", "text", "textId" },
            "WHERE eventType IN (33, 64, 75)");
    while (rows.step()) {
        const std::string text = rowText(in, rows, 3, 4);
        if (rows.int64(0) == kDomainCreate)
            names.domains[rows.int64(1)] = text;
        else
            names.categories[{ rows.int64(1), rows.int64(2) }] = text;
    }
    return names;
}

/// The first payload column (uint64Value ... floatValue) that holds a value.
void addPayload(const SqliteStatement& row, int firstColumn, JsonArgs& args)
{
    for (int column = firstColumn; column < firstColumn + 6; ++column) {
        if (row.isNull(column))
            continue;
        const bool real = column == firstColumn + 2 || column == firstColumn + 5;
        if (real)
            args.add("payload", row.real(column));
        else
            args.add("payload", row.int64(column));
        return;
    }
}

}  // namespace

void importNvtx(NsysImport& in)
{
    if (!in.db.hasTable(kTable))
        return;
    in.stats.nvtxRows += static_cast<std::uint64_t>(in.db.rowCount(kTable));
    if (in.db.column(kTable, "start").empty() || in.db.column(kTable, "eventType").empty()
        || in.db.column(kTable, "globalTid").empty()) {
        in.stats.warnings.emplace_back(
            "table NVTX_EVENTS lacks start, eventType or globalTid: skipped");
        return;
    }
    const NvtxNames names = readNames(in);
    const model::StringId category = in.sink.intern("nvtx");
    // Enclosing ranges first on equal starts, so that the store nests them outside.
    SqliteStatement rows = in.db.select(kTable,
        { "start", "end", "eventType", "globalTid", "text", "textId", "domainId", "category",
            "color", "uint64Value", "int64Value", "doubleValue", "uint32Value", "int32Value",
            "floatValue" },
        "WHERE eventType IN (34, 59, 60, 65, 70, 71) ORDER BY start, end DESC");
    JsonArgs args;
    while (rows.step()) {
        in.progress.tick();
        const std::int64_t type = rows.int64(2);
        const std::int64_t globalTid = rows.int64(3);
        const std::string text = rowText(in, rows, 4, 5);
        const model::StringId name = in.sink.intern(text);
        args.clear();
        const std::int64_t domain = rows.int64(6);
        if (const auto it = names.domains.find(domain); it != names.domains.end())
            args.add("domain", it->second);
        if (!rows.isNull(7)) {
            const auto it = names.categories.find({ domain, rows.int64(7) });
            if (it != names.categories.end())
                args.add("category", it->second);
            else
                args.add("category", rows.int64(7));
        }
        if (!rows.isNull(8))
            args.add("color", hexColor(rows.int64(8)));
        addPayload(rows, 9, args);

        if (type == kMark || type == kTextMark) {
            in.sink.addInstant(
                in.tracks.thread(globalTid), { rows.int64(0), name, category }, args.text());
            ++in.stats.nvtxMarks;
            continue;
        }
        if (rows.isNull(1)) {
            if (in.stats.nvtxUnclosed++ == 0)
                in.stats.firstNvtxUnclosed = nsysRowAt(kTable, rows.int64(0));
            continue;
        }
        model::Interval e;
        e.startNs = rows.int64(0);
        e.endNs = rows.int64(1);
        if (e.endNs < e.startNs) {
            countNegativeDuration(in.stats, [&] { return nsysRowAt(kTable, e.startNs); });
            e.endNs = e.startNs;
        }
        e.name = name;
        e.category = category;
        e.depth = model::kAutoDepth;
        e.role = model::classifyRole(text, "nvtx");
        const bool startEnd = type == kStartEndRange || type == kTextStartEndRange;
        const model::TrackId track =
            startEnd ? in.tracks.nvtxRanges(nsysGlobalPid(globalTid)) : in.tracks.thread(globalTid);
        in.sink.addInterval(track, e, args.text());
        ++in.stats.nvtxRanges;
    }
}

}  // namespace strata::storage
