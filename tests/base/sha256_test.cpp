#include <boost/test/unit_test.hpp>

#include "base/sha256.hpp"

BOOST_AUTO_TEST_CASE(sha256_known_vectors) {
  BOOST_TEST(accelopt::Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  BOOST_TEST(accelopt::Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
