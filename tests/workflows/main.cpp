#define BOOST_TEST_MODULE workflows
#include <boost/test/unit_test.hpp>
