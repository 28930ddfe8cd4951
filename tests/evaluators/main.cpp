#define BOOST_TEST_MODULE evaluators
#include <boost/test/unit_test.hpp>
