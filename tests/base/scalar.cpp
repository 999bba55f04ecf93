#include <boost/test/unit_test.hpp>

#include "attnflow/errors.hpp"
#include "attnflow/config/precision_json.hpp"
#include "attnflow/scalar.hpp"

using namespace attnflow;

BOOST_AUTO_TEST_SUITE(scalar)

BOOST_AUTO_TEST_CASE(decimal_round_trip_every_type) {
  const std::string s = "0.1000000000000000000000000000000000000000000000000001";
  {
    MpfrDigitsScope scope(80);
    const mpfr x = from_decimal<mpfr>(s);
    BOOST_TEST(from_decimal<mpfr>(to_decimal(x)) == x);
    BOOST_TEST(x != mpfr(0.1));  // the string was not routed through double
  }
  const float128 q = from_decimal<float128>(s);
  BOOST_TEST((from_decimal<float128>(to_decimal(q)) == q));
  const long double l = from_decimal<long double>(s);
  BOOST_TEST(from_decimal<long double>(to_decimal(l)) == l);
  const double d = from_decimal<double>(s);
  BOOST_TEST(from_decimal<double>(to_decimal(d)) == d);
}

BOOST_AUTO_TEST_CASE(mpfr_epsilon_follows_digits) {
  MpfrDigitsScope scope(50);
  const double eps = to_double(epsilon<mpfr>());
  BOOST_TEST(eps < 1e-49);
  BOOST_TEST(eps > 1e-52);
  BOOST_TEST(decimal_digits<mpfr>() == 50);
}

BOOST_AUTO_TEST_CASE(pinned_digits_refuse_a_scope_for_other_digits) {
  const unsigned before = mpfr::default_precision();
  {
    const MpfrPin pin(40);
    BOOST_TEST(mpfr::default_precision() == 40u);
    { const MpfrDigitsScope same(40); }  // the digits in effect: allowed, nothing written
    BOOST_CHECK_THROW(MpfrDigitsScope(60), std::logic_error);
    BOOST_TEST(mpfr::default_precision() == 40u);  // the refused scope changed nothing
    { const MpfrPin nested(40); }
    BOOST_CHECK_THROW(MpfrPin(60), std::logic_error);
    BOOST_TEST(mpfr::default_precision() == 40u);
  }
  BOOST_TEST(mpfr::default_precision() == before);
  const MpfrDigitsScope unpinned(60);
  BOOST_TEST(mpfr::default_precision() == 60u);
}

BOOST_AUTO_TEST_CASE(precision_parsing) {
  BOOST_TEST(parse_precision(nlohmann::json("double")).name() == "double");
  BOOST_TEST(parse_precision(nlohmann::json{{"digits", 80}}).digits == 80);
  BOOST_CHECK_THROW(parse_precision(nlohmann::json{{"digits", 3}}), InputError);
  BOOST_CHECK_THROW(parse_precision(nlohmann::json("quad")), InputError);
}

BOOST_AUTO_TEST_SUITE_END()
