// The registration rule of the tables keyed by a name (the daemon's backend
// modules, workflows' backend traits and prompt sets): a row whose `name`
// is already in the table replaces that row; any other is appended.
//
// Thread safety: none of its own; the tables' registration runs before they
// are read, on one thread (their headers say so).
#pragma once

#include <utility>

namespace accelopt {

// Puts `row` in `rows` (a container of structs with a `name` member) by
// its name.
template <class Rows, class Row>
void PutRowByName(Rows& rows, Row row) {
  for (auto& r : rows) {
    if (r.name == row.name) {
      r = std::move(row);
      return;
    }
  }
  rows.push_back(std::move(row));
}

}  // namespace accelopt
