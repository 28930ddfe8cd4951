#define BOOST_TEST_MODULE llm
#include <boost/test/unit_test.hpp>
