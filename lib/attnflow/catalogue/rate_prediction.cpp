#include "attnflow/catalogue/rate_prediction.hpp"

#include "attnflow/config/json_fields.hpp"
#include "attnflow/model/model.hpp"

#include <cmath>
#include <limits>

namespace attnflow {

namespace {

bool all_identity(const WeightSpec& w) {
  for (const MatrixSpec& m : w.values)
    if (m.kind != MatrixSpec::Kind::Identity) return false;
  return true;
}

}  // namespace

const std::vector<std::string>& rate_prediction_names() {
  static const std::vector<std::string> names = {"survey", "linearised", "2exp(beta)"};
  return names;
}

double predicted_rate(const std::string& name, const SimConfig& c, const Tokens<double>& final_tokens) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), beta = decimal_as_double(c.beta);
  if (name == "2exp(beta)") return 2 * std::exp(beta);
  const bool usa = c.model->kind == ModelKind::UsaSphere;
  if ((c.model->kind != ModelKind::SaSphere && !usa) || c.heads.size() != 1 || !all_identity(c.heads[0].V)) return nan;
  if (name == "survey") return all_identity(c.heads[0].Q) && all_identity(c.heads[0].K) ? (usa ? 2 * std::exp(beta) : 2.0) : nan;
  if (!usa) return 2;  // near consensus the softmax weights are 1/n to first order, whatever Q, K
  const Model<double> m = build_model<double>(c);
  if (!m.heads[0].Q.constant() || !m.heads[0].K.constant()) return nan;
  const Vector<double> x = final_tokens.colwise().sum().transpose().normalized();
  return 2 * std::exp(beta * (m.heads[0].Q.constant_value() * x).dot(m.heads[0].K.constant_value() * x));
}

}  // namespace attnflow
