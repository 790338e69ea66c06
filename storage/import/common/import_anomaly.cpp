#include "storage/import/common/import_anomaly.h"

namespace strata::storage {

std::string anomalyWarning(std::uint64_t count, AnomalyEffect effect, std::string_view what,
    std::string_view where, std::string_view noun)
{
    std::string line = std::to_string(count);
    line += ' ';
    line += noun;
    line += effect == AnomalyEffect::Altered ? " altered: " : " dropped: ";
    line += what;
    if (!where.empty()) {
        line += " (first at ";
        line += where;
        line += ')';
    }
    return line;
}

std::string anomalyWarning(std::uint64_t count, AnomalyEffect effect, std::string_view what,
    std::string_view unit, std::uint64_t first)
{
    if (first == AnomalyCount::kNoPosition)
        return anomalyWarning(count, effect, what, std::string_view());
    return anomalyWarning(count, effect, what, std::string(unit) + " " + std::to_string(first));
}

std::vector<std::string> anomalyWarnings(
    const std::vector<ImportStatRow>& rows, std::string_view unit)
{
    std::vector<std::string> lines;
    for (const ImportStatRow& row : rows) {
        if (row.effect != AnomalyEffect::None && row.value > 0)
            lines.push_back(
                anomalyWarning(row.value, row.effect, row.description, unit, row.first));
    }
    return lines;
}

}  // namespace strata::storage
