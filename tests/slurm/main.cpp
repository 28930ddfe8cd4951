#define BOOST_TEST_MODULE slurm
#include <boost/test/unit_test.hpp>
