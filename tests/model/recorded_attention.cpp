// The attention a recording scalar takes (model/recorded_attention.hpp): the same numbers as the
// definition (attention_matrix's P times the values), with fewer recorded operations — n(n+1)/2
// exponentials when Q and K are the same, one quotient per output coordinate instead of one per
// pair. Checked on Var<double> against Model<double>'s dense reference for the softmax and USA,
// symmetric and not, with the causal mask and a general mask, and on the directions' models.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/integrate/taylor_scalar.hpp"
#include "attnflow/model/convert_model.hpp"
#include "attnflow/model/model.hpp"
#include "model_support.hpp"

#include <map>
#include <string>
#include <vector>

using namespace attnflow;
using nlohmann::json;

namespace {

using attnflow::testing::model_config;
using attnflow::testing::relative_distance;
using attnflow::testing::some_state;
using RVar = taylor::Var<double>;

constexpr int n = 5, d = 3;

struct Recorded {
  State<double> values;            // the recorded field's values
  std::map<taylor::Op, long> ops;  // recorded operations by kind
};

/// The config's field at some_state, recorded on Var<double>.
Recorded record(const json& config) {
  const Model<double> m = build_model<double>(parse_sim_config(config));
  const Model<RVar> mv = convert_model<RVar>(m, [](const double& v) { return RVar(v); });
  taylor::Tape<double> tape;
  tape.reset(0);
  const taylor::RecordingScope<double> scope(tape);
  State<RVar> x, dx;
  for (const double v : some_state<double>(n, d)) x.push_back(RVar::input(v));
  mv.rhs(x, dx, RVar(0.0));
  Recorded r;
  for (const RVar& v : dx) r.values.push_back(v.v);
  for (std::size_t id = 0; id < tape.size(); ++id) ++r.ops[tape.node(static_cast<int>(id)).op];
  return r;
}

/// The definition's field at some_state: Model<double>'s dense reference (attention_matrix).
State<double> reference(const json& config) {
  State<double> dx;
  build_model<double>(parse_sim_config(config)).reference_rhs(some_state<double>(n, d), dx, 0.0);
  return dx;
}

/// model_config's random weights, with K = Q when `key_is_query`.
json config(const std::string& model, bool key_is_query) {
  json j = model_config(model, n, d);
  if (key_is_query) j["K"] = j["Q"];
  return j;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(recorded_attention)

BOOST_AUTO_TEST_CASE(the_recorded_field_is_the_definitions) {
  std::vector<std::pair<std::string, json>> cases = {
      {"sa-sphere, Q = K", config("sa-sphere", true)},   {"sa-sphere, Q != K", config("sa-sphere", false)},
      {"usa-sphere, Q = K", config("usa-sphere", true)}, {"usa-sphere, Q != K", config("usa-sphere", false)},
      {"sa-sphere, causal, Q = K", config("sa-sphere", true)},
      {"sa-sphere, a general mask, Q = K", config("sa-sphere", true)},
      {"sa-pre-ln, Q = K", config("sa-pre-ln", true)},
  };
  cases[4].second["causal"] = true;
  cases[5].second["mask"] = {{1, 1, 0, 0, 0}, {1, 1, 1, 0, 0}, {0, 1, 1, 1, 0}, {0, 0, 1, 1, 1}, {1, 0, 0, 1, 1}};
  for (const auto& [name, j] : cases) {
    BOOST_TEST_CONTEXT(name) { BOOST_TEST(relative_distance(record(j).values, reference(j)) < 1e-14); }
  }
}

BOOST_AUTO_TEST_CASE(a_changed_key_matrix_changes_the_field) {
  // The control: the comparison above tells a field with K in place of Q apart.
  BOOST_TEST(relative_distance(record(config("sa-sphere", true)).values, reference(config("sa-sphere", false))) > 1e-3);
}

BOOST_AUTO_TEST_CASE(identical_queries_and_keys_record_half_the_exponentials) {
  const Recorded same = record(config("sa-sphere", true));
  const Recorded other = record(config("sa-sphere", false));
  BOOST_TEST(same.ops.at(taylor::Op::Exp) == n * (n + 1) / 2);
  BOOST_TEST(other.ops.at(taylor::Op::Exp) == n * n);
  // One quotient per output coordinate, and one per token in the tangent projection.
  BOOST_TEST(same.ops.at(taylor::Op::Div) == n * d + n);
  BOOST_TEST(other.ops.at(taylor::Op::Div) == n * d + n);
  json causal = config("sa-sphere", true);
  causal["causal"] = true;
  BOOST_TEST(record(causal).ops.at(taylor::Op::Exp) == n * (n + 1) / 2);  // the pairs j <= i, per row
}

BOOST_AUTO_TEST_SUITE_END()
