#pragma once
// The blog's Figure 2 classifier and its variants, trained with LibTorch in double precision.
// The weights come back as plain matrices, so the rest of attnflow (a layer-normalized config,
// simulate, diagnose, prove) reads the same network the training produced.
//
//   x_i^0 = E[w_i] / |E[w_i]|                        (embedding, onto the sphere)
//   y_i = x_i + Σ_j softmax_j(⟨Q_k x_i, K_k x_j⟩) V_k x_j,  x_i ← y_i / |y_i|,  V_k = s·α_k I
//   logit = ⟨mean_i x_i^L, r⟩ + b
// The read-out is the mean of the final tokens against a learned r: it reads clusters directly
// (two antipodal clusters ±x* give (p − q)/n · x*, one cluster gives x*) and does not depend on
// the order of the words.
#include "attnflow/tokens.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attnflow::learn {

enum class Variant { Plus, Minus, MinusPerLayer, NeuralNetwork, AttentionFfn };

struct VariantInfo {
  Variant variant;
  const char* id;
  const char* description;
  int sign;              // of V = s·α I (0: no V)
  bool per_layer_alpha;  // α_k per layer, else one α
  bool attention;        // has the attention layers (an attnflow layer map when also !ffn)
  bool ffn;              // a feed-forward block after each attention layer
  /// Attention layers alone: the network is attnflow's layer-normalized map (exported, measured).
  bool layer_map() const { return attention && !ffn; }
};
const std::vector<VariantInfo>& variant_catalogue();
const VariantInfo& variant_info(const std::string& id);  // InputError naming the known ids

struct Architecture {
  int d = 16;       // embedding dimension
  int layers = 4;   // attention layers L
  int hidden = 32;  // width of the FFN blocks and of the NN's hidden layer
};

struct TrainingSettings {
  int epochs = 15;
  int batch = 32;
  double learning_rate = 0.01;  // Adam
};

struct TrainedWeights {
  VariantInfo info{};
  int d = 0, layers = 0;
  Matrix<double> embedding;            // vocabulary × d, row = a word's vector
  std::vector<Matrix<double>> Q, K;    // per layer, d × d
  std::vector<double> alpha;           // per layer (all equal when shared), in (0, 1)
  std::vector<Matrix<double>> W1, W2;  // FFN per layer (hidden × d, d × hidden); NN: W1[0] only
  std::vector<Vector<double>> b1, b2;
  Vector<double> readout;  // d (NN: hidden)
  double bias = 0;
  /// V_k = s·α_k I as a matrix.
  Matrix<double> V(int k) const;
};

using Batch = std::vector<std::vector<int>>;  // sentences as token ids

/// Trains one variant on the given sentences; deterministic for a seed (initial weights and batch
/// order are drawn from attnflow's own generator; LibTorch runs single-threaded in double).
TrainedWeights train_classifier(const VariantInfo& variant, const Architecture& arch, const TrainingSettings& settings,
                                const Batch& sentences, const std::vector<int>& labels, int vocabulary_size,
                                std::uint64_t seed);

/// The network's logits (LibTorch forward); > 0 reads positive.
std::vector<double> classifier_logits(const TrainedWeights& w, const Batch& sentences);

/// One sentence's tokens after `layers_to_run` attention layers (the weights' L layers repeated
/// periodically), by LibTorch: the twin of attnflow's layer-normalized map on the exported config.
Tokens<double> torch_tokens_after(const TrainedWeights& w, const std::vector<int>& sentence, int layers_to_run);

/// Runs LibTorch single-threaded in the calling thread (the functions above call it themselves;
/// results then do not depend on the number of threads attnflow runs trainings on).
void use_single_threaded_torch();

/// The BLAS LibTorch calls (provenance). OpenBLAS built without locking (Debian's serial variant)
/// gives wrong bits when two threads call it at once, so with OpenBLAS trainings run one at a time.
std::string blas_library();
bool blas_allows_parallel_training();

}  // namespace attnflow::learn
