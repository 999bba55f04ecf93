// diagnostics/exact_rational.hpp: decimals read as exact rationals (the hypotheses that compare a
// config's decimal with a threshold decide it exactly).
#include <boost/test/unit_test.hpp>

#include "attnflow/diagnostics/exact_rational.hpp"
#include "attnflow/errors.hpp"

using namespace attnflow;

BOOST_AUTO_TEST_SUITE(diagnostics_exact_rational)

BOOST_AUTO_TEST_CASE(decimals_are_read_exactly) {
  BOOST_TEST((rational_from_decimal("-0.16") == Rational(-4, 25)));
  BOOST_TEST((rational_from_decimal("2.5e-3") == Rational(1, 400)));
  BOOST_TEST((rational_from_decimal("+1.0E2") == Rational(100)));
  BOOST_TEST((rational_from_decimal("7") == Rational(7)));
  BOOST_TEST((rational_from_decimal(".5") == Rational(1, 2)));
  // The decimal closest to -0.16 that double rounds onto it is still told apart from it.
  BOOST_TEST((rational_from_decimal("-0.1600000000000000000001") < Rational(-4, 25)));
  BOOST_TEST((rational_from_decimal("-0.1599999999999999999999") > Rational(-4, 25)));
  BOOST_TEST((rational_from_decimal("1e-999999") > 0));
  for (const char* bad : {"", "-", "1..2", "e5", "1e", "1e+", "0x10", "1.5e3.2", "1e5-", "1e1000000", "1e-0000001"})
    BOOST_CHECK_THROW(rational_from_decimal(bad), InputError);
}

BOOST_AUTO_TEST_SUITE_END()
