#include <boost/test/unit_test.hpp>

#include "base/status.hpp"

using namespace accelopt;

namespace {
Result<int> Half(int x) {
  if (x % 2) return InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}
Result<int> Quarter(int x) {
  ACCELOPT_ASSIGN_OR_RETURN(int h, Half(x));
  return Half(h);
}
}  // namespace

BOOST_AUTO_TEST_CASE(result_carries_value_or_error) {
  BOOST_TEST(Quarter(8).value() == 2);
  auto r = Quarter(6);
  BOOST_TEST(!r.ok());
  BOOST_TEST(r.status().code() == Code::kInvalidArgument);
  BOOST_TEST(r.status().ToString() == "invalid_argument: odd: 3");
}

BOOST_AUTO_TEST_CASE(status_context) {
  Status s = Conflict("at 4, expected 3").WithContext("stream x");
  BOOST_TEST(s.message() == "stream x: at 4, expected 3");
  BOOST_TEST(Status::Ok().WithContext("x").ok());
}
