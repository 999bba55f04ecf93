// LibTorch's half of the classifier: the forward pass and the training loop. The only unit that
// includes LibTorch (CMakeLists.txt builds it only when LibTorch is found).
#include "attnflow/learn/classifier.hpp"

#include "attnflow/random.hpp"
#include "attnflow/learn/text.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <dlfcn.h>
#include <cmath>
#include <mutex>
#include <numeric>

namespace attnflow::learn {

namespace {

using torch::Tensor;
const auto kDouble = torch::TensorOptions().dtype(torch::kFloat64);

Tensor to_tensor(const Matrix<double>& m) {
  Tensor t = torch::empty({m.rows(), m.cols()}, kDouble);
  auto a = t.accessor<double, 2>();
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) a[i][j] = m(i, j);
  return t;
}
Tensor to_tensor(const Vector<double>& v) {
  Tensor t = torch::empty({v.size()}, kDouble);
  for (Eigen::Index i = 0; i < v.size(); ++i) t[i] = v(i);
  return t;
}
Matrix<double> to_matrix(const Tensor& t0) {
  const Tensor t = t0.detach().contiguous();
  Matrix<double> m(t.size(0), t.size(1));
  auto a = t.accessor<double, 2>();
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = a[i][j];
  return m;
}
Vector<double> to_vector(const Tensor& t0) {
  const Tensor t = t0.detach().contiguous();
  Vector<double> v(t.size(0));
  auto a = t.accessor<double, 1>();
  for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = a[i];
  return v;
}

Matrix<double> gaussian(SeededDraws& g, int rows, int cols, double scale) {
  Matrix<double> m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = scale * g.normal();
  return m;
}

/// The network's parameters as LibTorch tensors (θ_k for α_k = sigmoid(θ_k)).
struct Network {
  VariantInfo info{};
  int d = 0, layers = 0;
  Tensor embedding, theta, readout, bias;
  std::vector<Tensor> Q, K, W1, b1, W2, b2;

  std::vector<Tensor> parameters() const {
    std::vector<Tensor> p = {embedding, readout, bias};
    if (info.attention) p.push_back(theta);
    for (const auto* list : {&Q, &K, &W1, &b1, &W2, &b2}) p.insert(p.end(), list->begin(), list->end());
    return p;
  }

  /// The words of a padded batch [B, n] as unit vectors [B, n, d].
  Tensor embedded(const Tensor& ids) const {
    const Tensor x = embedding.index_select(0, ids.reshape({-1})).reshape({ids.size(0), ids.size(1), d});
    return x / x.norm(2, -1, true);
  }

  /// Tokens of a padded batch [B, n, d] after `steps` layers (layer k uses the weights of k mod L).
  Tensor tokens_after(const Tensor& ids, const Tensor& key_mask, int steps) const {
    Tensor x = embedded(ids);
    const Tensor alpha = torch::sigmoid(theta);
    const Tensor blocked = key_mask.logical_not().unsqueeze(1);  // [B, 1, n]: padding is never attended
    for (int s = 0; s < steps; ++s) {
      const int k = s % layers;
      const Tensor logits = torch::matmul(torch::matmul(x, Q[k].t()), torch::matmul(x, K[k].t()).transpose(1, 2))
                                .masked_fill(blocked, -std::numeric_limits<double>::infinity());
      const Tensor a = torch::softmax(logits, -1);
      const Tensor ak = info.per_layer_alpha ? alpha[k] : alpha[0];
      Tensor y = x + info.sign * ak * torch::matmul(a, x);
      x = y / y.norm(2, -1, true);
      if (info.ffn) {
        y = x + torch::matmul(torch::relu(torch::matmul(x, W1[k].t()) + b1[k]), W2[k].t()) + b2[k];
        x = y / y.norm(2, -1, true);
      }
    }
    return x;
  }

