#define BOOST_TEST_MODULE evaluators_nki
#include <boost/test/unit_test.hpp>
