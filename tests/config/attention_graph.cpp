// config/attention_graph.hpp: self-loops and a root of the attention graph (key → query edges),
// the hypothesis of the masked rank-collapse theorem, on masks whose answer is known.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/attention_graph.hpp"

#include <nlohmann/json.hpp>

using namespace attnflow;
using nlohmann::json;

namespace {

SimConfig with_mask(int n, const json& mask, bool causal = false) {
  json j = {{"model", "attention-map"}, {"n", n}, {"d", 2}, {"time", {{"layers", 1}}}, {"causal", causal}};
  if (!mask.is_null()) j["mask"] = mask;
  return parse_sim_config(j);
}

json rows(int n, bool (*allowed)(int, int)) {
  json m = json::array();
  for (int i = 0; i < n; ++i) {
    json r = json::array();
    for (int j = 0; j < n; ++j) r.push_back(allowed(i, j) ? 1 : 0);
    m.push_back(r);
  }
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(attention_graph)

BOOST_AUTO_TEST_CASE(connected_masks_have_a_root) {
  BOOST_TEST(attention_graph_root(with_mask(6, nullptr)).has_value());                 // every key
  BOOST_TEST(attention_graph_root(with_mask(6, nullptr, true)).value() == 0);          // causal: token 0 reaches all
  BOOST_TEST(attention_graph_root(with_mask(6, "causal")).value() == 0);
  BOOST_TEST(attention_graph_root(with_mask(7, {{"window", 1}})).has_value());        // a band
  // Every token attends to itself and to token 0 only: quasi-strongly but not strongly connected.
  BOOST_TEST(attention_graph_root(with_mask(5, rows(5, [](int i, int j) { return i == j || j == 0; }))).value() == 0);
  // A chain 4 → 3 → 2 → 1 → 0 (token i attends to i + 1): the root is the last token.
  BOOST_TEST(attention_graph_root(with_mask(5, rows(5, [](int i, int j) { return i == j || j == i + 1; }))).value() == 4);
  BOOST_TEST(!token_without_self_loop(with_mask(7, {{"window", 2}})).has_value());
}

BOOST_AUTO_TEST_CASE(disconnected_masks_have_none) {
  // Two blocks that never see each other.
  BOOST_TEST(!attention_graph_root(with_mask(8, rows(8, [](int i, int j) { return (i < 4) == (j < 4); }))).has_value());
  // Token 0 attends to everyone, the others to themselves only: information reaches 0 from each,
  // but nothing reaches them from elsewhere.
  BOOST_TEST(!attention_graph_root(with_mask(5, rows(5, [](int i, int j) { return i == j || i == 0; }))).has_value());
  // Causal and a mask that cuts token 3 off from 0..2.
  BOOST_TEST(!attention_graph_root(with_mask(5, rows(5, [](int i, int j) { return i == j || (j < 3 && i < 3) || (i == 4 && j == 3); }), true)).has_value());
}

BOOST_AUTO_TEST_CASE(a_token_that_does_not_see_itself_is_found) {
  const SimConfig c = with_mask(4, rows(4, [](int i, int j) { return i == 2 ? j == 0 : true; }));
  BOOST_TEST(token_without_self_loop(c).value() == 2);
  BOOST_TEST(attends(c, 2, 0));
  BOOST_TEST(!attends(c, 2, 2));
}

BOOST_AUTO_TEST_SUITE_END()
