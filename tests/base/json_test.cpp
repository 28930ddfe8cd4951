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

BOOST_AUTO_TEST_CASE(parse_refuses_deep_nesting_instead_of_overflowing_the_stack) {
  auto nest = [](int n, const char* open, const char* close) {
    std::string s;
    for (int i = 0; i < n; ++i) s += open;
    s += "1";
    for (int i = 0; i < n; ++i) s += close;
    return s;
  };
  auto ok = ParseJson(nest(kMaxJsonDepth, "[", "]"));
  BOOST_REQUIRE(ok.ok());
  json copy = *ok;  // copying recurses once per level
  BOOST_TEST(copy == *ok);
  auto deep = ParseJson(nest(kMaxJsonDepth + 1, "{\"a\":", "}"));
  BOOST_TEST(deep.status().code() == Code::kInvalidArgument);
  BOOST_TEST(deep.status().message().find("nested deeper") != std::string::npos);
  // Far deeper than any stack could copy: refused, no crash.
  BOOST_TEST(!ParseJson(nest(200000, "[", "]")).ok());
  BOOST_TEST(!ParseJson(nest(200000, "{\"a\":", "}"), true).ok());
  // Errors and comments still work as before.
  BOOST_TEST(!ParseJson("[1,2").ok());
  BOOST_TEST(ParseJson("[1, /* c */ 2] // end", true).ok());
}

BOOST_AUTO_TEST_CASE(integer_fits_refuses_what_would_wrap) {
  BOOST_TEST(IntegerFits<int>(json(2147483647)));
  BOOST_TEST(!IntegerFits<int>(json(2147483648LL)));
  BOOST_TEST(!IntegerFits<int>(json(4294967297ULL)));
  BOOST_TEST(IntegerFits<int>(json(-5)));
  BOOST_TEST(!IntegerFits<unsigned>(json(-1)));
  BOOST_TEST(IntegerFits<unsigned>(json(4294967295ULL)));
  BOOST_TEST(!IntegerFits<int>(json(1.5)));
  BOOST_TEST(!IntegerFits<int>(json("3")));
}
