#include <boost/test/unit_test.hpp>

#include "base/text.hpp"

BOOST_AUTO_TEST_CASE(trim_drops_white_space_at_both_ends_only) {
  BOOST_TEST(accelopt::Trim("  a b\t\r\n") == "a b");
  BOOST_TEST(accelopt::Trim("\v\fkey\n") == "key");
  BOOST_TEST(accelopt::Trim(" \t\r\n") == "");
  BOOST_TEST(accelopt::Trim("") == "");
  BOOST_TEST(accelopt::Trim("x") == "x");
  std::string text = "  view  ";
  std::string_view v = accelopt::TrimView(text);
  BOOST_TEST(v == "view");
  BOOST_TEST(v.data() == text.data() + 2);  // a view into the argument, not a copy
}

BOOST_AUTO_TEST_CASE(lower_changes_ascii_letters_only) {
  BOOST_TEST(accelopt::Lower("Content-Type: ABC") == "content-type: abc");
  BOOST_TEST(accelopt::Lower("\xC3\x89t\xC3\xA9") == "\xC3\x89t\xC3\xA9");  // UTF-8 bytes stay
}

BOOST_AUTO_TEST_CASE(format_significant_keeps_the_digits_asked_for) {
  BOOST_TEST(accelopt::FormatSignificant(2e-5) == "2e-05");
  BOOST_TEST(accelopt::FormatSignificant(23.75e12 / 1e12) == "23.75");
  BOOST_TEST(accelopt::FormatSignificant(3.14159265, 3) == "3.14");
  BOOST_TEST(accelopt::FormatSignificant(42) == "42");
}
