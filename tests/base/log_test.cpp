#include <boost/test/unit_test.hpp>

#include "base/log.hpp"

BOOST_AUTO_TEST_CASE(redacts_registered_secrets) {
  accelopt::RegisterSecret("sk-test-SECRET-123");
  std::string r = accelopt::Redact("auth failed for key sk-test-SECRET-123 (twice: sk-test-SECRET-123)");
  BOOST_TEST(r.find("SECRET") == std::string::npos);
  BOOST_TEST(r.find("[REDACTED]") != std::string::npos);
  accelopt::RegisterSecret("ab");  // too short to register
  BOOST_TEST(accelopt::Redact("abc") == "abc");
}
