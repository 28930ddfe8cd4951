// Helpers of the nki tests: a temporary directory and a copy of the
// NKIBench-shaped fixture (tests/evaluators/nkibench/) that a test may break.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace accelopt::eval::nki::testing {

inline const std::string kFixture = std::string(ACCELOPT_SOURCE_DIR) + "/tests/evaluators/nkibench";

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/accelopt-nki-test-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) std::abort();
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string ReadText(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void WriteText(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream f(path, std::ios::trunc);
  f << text;
}

// Copies the fixture into `dir` (dir/NKIBench) and returns that path.
inline std::string CopyFixture(const std::string& dir) {
  const std::string to = dir + "/NKIBench";
  std::filesystem::copy(kFixture, to, std::filesystem::copy_options::recursive);
  return to;
}

}  // namespace accelopt::eval::nki::testing