  Tensor logits(const Tensor& ids, const Tensor& mask) const {
    const Tensor m = mask.to(torch::kFloat64).unsqueeze(-1);  // [B, n, 1]
    const Tensor count = m.sum(1);                            // [B, 1]
    if (!info.attention) {
      const Tensor mean = (embedded(ids) * m).sum(1) / count;
      return torch::matmul(torch::relu(torch::matmul(mean, W1[0].t()) + b1[0]), readout) + bias;
    }
    const Tensor x = tokens_after(ids, mask, layers);
    return torch::matmul((x * m).sum(1) / count, readout) + bias;
  }
};

Network initial_network(const VariantInfo& info, const Architecture& arch, int vocabulary, std::uint64_t seed) {
  SeededDraws g(seed);
  Network net;
  net.info = info;
  net.d = arch.d;
  net.layers = arch.layers;
  const int d = arch.d, h = arch.hidden;
  net.embedding = to_tensor(gaussian(g, vocabulary, d, 1.0));
  if (info.attention) {
    // Q = K = I + small noise: attention starts by favouring similar words (Q^T K ≈ I ≻ 0).
    for (int k = 0; k < arch.layers; ++k) {
      net.Q.push_back(
          to_tensor(Matrix<double>(Matrix<double>::Identity(d, d) + gaussian(g, d, d, 0.1 / std::sqrt(d)))));
      net.K.push_back(
          to_tensor(Matrix<double>(Matrix<double>::Identity(d, d) + gaussian(g, d, d, 0.1 / std::sqrt(d)))));
    }
    net.theta = torch::zeros({info.per_layer_alpha ? arch.layers : 1}, kDouble);  // α = 1/2
  }
  const int blocks = info.ffn ? arch.layers : (info.attention ? 0 : 1);
  for (int k = 0; k < blocks; ++k) {
    net.W1.push_back(to_tensor(gaussian(g, h, d, 1 / std::sqrt(double(d)))));
    net.b1.push_back(torch::zeros({h}, kDouble));
    if (info.ffn) {
      net.W2.push_back(to_tensor(gaussian(g, d, h, 0.1 / std::sqrt(double(h)))));
      net.b2.push_back(torch::zeros({d}, kDouble));
    }
  }
  const int readout = info.attention ? d : h;
  net.readout = to_tensor(Vector<double>(gaussian(g, readout, 1, 1 / std::sqrt(double(readout)))));
  net.bias = torch::zeros({}, kDouble);
  for (auto& p : net.parameters()) p.set_requires_grad(true);
  return net;
}

Network network_of(const TrainedWeights& w) {
  Network net;
  net.info = w.info;
  net.d = w.d;
  net.layers = w.layers;
  net.embedding = to_tensor(w.embedding);
  for (const auto& m : w.Q) net.Q.push_back(to_tensor(m));
  for (const auto& m : w.K) net.K.push_back(to_tensor(m));
  if (w.info.attention) {
    Tensor theta = torch::empty({static_cast<long>(w.alpha.size())}, kDouble);
    for (std::size_t k = 0; k < w.alpha.size(); ++k) theta[long(k)] = std::log(w.alpha[k] / (1 - w.alpha[k]));
    net.theta = w.info.per_layer_alpha ? theta : theta.slice(0, 0, 1);
  }
  for (const auto& m : w.W1) net.W1.push_back(to_tensor(m));
  for (const auto& m : w.W2) net.W2.push_back(to_tensor(m));
  for (const auto& v : w.b1) net.b1.push_back(to_tensor(v));
  for (const auto& v : w.b2) net.b2.push_back(to_tensor(v));
  net.readout = to_tensor(w.readout);
  net.bias = torch::full({}, w.bias, kDouble);
  return net;
}

TrainedWeights weights_of(const Network& net) {
  TrainedWeights w;
  w.info = net.info;
  w.d = net.d;
  w.layers = net.layers;
  w.embedding = to_matrix(net.embedding);
  for (const auto& t : net.Q) w.Q.push_back(to_matrix(t));
  for (const auto& t : net.K) w.K.push_back(to_matrix(t));
  if (net.info.attention) {
    const Vector<double> a = to_vector(torch::sigmoid(net.theta));
    for (int k = 0; k < net.layers; ++k) w.alpha.push_back(a(net.info.per_layer_alpha ? k : 0));
  }
  for (const auto& t : net.W1) w.W1.push_back(to_matrix(t));
  for (const auto& t : net.W2) w.W2.push_back(to_matrix(t));
  for (const auto& t : net.b1) w.b1.push_back(to_vector(t));
  for (const auto& t : net.b2) w.b2.push_back(to_vector(t));
  w.readout = to_vector(net.readout);
  w.bias = net.bias.item<double>();
  return w;
}

/// Sentences [first, last) of `order` padded to the longest: ids [B, n] and the mask of real words.
std::pair<Tensor, Tensor> padded(const Batch& sentences, const std::vector<std::size_t>& order, std::size_t first,
                                 std::size_t last) {
  std::size_t n = 1;
  for (std::size_t i = first; i < last; ++i) n = std::max(n, sentences[order[i]].size());
  Tensor ids = torch::zeros({long(last - first), long(n)}, torch::kInt64);
  Tensor mask = torch::zeros({long(last - first), long(n)}, torch::kBool);
  auto ia = ids.accessor<long, 2>();
  auto ma = mask.accessor<bool, 2>();
  for (std::size_t b = first; b < last; ++b) {
    const auto& s = sentences[order[b]];
    for (std::size_t j = 0; j < s.size(); ++j) {
      ia[long(b - first)][long(j)] = s[j];
      ma[long(b - first)][long(j)] = true;
    }
  }
  return {ids, mask};
}

}  // namespace

