#pragma once
// The model families of THEORY.md §1, by id.
#include "attnflow/config/normalization.hpp"

#include <string>
#include <vector>

namespace attnflow {

enum class ModelKind {
  SaEuclid,
  SaRescaled,
  SaSphere,
  UsaSphere,
  Multihead,
  Ffn,
  Causal,
  LayerNormalized,
  EulerRenormalize,
  SaPreLn,
  UsaPreLn,
  SaPeriLn,
  UsaPeriLn,
  AttentionMap
};

struct ModelInfo {
  ModelKind kind;
  const char* id;
  const char* equation;  // one line, for `attnflow list` and reports
  bool discrete;         // a layer map rather than a vector field
  bool on_sphere;        // tokens live on S^{d-1}
  Normalization normalization;
  bool causal;
};

/// Pre-LN and Peri-LN: the tokens move in R^d, the attention reads their directions x_i/|x_i|.
inline bool attends_to_directions(ModelKind kind) {
  return kind == ModelKind::SaPreLn || kind == ModelKind::UsaPreLn || kind == ModelKind::SaPeriLn ||
         kind == ModelKind::UsaPeriLn;
}
/// Peri-LN: the attention's output is normalised too, so every token moves at unit speed.
inline bool normalizes_velocity(ModelKind kind) { return kind == ModelKind::SaPeriLn || kind == ModelKind::UsaPeriLn; }

const std::vector<ModelInfo>& model_catalogue();
const ModelInfo& model_info(ModelKind kind);
/// Throws InputError("model: unknown model ...") for an unknown id.
const ModelInfo& model_info(const std::string& id);

}  // namespace attnflow
