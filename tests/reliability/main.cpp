#define BOOST_TEST_MODULE reliability
#include <boost/test/unit_test.hpp>
