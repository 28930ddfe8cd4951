#include "workflows/backend_traits.hpp"

namespace accelopt::workflows {

const BackendTraits& TraitsOf(const std::string& backend) {
  // nki: NKI kernels and their reference are Python (the judge compares in
  // float64 with numpy); triton: Python kernels against suites' C++
  // references; cuda: .cu kernels against C++ references.
  static const BackendTraits kRows[] = {
      {"cpu", "cpp", "cpp", "reference.cpp", "baseline.cpp", false, false},
      {"cuda", "cpp", "cpp", "reference.cpp", "baseline.cu", false, false},
      {"nki", "python", "python", "reference.py", "baseline.py", true, true},
      {"triton", "python", "cpp", "reference.cpp", "baseline.py", true, false},
  };
  for (const BackendTraits& row : kRows) {
    if (row.name == backend) return row;
  }
  return kRows[0];
}

}  // namespace accelopt::workflows
