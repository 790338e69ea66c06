// Small helpers of the Nsight Systems importer (nsys_importer_p.h): row progress, event
// args as JSON text, StringIds interning.

#include "model/json_text.h"
#include "storage/import/nsys/nsys_database.h"
#include "storage/import/nsys/nsys_importer_p.h"
#include "storage/store/input_error.h"
#include "storage/store/trace_sink.h"

#include <cstdio>

namespace strata::storage {

void RowProgress::report()
{
    if (m_fn && !m_fn(std::min(m_done, m_total), m_total))
        throw Cancelled();
}

JsonArgs& JsonArgs::add(std::string_view name, std::int64_t value)
{
    key(name);
    m_text += std::to_string(value);
    return *this;
}

JsonArgs& JsonArgs::add(std::string_view name, double value)
{
    key(name);
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    m_text += buffer;
    return *this;
}

JsonArgs& JsonArgs::add(std::string_view name, std::string_view text)
{
    key(name);
    model::appendJsonString(m_text, text);
    return *this;
}

JsonArgs& JsonArgs::add3(std::string_view name, std::int64_t x, std::int64_t y, std::int64_t z)
{
    key(name);
    m_text += "[" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + "]";
    return *this;
}

void JsonArgs::key(std::string_view name)
{
    if (m_closed)
        m_text.back() = ',';  // reopen the object text() closed
    else
        m_text += m_text.empty() ? "{" : ",";
    m_closed = false;
    // Keys are the importer's own constants: plain ASCII, nothing to escape.
    m_text += '"';
    m_text += name;
    m_text += "\":";
}

std::string_view JsonArgs::text()
{
    if (!m_closed && !m_text.empty()) {
        m_text += '}';
        m_closed = true;
    }
    return m_text;
}

model::StringId NsysImport::name(std::int64_t id)
{
    auto it = names.find(id);
    if (it == names.end())
        it = names.emplace(id, sink.intern(db.string(id))).first;
    return it->second;
}

std::string hexColor(std::int64_t argb)
{
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "#%06x", static_cast<unsigned>(argb & 0xFFFFFF));
    return buffer;
}

}  // namespace strata::storage
