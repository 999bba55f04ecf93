#include "attnflow/config/model_kind.hpp"

#include "attnflow/errors.hpp"

namespace attnflow {

const std::vector<ModelInfo>& model_catalogue() {
  static const std::vector<ModelInfo> models = {
      {ModelKind::SaEuclid, "sa-euclid", "dx_i/dt = sum_j P_ij V x_j", false, false, Normalization::Softmax, false},
      {ModelKind::SaRescaled, "sa-rescaled", "dz_i/dt = sum_j P_ij(e^{tV} z) V (z_j - z_i)", false, false,
       Normalization::Softmax, false},
      {ModelKind::SaSphere, "sa-sphere", "dx_i/dt = Pi_{x_i}(sum_j P_ij V x_j)", false, true, Normalization::Softmax,
       false},
      {ModelKind::UsaSphere, "usa-sphere", "dx_i/dt = Pi_{x_i}((1/n) sum_j e^{beta<Qx_i,Kx_j>} V x_j)", false, true,
       Normalization::Uniform, false},
      {ModelKind::Multihead, "multihead", "dx_i/dt = Pi_{x_i}(sum_h sum_j P^h_ij V_h x_j)", false, true,
       Normalization::Softmax, false},
      {ModelKind::Ffn, "ffn", "dz_i/dt = W sigma(V sum_j P_ij (z_j - z_i))", false, false, Normalization::Softmax,
       false},
      {ModelKind::Causal, "causal", "dx_i/dt = Pi_{x_i}(sum_{j<=i} P_ij V x_j)", false, true, Normalization::Softmax,
       true},
      {ModelKind::LayerNormalized, "layer-normalized", "x_i^{k+1} = y_i/|y_i|, y_i = x_i + sum_j P_ij(Q_k,K_k) V_k x_j",
       true, true, Normalization::Softmax, false},
      {ModelKind::EulerRenormalize, "euler-renormalize", "x_i^{k+1} = normalize(x_i + eta sum_j P_ij V x_j)", true,
       true, Normalization::Softmax, false},
      // Pre-LN (Karagodin, Ge, Polyanskiy, Rigollet, arXiv:2510.22026): tokens free in R^d, the
      // attention sees their directions theta_i = x_i/|x_i| only.
      {ModelKind::SaPreLn, "sa-pre-ln", "dx_i/dt = sum_j P_ij(theta) V theta_j, theta_j = x_j/|x_j|", false, false,
       Normalization::Softmax, false},
      {ModelKind::UsaPreLn, "usa-pre-ln", "dx_i/dt = (1/n) sum_j e^{beta<Q theta_i, K theta_j>} V theta_j", false,
       false, Normalization::Uniform, false},
      // Peri-LN (the same paper): the attention's input and its output are normalised, so each
      // token moves at unit speed along its attention output a_i.
      {ModelKind::SaPeriLn, "sa-peri-ln", "dx_i/dt = a_i/|a_i|, a_i = sum_j P_ij(theta) V theta_j", false, false,
       Normalization::Softmax, false},
      {ModelKind::UsaPeriLn, "usa-peri-ln", "dx_i/dt = a_i/|a_i|, a_i = (1/n) sum_j e^{beta<Q theta_i, K theta_j>} V theta_j",
       false, false, Normalization::Uniform, false},
      // One attention layer without the residual (Chen, Lin, Polyanskiy, Rigollet, arXiv:2510.05554;
      // iterated: Wu, Ajorlou, Wang, Jegelka, Jadbabaie, arXiv:2405.18781). The tokens live in R^d;
      // with normalize_output every output is divided by its length.
      {ModelKind::AttentionMap, "attention-map", "x_i^{k+1} = sum_j P_ij(Q_k,K_k) V_k x_j (no residual)", true, false,
       Normalization::Softmax, false},
  };
  return models;
}

const ModelInfo& model_info(ModelKind kind) {
  for (const auto& m : model_catalogue())
    if (m.kind == kind) return m;
  throw std::logic_error("model_info: unknown kind");
}

const ModelInfo& model_info(const std::string& id) {
  for (const auto& m : model_catalogue())
    if (id == m.id) return m;
  std::string known;
  for (const auto& m : model_catalogue()) known += (known.empty() ? "" : ", ") + std::string(m.id);
  input_error("model", "unknown model \"" + id + "\" (known: " + known + ")");
}

}  // namespace attnflow
