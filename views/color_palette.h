#pragma once
// Stable colours: a name gets the same colour in every session and every store (a hash
// of its text picks a hue), and roles have fixed colours like Paraver's state palette.

#include "model/role.h"

#include <QColor>

#include <string_view>

namespace strata::views {

/// A saturated, readable colour from the name's text.
QColor colorForName(std::string_view name);
QColor colorForRole(model::Role role);

} // namespace strata::views
