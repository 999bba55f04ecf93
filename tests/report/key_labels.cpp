#include <boost/test/unit_test.hpp>

#include "attnflow/catalogue/observable_registry.hpp"
#include "attnflow/report/key_labels.hpp"

#include <stdexcept>

using namespace attnflow;

BOOST_AUTO_TEST_SUITE(key_labels)

BOOST_AUTO_TEST_CASE(every_observable_of_the_registry_has_its_words_and_a_symbol_entry) {
  BOOST_TEST(observable_registry().size() > 20u);
  for (const ObservableDef& o : observable_registry()) {
    const std::optional<KeyLabel> l = find_key_label(o.name);
    BOOST_TEST_REQUIRE(l.has_value(), o.name);
    BOOST_TEST(l->label == o.label);
    BOOST_TEST(l->symbol == observable_symbol(o.name));
  }
  BOOST_TEST(find_key_label("diameter")->symbol == "\\max_{i,j}\\lVert x_i - x_j\\rVert");
  BOOST_CHECK_THROW(observable_symbol("no-such-observable"), std::logic_error);
}

BOOST_AUTO_TEST_CASE(keys_from_the_table_and_numbered_stems) {
  BOOST_TEST(find_key_label("beta")->label == "inverse temperature");
  BOOST_TEST(find_key_label("beta")->symbol == "\\beta");
  BOOST_TEST(find_key_label("note")->symbol.empty());
  const std::optional<KeyLabel> stem = find_key_label("b_eps_0.12");
  BOOST_TEST_REQUIRE(stem.has_value());
  BOOST_TEST(stem->label == "half-gap for start offset 0.12");
  BOOST_TEST(!find_key_label("no_such_key").has_value());
  BOOST_TEST(!find_key_label("no_such_key_3").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
