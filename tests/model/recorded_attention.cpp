// The attention a recording scalar takes (model/recorded_attention.hpp): the same numbers as the
// definition (attention_matrix's P times the values), with fewer recorded operations — n(n+1)/2
// exponentials when Q and K are the same, one quotient per output coordinate instead of one per
// pair. Checked on Var<double> against Model<double>'s dense reference for the softmax and USA,
// symmetric and not, with the causal mask and a general mask, and on the directions' models.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/integrate/taylor_scalar.hpp"
#include "attnflow/model/convert_model.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/model/model.hpp"

#include <cmath>
#include <map>
#include <string>
#include <vector>

using namespace attnflow;
using nlohmann::json;

namespace {

using RVar = taylor::Var<double>;

struct Recorded {
  State<double> values;            // the recorded field's values
  std::map<taylor::Op, long> ops;  // recorded operations by kind
};

/// The config's field at its start, recorded on Var<double>.
Recorded record(const json& config) {
  const SimConfig c = parse_sim_config(config);
  const Model<double> m = build_model<double>(c);
  const Model<RVar> mv = convert_model<RVar>(m, [](const double& v) { return RVar(v); });
  const Tokens<double> x0 = initial_tokens<double>(c);
  taylor::Tape<double> tape;
  tape.reset(0);
  const taylor::RecordingScope<double> scope(tape);
  State<RVar> x(static_cast<std::size_t>(x0.size())), dx;
  for (Eigen::Index i = 0; i < x0.rows(); ++i)
    for (Eigen::Index k = 0; k < x0.cols(); ++k) x[static_cast<std::size_t>(i * x0.cols() + k)] = RVar::input(x0(i, k));
  mv.rhs(x, dx, RVar(0.0));
  Recorded r;
  for (const RVar& v : dx) r.values.push_back(v.v);
  for (std::size_t id = 0; id < tape.size(); ++id) ++r.ops[tape.node(static_cast<int>(id)).op];
  return r;
}

/// The definition's field at the start: Model<double>'s dense reference (attention_matrix).
State<double> reference(const json& config) {
  const SimConfig c = parse_sim_config(config);
  const Model<double> m = build_model<double>(c);
  const Tokens<double> x0 = initial_tokens<double>(c);
  State<double> x(x0.data(), x0.data() + x0.size()), dx;  // Tokens are row-major, as the state
  m.reference_rhs(x, dx, 0.0);
  return dx;
}

double max_relative_difference(const State<double>& a, const State<double>& b) {
  BOOST_REQUIRE(a.size() == b.size());
  double scale = 0, diff = 0;
  for (std::size_t q = 0; q < a.size(); ++q) scale = std::max(scale, std::abs(b[q])), diff = std::max(diff, std::abs(a[q] - b[q]));
  return diff / scale;
}

json config(const std::string& model, const json& Q, const json& K) {
  return {{"model", model}, {"n", 5}, {"d", 3},  {"beta", 1.5},
          {"Q", Q},         {"K", K}, {"V", {{"random", "gaussian"}, {"seed", 3}}},
          {"init", {{"kind", "uniform-sphere"}, {"seed", 4}}}, {"time", {{"t_end", 1}, {"samples", 2}}}};
}

const json gaussian1 = {{"random", "gaussian"}, {"seed", 1}};
const json gaussian2 = {{"random", "gaussian"}, {"seed", 2}};

}  // namespace

BOOST_AUTO_TEST_SUITE(recorded_attention)

BOOST_AUTO_TEST_CASE(the_recorded_field_is_the_definitions) {
  std::vector<std::pair<std::string, json>> cases = {
      {"sa-sphere, Q = K", config("sa-sphere", gaussian1, gaussian1)},
      {"sa-sphere, Q != K", config("sa-sphere", gaussian1, gaussian2)},
      {"usa-sphere, Q = K", config("usa-sphere", gaussian1, gaussian1)},
      {"usa-sphere, Q != K", config("usa-sphere", gaussian1, gaussian2)},
      {"sa-sphere, causal, Q = K", config("sa-sphere", gaussian1, gaussian1)},
      {"sa-sphere, a general mask, Q = K", config("sa-sphere", gaussian1, gaussian1)},
      {"sa-pre-ln, Q = K", config("sa-pre-ln", gaussian1, gaussian1)},
  };
  cases[4].second["causal"] = true;
  cases[5].second["mask"] = {{1, 1, 0, 0, 0}, {1, 1, 1, 0, 0}, {0, 1, 1, 1, 0}, {0, 0, 1, 1, 1}, {1, 0, 0, 1, 1}};
  cases[6].second["init"] = {{"kind", "uniform-cube"}, {"seed", 4}};
  for (const auto& [name, j] : cases) {
    BOOST_TEST_CONTEXT(name) {
      const double diff = max_relative_difference(record(j).values, reference(j));
      BOOST_TEST(diff < 1e-14);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_changed_key_matrix_changes_the_field) {
  // The control: the comparison above tells a field with K in place of Q apart.
  json a = config("sa-sphere", gaussian1, gaussian1), b = config("sa-sphere", gaussian1, gaussian2);
  BOOST_TEST(max_relative_difference(record(a).values, reference(b)) > 1e-3);
}

BOOST_AUTO_TEST_CASE(identical_queries_and_keys_record_half_the_exponentials) {
  const int n = 5, d = 3;
  const Recorded same = record(config("sa-sphere", gaussian1, gaussian1));
  const Recorded other = record(config("sa-sphere", gaussian1, gaussian2));
  BOOST_TEST(same.ops.at(taylor::Op::Exp) == n * (n + 1) / 2);
  BOOST_TEST(other.ops.at(taylor::Op::Exp) == n * n);
  // One quotient per output coordinate, and one per token in the tangent projection.
  BOOST_TEST(same.ops.at(taylor::Op::Div) == n * d + n);
  BOOST_TEST(other.ops.at(taylor::Op::Div) == n * d + n);
  json causal = config("sa-sphere", gaussian1, gaussian1);
  causal["causal"] = true;
  BOOST_TEST(record(causal).ops.at(taylor::Op::Exp) == n * (n + 1) / 2);  // the pairs j <= i, per row
}

BOOST_AUTO_TEST_SUITE_END()