std::string blas_library() {
  // OpenBLAS answers openblas_get_config; the reference BLAS has no such symbol.
  using Config = char* (*)();
  if (auto f = reinterpret_cast<Config>(::dlsym(RTLD_DEFAULT, "openblas_get_config")); f != nullptr)
    return std::string("OpenBLAS ") + f();
  return "reference BLAS (or another without openblas_get_config)";
}

bool blas_allows_parallel_training() { return blas_library().rfind("OpenBLAS", 0) != 0; }

void use_single_threaded_torch() {
  static std::once_flag once;  // LibTorch refuses a second set_num_interop_threads
  std::call_once(once, [] { at::set_num_interop_threads(1); });
  // OpenMP's thread count is a per-thread setting: every thread that runs LibTorch sets its own, or
  // a reduction's split (and its last bits) would depend on how many trainings run at once.
  at::set_num_threads(1);
}

TrainedWeights train_classifier(const VariantInfo& variant, const Architecture& arch, const TrainingSettings& settings,
                                const Batch& sentences, const std::vector<int>& labels, int vocabulary_size,
                                std::uint64_t seed) {
  use_single_threaded_torch();
  Network net = initial_network(variant, arch, vocabulary_size, derive_seed(seed, {0}));
  torch::optim::Adam adam(net.parameters(), torch::optim::AdamOptions(settings.learning_rate));
  std::vector<std::size_t> order(sentences.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  Tensor y_all = torch::empty({long(labels.size())}, kDouble);
  for (std::size_t i = 0; i < labels.size(); ++i) y_all[long(i)] = double(labels[i]);
  for (int epoch = 0; epoch < settings.epochs; ++epoch) {
    SeededDraws g(derive_seed(seed, {1, std::uint64_t(epoch)}));
    g.shuffle(order.begin(), order.end());
    // Batches of sentences of similar length (sorted within chunks of 8 batches, then the batches
    // shuffled): padding, and with it the n² attention work, stays small.
    const std::size_t B = std::size_t(settings.batch), chunk = 8 * B;
    for (std::size_t c = 0; c < order.size(); c += chunk)
      std::stable_sort(order.begin() + long(c), order.begin() + long(std::min(order.size(), c + chunk)),
                       [&](std::size_t a, std::size_t b) { return sentences[a].size() < sentences[b].size(); });
    std::vector<std::size_t> batch_starts;
    for (std::size_t first = 0; first < order.size(); first += B) batch_starts.push_back(first);
    g.shuffle(batch_starts.begin(), batch_starts.end());
    for (const std::size_t first : batch_starts) {
      const std::size_t last = std::min(order.size(), first + B);
      const auto [ids, mask] = padded(sentences, order, first, last);
      std::vector<long> pick(order.begin() + long(first), order.begin() + long(last));
      const Tensor y = y_all.index_select(0, torch::tensor(pick, torch::kInt64));
      adam.zero_grad();
      const Tensor loss = torch::binary_cross_entropy_with_logits(net.logits(ids, mask), y);
      loss.backward();
      adam.step();
    }
  }
  return weights_of(net);
}

std::vector<double> classifier_logits(const TrainedWeights& w, const Batch& sentences) {
  use_single_threaded_torch();
  torch::NoGradGuard no_grad;
  const Network net = network_of(w);
  std::vector<std::size_t> order(sentences.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::vector<double> out;
  for (std::size_t first = 0; first < order.size(); first += 64) {
    const std::size_t last = std::min(order.size(), first + 64);
    const auto [ids, mask] = padded(sentences, order, first, last);
    const Tensor z = net.logits(ids, mask).contiguous();
    for (long i = 0; i < z.size(0); ++i) out.push_back(z[i].item<double>());
  }
  return out;
}

Tokens<double> torch_tokens_after(const TrainedWeights& w, const std::vector<int>& sentence, int layers_to_run) {
  use_single_threaded_torch();
  torch::NoGradGuard no_grad;
  const Network net = network_of(w);
  const auto [ids, mask] = padded({sentence}, {0}, 0, 1);
  const Tensor x = net.tokens_after(ids, mask, layers_to_run)[0].contiguous();
  Tokens<double> t(x.size(0), x.size(1));
  auto a = x.accessor<double, 2>();
  for (long i = 0; i < t.rows(); ++i)
    for (long j = 0; j < t.cols(); ++j) t(i, j) = a[i][j];
  return t;
}

}  // namespace attnflow::learn
