#include <boost/test/unit_test.hpp>

#include "base/json.hpp"

using namespace accelopt;

BOOST_AUTO_TEST_CASE(dump_replaces_invalid_utf8) {
  json j = std::string("ok \xff\xfe end");
  std::string s = Dump(j);
  BOOST_TEST(s.find("ok ") != std::string::npos);
  BOOST_TEST(s.find("end") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(parse_comments_only_when_allowed) {
  const char* text = "{ // a comment\n \"a\": 1 /* more */ }";
  BOOST_TEST(!ParseJson(text).ok());
  auto r = ParseJson(text, true);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST((*r)["a"].get<int>() == 1);
  BOOST_TEST(ParseJson("{\"a\":").status().code() == Code::kInvalidArgument);
}
