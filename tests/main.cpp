// Boost.Test entry point (the framework is linked as a shared library).
#define BOOST_TEST_MODULE attnflow
#include <boost/test/unit_test.hpp>
