// The exact wire form (io/wire.hpp): every built-in kind reads back bit for bit (doubles of every
// class, strings with NULs, JSON through CBOR), a struct through its field list, and bytes that
// are not one whole value are refused.
#include <boost/test/unit_test.hpp>

#include "attnflow/io/wire.hpp"

#include <cmath>
#include <cstring>
#include <limits>

using namespace attnflow;

namespace wire_form_test {

struct Sample {
  int id = 0;
  double value = 0;
  std::optional<std::string> label;
  std::variant<double, std::string> either;
  std::vector<double> series;
};
template <class A> void wire_fields(A& a, Sample& s) { a(s.id, s.value, s.label, s.either, s.series); }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace wire_form_test

using namespace wire_form_test;

BOOST_AUTO_TEST_SUITE(wire_form)

BOOST_AUTO_TEST_CASE(doubles_read_back_bit_for_bit) {
  const std::vector<double> xs = {0.0, -0.0, 0.1, 1.0 / 3.0, std::numeric_limits<double>::denorm_min(),
                                  std::numeric_limits<double>::max(), -std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::quiet_NaN(), std::nextafter(1.0, 2.0)};
  const std::vector<double> back = wire::decode<std::vector<double>>(wire::encode(xs));
  BOOST_TEST_REQUIRE(back.size() == xs.size());
  for (std::size_t k = 0; k < xs.size(); ++k) BOOST_TEST(same_bits(back[k], xs[k]), "element " << k);
  // A change in the last bit is a different form: the round trip is not merely close.
  BOOST_TEST(wire::encode(1.0) != wire::encode(std::nextafter(1.0, 2.0)));
}

BOOST_AUTO_TEST_CASE(json_keeps_its_doubles_exactly) {
  nlohmann::json j = {{"third", 1.0 / 3.0}, {"tiny", 5e-324}, {"big", 1.7976931348623157e308},
                      {"int", 3},          {"neg", -0.0},    {"list", {0.1, 0.2, "text"}}};
  const nlohmann::json back = wire::decode<nlohmann::json>(wire::encode(j));
  BOOST_TEST(back == j);
  BOOST_TEST(same_bits(back["third"].get<double>(), 1.0 / 3.0));
  BOOST_TEST(same_bits(back["neg"].get<double>(), -0.0));
  BOOST_TEST(back["int"].is_number_integer());
}

BOOST_AUTO_TEST_CASE(a_struct_reads_back_through_its_fields) {
  Sample s;
  s.id = -7;
  s.value = std::sqrt(2.0);
  s.label = std::string("with\0nul", 8);
  s.either = std::string("second alternative");
  s.series = {1e-300, 2.5};
  const Sample back = wire::decode<Sample>(wire::encode(s));
  BOOST_TEST(back.id == -7);
  BOOST_TEST(same_bits(back.value, s.value));
  BOOST_TEST_REQUIRE(back.label.has_value());
  BOOST_TEST(*back.label == *s.label);
  BOOST_TEST_REQUIRE(back.either.index() == 1u);
  BOOST_TEST(std::get<std::string>(back.either) == "second alternative");
  BOOST_TEST(back.series == s.series);
  Sample empty;
  const Sample none = wire::decode<Sample>(wire::encode(empty));
  BOOST_TEST(!none.label.has_value());
  BOOST_TEST(none.either.index() == 0u);
}

BOOST_AUTO_TEST_CASE(eigen_columns_and_nested_vectors) {
  Eigen::VectorXd v(3);
  v << 1.5, -0.0, 1e-17;
  const Eigen::VectorXd back = wire::decode<Eigen::VectorXd>(wire::encode(v));
  BOOST_TEST_REQUIRE(back.size() == 3);
  for (int k = 0; k < 3; ++k) BOOST_TEST(same_bits(back[k], v[k]));
  const std::vector<std::vector<double>> paths = {{1, 2}, {}, {3}};
  BOOST_TEST((wire::decode<std::vector<std::vector<double>>>(wire::encode(paths)) == paths));
}

BOOST_AUTO_TEST_CASE(bytes_that_are_not_one_value_are_refused) {
  Sample s;
  s.series = {1, 2, 3};
  const std::string bytes = wire::encode(s);
  for (std::size_t cut : {std::size_t(0), std::size_t(3), bytes.size() - 1})
    BOOST_CHECK_THROW(wire::decode<Sample>(bytes.substr(0, cut)), std::runtime_error);
  BOOST_CHECK_THROW(wire::decode<Sample>(bytes + "x"), std::runtime_error);
  // A length beyond the bytes is refused before anything is allocated for it.
  std::string huge(sizeof(std::size_t), '\xff');
  BOOST_CHECK_THROW(wire::decode<std::string>(huge), std::runtime_error);
  // A variant index beyond its alternatives, a bool that is neither 0 nor 1.
  std::string bad_variant = wire::encode(std::uint32_t(5)) + wire::encode(1.0);
  BOOST_CHECK_THROW((wire::decode<std::variant<double, std::string>>(bad_variant)), std::runtime_error);
  BOOST_CHECK_THROW(wire::decode<bool>(std::string(1, '\x02')), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(what_has_a_wire_form) {
  BOOST_TEST(wire::has_wire<Sample>());
  BOOST_TEST(wire::has_wire<std::vector<std::vector<double>>>());
  BOOST_TEST(wire::has_wire<nlohmann::json>());
  BOOST_TEST(!wire::has_wire<std::vector<bool>>());
  struct NoFields {};
  BOOST_TEST(!wire::has_wire<NoFields>());
}

BOOST_AUTO_TEST_SUITE_END()
