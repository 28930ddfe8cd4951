// systemd/acceloptd.service as shipped: `systemd-analyze security
// --offline=true` rates its exposure at most 3.0 ("OK"; it was 6.4 MEDIUM),
// and `systemd-analyze verify` accepts it (with ExecStart pointing at the
// built acceloptd, which verify requires to exist). The sandbox the unit
// must leave room for (a user namespace with private net and IPC for the
// judge, as the unprivileged user) is tested in tests/base/subprocess_test.cpp.
#define BOOST_TEST_MODULE systemd_unit
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "base/subprocess.hpp"

using namespace accelopt;
namespace fs = std::filesystem;

namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The unit with ExecStart on the built binary, in a fresh folder.
std::string UnitCopy() {
  const fs::path dir = fs::path(ACCELOPT_BINARY_DIR) / "systemd-unit-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string unit = Read(std::string(ACCELOPT_SOURCE_DIR) + "/systemd/acceloptd.service");
  unit =
      std::regex_replace(unit, std::regex("ExecStart=/usr/bin/acceloptd"), std::string("ExecStart=") + ACCELOPTD_PATH);
  std::ofstream(dir / "acceloptd.service") << unit;
  return (dir / "acceloptd.service").string();
}

ProcessResult Analyze(const std::vector<std::string>& args) {
  ProcessSpec spec;
  spec.argv = {"systemd-analyze"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = std::chrono::seconds(60);
  auto r = RunProcess(spec);
  BOOST_REQUIRE_MESSAGE(r.ok(), "systemd-analyze: " << r.status().ToString());
  return *r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(exposure_is_at_most_3_and_the_unit_verifies) {
  const std::string unit = UnitCopy();
  ProcessResult sec = Analyze({"security", "--offline=true", "--no-pager", unit});
  const std::string out = sec.stdout_data + sec.stderr_data;
  std::smatch m;
  BOOST_REQUIRE_MESSAGE(std::regex_search(out, m, std::regex("Overall exposure level for [^:]+: ([0-9.]+) ([A-Z]+)")),
                        out);
  const double exposure = std::stod(m[1].str());
  BOOST_TEST_MESSAGE("exposure " << exposure << " " << m[2].str());
  BOOST_TEST(exposure <= 3.0, out);
  BOOST_TEST(m[2].str() == "OK");
  ProcessResult verify = Analyze({"verify", unit});
  BOOST_TEST(verify.exit_code == 0, verify.stdout_data + verify.stderr_data);
  // What the judge needs stays allowed.
  const std::string text = Read(unit);
  BOOST_TEST(text.find("RestrictNamespaces=user net ipc") != std::string::npos);
  BOOST_TEST(text.find("landlock_restrict_self") != std::string::npos);
  BOOST_TEST(text.find(" seccomp ") != std::string::npos);
}
