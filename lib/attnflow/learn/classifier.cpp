#include "attnflow/learn/classifier.hpp"

#include "attnflow/errors.hpp"

namespace attnflow::learn {

const std::vector<VariantInfo>& variant_catalogue() {
  static const std::vector<VariantInfo> v = {
      {Variant::Plus, "plus", "self-attention, V = +alpha I (one alpha)", +1, false, true, false},
      {Variant::Minus, "minus", "self-attention, V = -alpha I (one alpha)", -1, false, true, false},
      {Variant::MinusPerLayer, "minus-per-layer", "self-attention, V_k = -alpha_k I", -1, true, true, false},
      {Variant::NeuralNetwork, "nn", "mean embedding, then a one-hidden-layer ReLU network (no attention)", 0, false,
       false, false},
      {Variant::AttentionFfn, "sa-ffn", "self-attention V_k = -alpha_k I, each layer followed by a ReLU FFN block", -1,
       true, true, true},
  };
  return v;
}

const VariantInfo& variant_info(const std::string& id) {
  std::string known;
  for (const auto& v : variant_catalogue()) {
    if (id == v.id) return v;
    known += (known.empty() ? "" : ", ") + std::string(v.id);
  }
  input_error("--variants", "unknown variant '" + id + "'; known: " + known + " (and lexicon)");
}

Matrix<double> TrainedWeights::V(int k) const {
  return Matrix<double>::Identity(d, d) * (info.sign * alpha.at(static_cast<std::size_t>(k)));
}

}  // namespace attnflow::learn
