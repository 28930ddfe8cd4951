#include "workflows/backend_traits.hpp"

#include <deque>

#include "base/named_rows.hpp"

namespace accelopt::workflows {
namespace {

// A deque: the rows' addresses stay put when one is added.
std::deque<BackendTraits>& TraitsTable() {
  // nki: NKI kernels and their reference are Python (the judge compares in
  // float64 with numpy); triton: Python kernels against suites' C++
  // references; cuda: .cu kernels against C++ references.
  static std::deque<BackendTraits> rows = {
      {"cpu", "cpp", "cpp", "reference.cpp", "baseline.cpp", false, false},
      {"cuda", "cpp", "cpp", "reference.cpp", "baseline.cu", false, false},
      {"nki", "python", "python", "reference.py", "baseline.py", true, true},
      {"triton", "python", "cpp", "reference.cpp", "baseline.py", true, false},
  };
  return rows;
}

}  // namespace

const BackendTraits* FindTraits(const std::string& backend) {
  for (const BackendTraits& row : TraitsTable()) {
    if (row.name == backend) return &row;
  }
  return nullptr;
}

const BackendTraits& TraitsOf(const std::string& backend) {
  const BackendTraits* row = FindTraits(backend);
  return row ? *row : TraitsTable().front();
}

void RegisterBackendTraits(BackendTraits row) { PutRowByName(TraitsTable(), std::move(row)); }

}  // namespace accelopt::workflows
