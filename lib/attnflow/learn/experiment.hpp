#pragma once
// attnflow learn: the blog's §3.2 experiment on real text. Every variant is trained
// and tested by stratified k-fold cross-validation on each data set; accuracies carry 95 %
// intervals, V = −αI is compared with V = +αI fold by fold, and the trained attention-only
// networks are exported as layer-normalized configs whose dynamics attnflow then measures.
#include "attnflow/learn/classifier.hpp"
#include "attnflow/learn/sentiment_data.hpp"

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow::learn {

struct LearnOptions {
  std::vector<std::string> data = {"imdb"};
  std::vector<std::string> variants = {"plus", "minus", "minus-per-layer", "nn", "sa-ffn", "lexicon"};
  int folds = 10;
  int repeats = 1;  // cross-validations with different fold splits and initial weights
  Architecture arch;
  TrainingSettings training;
  std::uint64_t seed = 1;
  int threads = 0;                // trainings run in parallel (0: the machine's cores); results do not depend on it
  int horizon_blocks = 25;        // the mechanism's long run: the L trained layers repeated this often
  int mechanism_sentences = 200;  // test sentences per data set and variant whose dynamics are measured
  double cluster_delta = 1e-3;    // |⟨x_i, x_j⟩| ≥ 1 − δ counts as the same or the antipodal point
  int prove_sentences = 5;        // V = +αI: `prove` on this many measured starts in no hemisphere, at most
  bool allow_fetch = true;
  std::string configs_dir;  // non-empty: exported configs of a few sentences go here
  /// Polled before each training and each measured sentence: once it reads true, run_learn throws
  /// Cancelled (the command line's Ctrl-C flag; learn/ knows no signals).
  const std::atomic<bool>* interrupt = nullptr;
  /// Corpora read from memory instead of the package (tests): name → sentences.
  std::vector<std::pair<std::string, std::vector<Sentence>>> corpora;
};

/// Runs the experiment; `progress(fraction, what)` is told as trainings finish. Nothing is written
/// but the exported configs (LearnOptions::configs_dir); the caller writes learn.json.
nlohmann::json run_learn(const LearnOptions& options,
                         const std::function<void(double, const std::string&)>& progress = {});

/// The attnflow config of a trained attention-only network on one sentence: layer-normalized,
/// β = 1, per-layer Q_k, K_k, V_k = s·α_k I (the L layers as a cyclic list, run for `layers_to_run`), the
/// sentence's embedded tokens (on the sphere, as doubles) as the explicit start.
nlohmann::json export_config(const TrainedWeights& w, const std::vector<int>& sentence, int layers_to_run,
                             int sample_every);

/// The same network and sentence as a statement for `attnflow check --statement`: for V = +αI
/// [Blog] Prop 2.1 (a theorem: the diameter tends to 0, start in a hemisphere certified), for
/// V = −αI Blog-C2 (a conjecture: every token tends to ±x*); the control V = 0 must be violated.
nlohmann::json export_statement(const TrainedWeights& w, const std::vector<int>& sentence, int layers,
                                const std::string& id, const std::string& text);

/// The embedded, normalised tokens of a sentence (the start of the layer map).
Tokens<double> embedded_start(const TrainedWeights& w, const std::vector<int>& sentence);

/// The tokens after `layers` layers by attnflow's own layer-normalized map on the exported config.
Tokens<double> attnflow_tokens_after(const TrainedWeights& w, const std::vector<int>& sentence, int layers);

/// The shape of final tokens at δ: one cluster (every ⟨x_i, x_j⟩ ≥ 1 − δ), two antipodal clusters
/// (every |⟨x_i, x_j⟩| ≥ 1 − δ and some ⟨x_i, x_j⟩ ≤ −(1 − δ)), or neither.
std::string cluster_shape(const Tokens<double>& x, double delta);

}  // namespace attnflow::learn
