#include "storage/import_anomaly.h"

namespace strata::storage {

std::string anomalyWarning(std::uint64_t count, AnomalyEffect effect, std::string_view what,
    std::string_view unit, std::uint64_t first)
{
    std::string line = std::to_string(count);
    line += effect == AnomalyEffect::Altered ? " events altered: " : " events dropped: ";
    line += what;
    if (first != AnomalyCount::kNoPosition) {
        line += " (first at ";
        line += unit;
        line += ' ';
        line += std::to_string(first);
        line += ')';
    }
    return line;
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
