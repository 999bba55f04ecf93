#include "attnflow/learn/experiment.hpp"

#include "attnflow/config/sim_config.hpp"
#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/diagnostics/interval_estimates.hpp"
#include "attnflow/diagnostics/positive_definite.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/learn/text.hpp"
#include "attnflow/random.hpp"
#include "attnflow/run/instance_monitor.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/verify/good_triple.hpp"
#include "attnflow/verify/prove.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

namespace attnflow::learn {

using nlohmann::json;

namespace {

json matrix_json(const Matrix<double>& m) {
  json rows = json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    json row = json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) row.push_back(to_decimal(m(i, j)));
    rows.push_back(row);
  }
  return rows;
}

std::uint64_t name_code(const std::string& s) {  // FNV-1a: a seed path element from a name
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

/// One cross-validation split of one data set: the folds, and per fold the vocabulary of its
/// training folds and every sentence encoded with it.
struct Split {
  std::vector<int> fold;             // per sentence
  std::vector<Batch> encoded;        // per fold: all sentences
  std::vector<int> vocabulary_size;  // per fold
};

Split make_split(const std::vector<Sentence>& s, int k, std::uint64_t seed) {
  Split sp;
  sp.fold = stratified_folds(s, k, seed);
  for (int f = 0; f < k; ++f) {
    Vocabulary v;
    for (std::size_t i = 0; i < s.size(); ++i)
      if (sp.fold[i] != f)
        for (const auto& w : tokenize(s[i].text)) v.add(w);
    Batch enc;
    for (const auto& x : s) enc.push_back(v.encode(x.text));
    sp.encoded.push_back(std::move(enc));
    sp.vocabulary_size.push_back(v.size());
  }
  return sp;
}

struct TaskResult {
  long right = 0, tested = 0;  // predictions on the test fold
  TrainedWeights weights;      // kept for the mechanism (repeat 0)
};

struct Comparison {
  const char* better;
  const char* worse;
  const char* claim;
};
// The blog's Figure 3, read as pairwise claims.
const Comparison kComparisons[] = {
    {"minus", "plus", "V = -alpha I beats V = +alpha I"},
    {"minus-per-layer", "minus", "alpha_k per layer beats one alpha"},
    {"minus", "nn", "self-attention beats the basic NN"},
    {"sa-ffn", "minus-per-layer", "self-attention with FFN is best"},
};

/// m sentence indices, half of each label as far as they go, each label in a seeded order; the
/// labels alternate so any prefix is balanced too.
std::vector<std::size_t> mechanism_sample(const std::vector<Sentence>& sentences, std::size_t m, std::uint64_t seed) {
  std::vector<std::size_t> by_label[2];
  for (std::size_t i = 0; i < sentences.size(); ++i) by_label[sentences[i].label].push_back(i);
  SeededDraws g(seed);
  for (auto& v : by_label) g.shuffle(v.begin(), v.end());
  std::vector<std::size_t> pick;
  for (std::size_t k = 0; pick.size() < m && k < sentences.size(); ++k)
    for (auto& v : by_label)
      if (k < v.size() && pick.size() < m) pick.push_back(v[k]);
  return pick;
}

int afinn_score(const std::map<std::string, int>& lexicon, const std::string& text) {
  int s = 0;
  for (const auto& w : tokenize(text))
    if (auto it = lexicon.find(w); it != lexicon.end()) s += it->second;
  return s;
}

}  // namespace

Tokens<double> embedded_start(const TrainedWeights& w, const std::vector<int>& sentence) {
  Tokens<double> x(static_cast<Eigen::Index>(sentence.size()), w.d);
  for (std::size_t i = 0; i < sentence.size(); ++i) {
    const auto row = w.embedding.row(sentence[i]);
    x.row(static_cast<Eigen::Index>(i)) = row / row.norm();
  }
  return x;
}

json export_config(const TrainedWeights& w, const std::vector<int>& sentence, int layers_to_run, int sample_every) {
  if (!w.info.layer_map()) input_error("variant", std::string(w.info.id) + " has no attnflow layer map");
  // The L trained layers once, as a cyclic list: layer k of any run (and of prove's infinite
  // horizon) is trained layer k mod L, the network applied again and again.
  json Q = json::array(), K = json::array(), V = json::array();
  for (int k = 0; k < w.layers; ++k) {
    Q.push_back(matrix_json(w.Q[std::size_t(k)]));
    K.push_back(matrix_json(w.K[std::size_t(k)]));
    V.push_back({{"scaled-identity", to_decimal(w.info.sign * w.alpha[std::size_t(k)])}});
  }
  const Tokens<double> x = embedded_start(w, sentence);
  json points = json::array();
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    json p = json::array();
    for (Eigen::Index j = 0; j < x.cols(); ++j) p.push_back(to_decimal(x(i, j)));
    points.push_back(p);
  }
  return {{"model", "layer-normalized"},
          {"n", x.rows()},
          {"d", w.d},
          {"beta", 1},
          {"Q", {{"layers", Q}, {"cycle", true}}},
          {"K", {{"layers", K}, {"cycle", true}}},
          {"V", {{"layers", V}, {"cycle", true}}},
          {"init", {{"kind", "explicit"}, {"points", points}}},
          {"time", {{"layers", layers_to_run}, {"every", sample_every}}},
          {"precision", "double"}};
}

namespace {
/// At most `bytes` bytes of `text`, never cutting a UTF-8 character in two.
std::string utf8_prefix(const std::string& text, std::size_t bytes) {
  if (text.size() <= bytes) return text;
  while (bytes > 0 && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) --bytes;
  return text.substr(0, bytes);
}
}  // namespace

json export_statement(const TrainedWeights& w, const std::vector<int>& sentence, int layers, const std::string& id,
                      const std::string& text) {
  json config = export_config(w, sentence, layers, 1);
  json model = {{"model", "layer-normalized"}, {"beta", 1}, {"Q", config["Q"]}, {"K", config["K"]}, {"V", config["V"]}};
  const bool plus = w.info.sign > 0;
  json st = {
      {"id", id},
      {"kind", plus ? "theorem" : "conjecture"},
      {"source", plus ? "[Blog] Proposition 2.1, on weights trained by attnflow learn"
                      : "[Blog] Conjecture 2, on weights trained by attnflow learn"},
      {"statement", plus ? "The trained layers with $V_k = \\alpha_k I$ (repeated) collapse the sentence's tokens "
                           "to one point."
                         : "The trained layers with $V_k = -\\alpha_k I$ (repeated) send the sentence's tokens to "
                           "two antipodal points."},
      // The sentence is plain text, not LaTeX: it goes where the report escapes it.
      {"summary",
       (plus ? "trained V = +alpha I: one point; " : "trained V = -alpha I: +-x*; ") + utf8_prefix(text, 100)},
      {"comment", "The sentence: " + text},
      {"model", model},
      {"ensemble",
       {{"instances", 1},
        {"n", config["n"]},
        {"d", config["d"]},
        {"start", "explicit"},
        {"points", config["init"]["points"]}}},
      {"horizon", {{"layers", layers}}},
      {"hypotheses", plus ? json{"hemisphere-start", "v-scaled-identity"} : json{"v-scaled-identity"}},
      {"conclusion", plus ? json::array({{{"observable", "diameter"}, {"tends_to", 0}}})
                          : json::array({{{"observable", "antipodal_deviation"}, {"tends_to", 0}, {"within", 1e-6}}})},
      {"controls", json::array({{{"description", "V = 0: the map is the identity, the words stay apart"},
                                 {"override", {{"model", {{"V", "zero"}}}, {"hypotheses", nullptr}}},
                                 {"expected", "violated"}}})}};
  return st;
}

Tokens<double> attnflow_tokens_after(const TrainedWeights& w, const std::vector<int>& sentence, int layers) {
  const SimConfig c = parse_sim_config(export_config(w, sentence, layers, layers));
  return simulate<double>(c).x.back();
}

std::string cluster_shape(const Tokens<double>& x, double delta) {
  bool opposite = false;  // some pair near -1: two antipodal clusters, if every pair is near ±1
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index j = i + 1; j < x.rows(); ++j) {
      const double g = x.row(i).dot(x.row(j));
      if (std::fabs(g) < 1 - delta) return "neither";
      opposite |= g < 0;
    }
  return opposite ? "two antipodal clusters" : "one cluster";
}

namespace {

using Progress = std::function<void(double, const std::string&)>;

/// fn(i) for i < count on `threads` threads, result i in place i: the outcome does not depend on
/// the thread count. The first exception stops the others from starting new work and is rethrown.
template <class R, class F>
std::vector<R> parallel_map(std::size_t count, int threads, const std::atomic<bool>* interrupt, F fn) {
  std::vector<R> out(count);
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr failure;
  auto worker = [&] {
    for (std::size_t i; (i = next++) < count;) {
      try {
        if (interrupt != nullptr && interrupt->load()) throw Cancelled();
        out[i] = fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        next = count;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
  return out;
}

/// Everything one run of the experiment shares: the data, the splits and the trainings.
struct Experiment {
  LearnOptions opt;
  std::vector<VariantInfo> trained;  // the LibTorch variants; the lexicon is scored without training
  bool lexicon = false;
  std::vector<std::pair<std::string, std::vector<Sentence>>> corpora;
  std::map<std::string, int> afinn;
  std::vector<std::vector<Split>> splits;  // [data set][repeat]
  struct Task {
    std::size_t c;
    int r, f;
    std::size_t v;
  };
  std::vector<Task> tasks;  // one training per (data set, repeat, fold, variant)
  std::vector<TaskResult> results;
  int threads = 1;
};

void train_all(Experiment& e, const Progress& progress) {
  const LearnOptions& opt = e.opt;
  const int k = opt.folds;
  for (std::size_t c = 0; c < e.corpora.size(); ++c)
    for (int r = 0; r < opt.repeats; ++r)
      for (int f = 0; f < k; ++f)
        for (std::size_t v = 0; v < e.trained.size(); ++v) e.tasks.push_back({c, r, f, v});
  std::atomic<std::size_t> done{0};
  std::mutex progress_mutex;
  const auto& corpora = e.corpora;
  const auto& splits = e.splits;
  const auto& trained = e.trained;
  const auto& tasks = e.tasks;
  e.results = parallel_map<TaskResult>(tasks.size(), e.threads, opt.interrupt, [&](std::size_t t) {
    const Experiment::Task& T = tasks[t];
    const auto& sentences = corpora[T.c].second;
    const Split& sp = splits[T.c][std::size_t(T.r)];
    const Batch& enc = sp.encoded[std::size_t(T.f)];
    Batch train, test;
    std::vector<int> labels;
    std::vector<std::size_t> test_index;
    for (std::size_t i = 0; i < sentences.size(); ++i) {
      if (sp.fold[i] == T.f) {
        test.push_back(enc[i]);
        test_index.push_back(i);
      } else {
        train.push_back(enc[i]);
        labels.push_back(sentences[i].label);
      }
    }
    const VariantInfo& info = trained[T.v];
    TaskResult res;
    res.weights = train_classifier(info, opt.arch, opt.training, train, labels, sp.vocabulary_size[std::size_t(T.f)],
                                   derive_seed(opt.seed, {name_code(corpora[T.c].first), 2, std::uint64_t(T.r),
                                                          std::uint64_t(T.f), name_code(info.id)}));
    const std::vector<double> z = classifier_logits(res.weights, test);
    for (std::size_t i = 0; i < test.size(); ++i) res.right += (z[i] > 0) == (sentences[test_index[i]].label == 1);
    res.tested = long(test.size());
    if (T.r != 0 || !info.layer_map()) res.weights = TrainedWeights{};
    const std::size_t n_done = ++done;
    if (progress) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      progress(double(n_done) / double(tasks.size()) * 0.8,
               fmt::format("{} {} fold {}/{}", corpora[T.c].first, info.id, T.f + 1, k));
    }
    return res;
  });
}

/// One data set's accuracies (with their intervals) and the paired comparisons.
json accuracy_section(const Experiment& e, std::size_t c) {
  const LearnOptions& opt = e.opt;
  const int k = opt.folds;
  const std::vector<Sentence>& sentences = e.corpora[c].second;
  const long N = long(sentences.size());
  json variants = json::object();
  // Per variant: correct predictions per repeat and per (repeat, fold).
  std::map<std::string, std::vector<std::vector<double>>> fold_accuracy;  // [repeat][fold]
  auto summarise = [&](const std::string& id, const std::vector<long>& correct_per_repeat,
                       const std::vector<std::vector<double>>& per_fold, const std::string& description) {
    double mean = 0;
    for (long x : correct_per_repeat) mean += double(x);
    mean /= double(correct_per_repeat.size());
    const auto [lo, hi] = wilson_95(std::lround(mean), N);
    variants[id] = {{"description", description},
                    {"accuracy", mean / double(N)},
                    {"ci_low", lo},
                    {"ci_high", hi},
                    {"ci_method", "Wilson 95 % over the " + std::to_string(N) +
                                      " sentences (each predicted once per cross-validation; mean over repeats)"},
                    {"per_repeat", correct_per_repeat},
                    {"per_fold", per_fold}};
    fold_accuracy[id] = per_fold;
  };
  for (std::size_t v = 0; v < e.trained.size(); ++v) {
    std::vector<long> per_repeat(std::size_t(opt.repeats), 0);
    std::vector<std::vector<double>> per_fold(std::size_t(opt.repeats), std::vector<double>(std::size_t(k), 0));
    for (std::size_t t = 0; t < e.tasks.size(); ++t) {
      if (e.tasks[t].c != c || e.tasks[t].v != v) continue;
      per_repeat[std::size_t(e.tasks[t].r)] += e.results[t].right;
      per_fold[std::size_t(e.tasks[t].r)][std::size_t(e.tasks[t].f)] =
          double(e.results[t].right) / double(e.results[t].tested);
    }
    summarise(e.trained[v].id, per_repeat, per_fold, e.trained[v].description);
  }
  if (e.lexicon && !e.afinn.empty()) {
    const auto& splits = e.splits;
    const auto& afinn = e.afinn;
    // AFINN-165: the sum of the words' valences; > 0 positive, < 0 negative, 0 the training folds' majority.
    std::vector<long> per_repeat(std::size_t(opt.repeats), 0);
    std::vector<std::vector<double>> per_fold(std::size_t(opt.repeats), std::vector<double>(std::size_t(k), 0));
    long ties = 0;
    for (int r = 0; r < opt.repeats; ++r) {
      const Split& sp = splits[c][std::size_t(r)];
      for (int f = 0; f < k; ++f) {
        long pos = 0, train_n = 0, right = 0, test_n = 0;
        for (std::size_t i = 0; i < sentences.size(); ++i)
          if (sp.fold[i] != f) {
            pos += sentences[i].label;
            ++train_n;
          }
        const int majority = 2 * pos >= train_n ? 1 : 0;
        for (std::size_t i = 0; i < sentences.size(); ++i) {
          if (sp.fold[i] != f) continue;
          const int s = afinn_score(afinn, sentences[i].text);
          if (s == 0 && r == 0) ++ties;
          right += ((s > 0 ? 1 : s < 0 ? 0 : majority) == sentences[i].label);
          ++test_n;
        }
        per_repeat[std::size_t(r)] += right;
        per_fold[std::size_t(r)][std::size_t(f)] = double(right) / double(test_n);
      }
    }
    summarise("lexicon", per_repeat, per_fold, "AFINN-165 lexicon score, no training");
    variants["lexicon"]["ties_scored_zero"] = ties;
  }
  // Paired comparisons fold by fold (Nadeau–Bengio's corrected resampled t: the folds' training
  // sets overlap, so the plain paired t would be too confident).
  json comparisons = json::array();
  for (const auto& cmp : kComparisons) {
    if (!fold_accuracy.count(cmp.better) || !fold_accuracy.count(cmp.worse)) continue;
    std::vector<double> diff;
    for (int r = 0; r < opt.repeats; ++r)
      for (int f = 0; f < k; ++f)
        diff.push_back(fold_accuracy[cmp.better][std::size_t(r)][std::size_t(f)] -
                       fold_accuracy[cmp.worse][std::size_t(r)][std::size_t(f)]);
    const double test_over_train = 1.0 / double(k - 1);
    const PairedT t = paired_t(diff, test_over_train);
    long wins = 0, losses = 0;
    for (double x : diff) wins += x > 0, losses += x < 0;
    const std::string verdict = t.low > 0    ? "holds (the interval excludes 0)"
                                : t.high < 0 ? "reversed (the interval excludes 0 on the other side)"
                                             : "not separated by these data (the interval contains 0)";
    comparisons.push_back(
        {{"claim", cmp.claim},
         {"better", cmp.better},
         {"worse", cmp.worse},
         {"mean_difference", t.mean},
         {"ci_low", t.low},
         {"ci_high", t.high},
         {"p_value", t.p_value},
         {"folds", t.m},
         {"folds_better", wins},
         {"folds_worse", losses},
         {"test", "paired t over folds with Nadeau-Bengio's variance correction (1/m + n_test/n_train)"},
         {"verdict", verdict}});
  }
  return {{"sentences", N}, {"variants", variants}, {"comparisons", comparisons}};
}

/// `attnflow prove` on measured sentences whose start lies in no open hemisphere (where Prop 2.1
/// cannot be applied at layer 0): the exported H layers (per-layer Q_k, K_k, α_k) enclosed in
/// interval arithmetic until every token lies in one open hemisphere; Prop 2.1 then applies from
/// that layer on. At most opt.prove_sentences of them; certificates to configs_dir when set.
json prove_hard_starts(const Experiment& e, std::size_t c, const std::vector<const TrainedWeights*>& by_fold,
                       const std::vector<std::size_t>& hard, int H, const std::string& stem) {
  const LearnOptions& opt = e.opt;
  const Split& sp = e.splits[c][0];
  const std::size_t m = std::min<std::size_t>(hard.size(), std::size_t(std::max(0, opt.prove_sentences)));
  const std::vector<json> runs = parallel_map<json>(m, e.threads, opt.interrupt, [&](std::size_t q) {
    const std::size_t s = hard[q];
    const int f = sp.fold[s];
    const auto& ids = sp.encoded[std::size_t(f)][s];
    const verify::ProveInstance in =
        verify::prove_instance_from_config(parse_sim_config(export_config(*by_fold[std::size_t(f)], ids, H, H)));
    verify::ProveOptions po;
    po.max_time = H;
    po.interrupt = opt.interrupt;
    verify::require_proof_memory(in, po, verify::kDefaultMaxMemoryGb);
    const verify::ProofResult pr = verify::prove(in, po);
    if (pr.interrupted) throw Cancelled();
    json j = {{"index", s}, {"tokens", in.n}, {"outcome", pr.outcome}};
    if (pr.proved) {
      j["layer"] = std::lround(pr.T);
      j["margin"] = pr.margin;
      j["max_width"] = pr.at_T.max_width();
    } else {
      j["reason"] = pr.reason;
    }
    if (!opt.configs_dir.empty())
      write_files_atomically({{opt.configs_dir + "/" + stem + "-sentence" + std::to_string(s) + ".certificate.json",
                               verify::make_certificate(in, po, pr).dump(1) + "\n"}});
    return j;
  });
  long proved = 0;
  for (const json& j : runs) proved += j["outcome"] == "proved";
  return {{"candidates", hard.size()},
          {"attempted", m},
          {"proved", proved},
          {"layers", H},
          {"runs", runs},
          {"method",
           "attnflow prove on the exported config (the trained layers repeated, per-layer Q_k, K_k, alpha_k): each "
           "layer enclosed in double interval arithmetic (mean-value form, outward rounding) until every token lies "
           "in one open hemisphere for every point of the enclosure; [Blog] Prop 2.1 applies from that layer on"}};
}

/// What one attention-only variant's trained networks (first repeat) do as attnflow layer maps.
json mechanism_entry(const Experiment& e, std::size_t c, std::size_t v,
                     const std::function<void(std::size_t, std::size_t)>& tick) {
  const LearnOptions& opt = e.opt;
  const int k = opt.folds, L = opt.arch.layers, H = L * opt.horizon_blocks;
  const std::string& name = e.corpora[c].first;
  const std::vector<Sentence>& sentences = e.corpora[c].second;
  const Split& sp = e.splits[c][0];
  const VariantInfo& info = e.trained[v];
  std::vector<const TrainedWeights*> by_fold(std::size_t(k), nullptr);
  for (std::size_t t = 0; t < e.tasks.size(); ++t)
    if (e.tasks[t].c == c && e.tasks[t].r == 0 && e.tasks[t].v == v)
      by_fold[std::size_t(e.tasks[t].f)] = &e.results[t].weights;
  // Hypotheses of the theorems, per fold and layer, decided exactly or certified.
  long pd_layers = 0, layers_total = 0, good_triples = 0;
  std::string good_triple_failure;
  for (const auto* w : by_fold) {
    for (int l = 0; l < L; ++l) {
      ++layers_total;
      pd_layers += certify_positive_definite(w->Q[std::size_t(l)], w->K[std::size_t(l)]).positive_definite;
      const auto g = verify::certify_good_triple(w->Q[std::size_t(l)], w->K[std::size_t(l)], w->V(l));
      if (g.dominant && g.sign_positive)
        ++good_triples;
      else if (good_triple_failure.empty())
        good_triple_failure = g.failure;
    }
  }
  // Dynamics of a seeded sample of sentences, half of each label (the files list one label
  // first), each under the network of the fold that did not see it.
  const std::size_t m = std::min<std::size_t>(sentences.size(), std::size_t(opt.mechanism_sentences));
  const std::vector<std::size_t> pick = mechanism_sample(sentences, m, derive_seed(opt.seed, {name_code(name), 3}));
  struct Reading {
    std::string shape_L, shape_H;
    bool right_L = false, right_H = false, hemisphere = false, single = false;
    double deviation = 0;
  };
  const std::vector<Reading> reading = parallel_map<Reading>(m, e.threads, opt.interrupt, [&](std::size_t r) {
    Reading rd;
    const std::size_t s = pick[r];
    const int f = sp.fold[s];
    const TrainedWeights& w = *by_fold[std::size_t(f)];
    const auto& ids = sp.encoded[std::size_t(f)][s];
    const Trajectory<double> tr = simulate<double>(parse_sim_config(export_config(w, ids, H, L)));
    const Tokens<double>& xL = tr.x[1];
    const Tokens<double>& xH = tr.x.back();
    rd.single = ids.size() == 1;
    rd.shape_L = cluster_shape(xL, opt.cluster_delta);
    rd.shape_H = cluster_shape(xH, opt.cluster_delta);
    auto readout = [&](const Tokens<double>& x) { return x.colwise().mean().dot(w.readout.transpose()) + w.bias; };
    rd.right_L = (readout(xL) > 0) == (sentences[s].label == 1);
    rd.right_H = (readout(xH) > 0) == (sentences[s].label == 1);
    const HemisphereResult h = find_hemisphere(embedded_start(w, ids));
    rd.hemisphere = h.certified && h.exists;  // an exact LP certificate, not a float answer
    if (r < 3) rd.deviation = (torch_tokens_after(w, ids, L) - xL).cwiseAbs().maxCoeff();
    tick(r, m);
    return rd;
  });
  auto tally = [&](bool at_H) {
    json counts = {{"one cluster", 0}, {"two antipodal clusters", 0}, {"neither", 0}};
    for (const auto& rd : reading)
      counts[at_H ? rd.shape_H : rd.shape_L] = counts[at_H ? rd.shape_H : rd.shape_L].get<long>() + 1;
    return counts;
  };
  // Prop 2.1 (corrected) on the cyclic schedule: every trained factor in (0, 1], so that the
  // factors of the layers that recur for ever are bounded below by a positive constant; decided
  // on the exported doubles themselves.
  bool alpha_in_unit_interval = true;
  for (const auto* w : by_fold)
    for (double a : w->alpha) alpha_in_unit_interval &= a > 0 && a <= 1;
  long right_L = 0, right_H = 0, hemi = 0, single = 0, proved = 0, proved_one = 0, proved_split = 0;
  double max_dev = 0;
  for (const auto& rd : reading) {
    right_L += rd.right_L;
    right_H += rd.right_H;
    hemi += rd.hemisphere;
    single += rd.single;
    max_dev = std::max(max_dev, rd.deviation);
    // [Blog] Prop 2.1 (corrected): V_k = α_k I with 0 < α_k ≤ 1, bounded Q_k, K_k (the L layers cycled),
    // start in an open hemisphere (an exact LP certificate) ⇒ every token tends to one x*.
    if (info.sign > 0 && alpha_in_unit_interval && rd.hemisphere) {
      ++proved;
      proved_one += rd.shape_H == "one cluster";
      proved_split += rd.shape_H == "two antipodal clusters";  // would contradict the theorem
    }
  }
  // Does the cluster a sentence's tokens join predict its label? The read-out's accuracy after
  // the long run, per final shape.
  json by_shape = json::object();
  for (const char* shape : {"one cluster", "two antipodal clusters", "neither"}) {
    long count = 0, right = 0;
    for (const auto& rd : reading)
      if (rd.shape_H == shape) ++count, right += rd.right_H;
    by_shape[shape] = {{"sentences", count},
                       {"readout_accuracy", count ? json(double(right) / double(count)) : json()}};
  }
  json entry = {{"sentences", m},
                {"single_word_sentences", single},
                {"layers_trained", L},
                {"layers_long", H},
                {"delta", opt.cluster_delta},
                {"shapes_after_L", tally(false)},
                {"shapes_after_long", tally(true)},
                {"readout_accuracy_after_L", double(right_L) / double(m)},
                {"readout_accuracy_after_long", double(right_H) / double(m)},
                {"readout_accuracy_after_long_by_shape", by_shape},
                {"start_in_open_hemisphere", hemi},
                {"qtk_positive_definite_layers", pd_layers},
                {"layers_checked", layers_total},
                {"good_triple_layers", good_triples},
                {"good_triple_failure", good_triple_failure},
                {"max_deviation_libtorch_vs_attnflow", max_dev},
                {"method",
                 "attnflow simulate of the exported layer-normalized config (double), the trained L layers "
                 "repeated; shapes at delta; Q^T K > 0 decided exactly; good triples certified (verify/); "
                 "hemispheres by an exact LP certificate"}};
  if (info.sign > 0) {
    entry["prop_2_1"] = {
        {"alpha_in_unit_interval", alpha_in_unit_interval},
        {"proved_collapse", proved},
        {"proved_and_one_cluster_numerically", proved_one},
        {"proved_but_split_numerically", proved_split},
        {"argument",
         "[Blog] Prop 2.1 with its hypotheses certified: V_k = alpha_k I, 0 < alpha_k < 1 (sigmoid), bounded "
         "Q_k, K_k (the trained layers repeated), start in an open hemisphere (exact LP certificate on the "
         "double start): every token converges to one point x*"}};
  }
  if (info.sign > 0 && alpha_in_unit_interval) {
    std::vector<std::size_t> hard;  // no exact LP certificate of a hemisphere at the start
    for (std::size_t r = 0; r < m; ++r)
      if (!reading[r].hemisphere) hard.push_back(pick[r]);
    entry["prop_2_1"]["prove"] = prove_hard_starts(e, c, by_fold, hard, H, name + "-" + info.id);
  }
  // One sentence's tokens over the layers (the report's picture): the first measured sentence
  // of at least four words; ⟨x_i^k, u⟩ with u its first token's final position.
  for (std::size_t r = 0; r < m; ++r) {
    const std::size_t s = pick[r];
    const int f = sp.fold[s];
    const auto& ids = sp.encoded[std::size_t(f)][s];
    if (ids.size() < 4) continue;
    const TrainedWeights& w = *by_fold[std::size_t(f)];
    const Trajectory<double> tr = simulate<double>(parse_sim_config(export_config(w, ids, H, 1)));
    const Eigen::RowVectorXd u = tr.x.back().row(0);
    json layers = json::array(), cosines = json::array();
    for (std::size_t k = 0; k < tr.x.size(); ++k) {
      layers.push_back(std::lround(static_cast<double>(tr.t[k])));
      json row = json::array();
      for (Eigen::Index i = 0; i < tr.x[k].rows(); ++i) row.push_back(tr.x[k].row(i).dot(u));
      cosines.push_back(row);
    }
    entry["example"] = {{"sentence", sentences[s].text},
                        {"label", sentences[s].label},
                        {"index", s},
                        {"layers", layers},
                        {"cosine_to_final_first_token", cosines}};
    break;
  }
  if (!opt.configs_dir.empty()) {
    for (std::size_t r = 0; r < std::min<std::size_t>(m, 3); ++r) {
      const std::size_t s = pick[r];
      const int f = sp.fold[s];
      const std::string stem = name + "-" + info.id + "-sentence" + std::to_string(s);
      const TrainedWeights& w = *by_fold[std::size_t(f)];
      const auto& ids = sp.encoded[std::size_t(f)][s];
      write_files_atomically({{opt.configs_dir + "/" + stem + ".json", export_config(w, ids, H, 1).dump(1) + "\n"},
                              {opt.configs_dir + "/" + stem + ".statement.json",
                               export_statement(w, ids, H, "learned-" + stem, sentences[s].text).dump(1) + "\n"}});
    }
  }
  return entry;
}

}  // namespace

json run_learn(const LearnOptions& opt, const Progress& progress) {
  Experiment e;
  e.opt = opt;
  for (const auto& id : opt.variants) {
    if (id == "lexicon")
      e.lexicon = true;
    else
      e.trained.push_back(variant_info(id));
  }
  e.corpora = opt.corpora;
  json provenance_data = json::array();
  if (e.corpora.empty()) {
    ensure_sentiment_package(opt.allow_fetch);
    for (const auto& name : opt.data) {
      Corpus c = load_corpus(name);
      provenance_data.push_back({{"name", name}, {"sentences", c.sentences.size()}, {"sha256", c.sha256}});
      e.corpora.push_back({name, std::move(c.sentences)});
    }
  }
  if (e.lexicon && opt.corpora.empty()) e.afinn = load_afinn();
  use_single_threaded_torch();
  e.threads = !blas_allows_parallel_training()
                  ? 1
                  : std::max(1, opt.threads > 0 ? opt.threads : int(std::thread::hardware_concurrency()));
  const int k = opt.folds;
  e.splits.resize(e.corpora.size());
  for (std::size_t c = 0; c < e.corpora.size(); ++c)
    for (int r = 0; r < opt.repeats; ++r)
      e.splits[c].push_back(make_split(e.corpora[c].second, k,
                                       derive_seed(opt.seed, {name_code(e.corpora[c].first), 1, std::uint64_t(r)})));
  train_all(e, progress);

  json out = {{"data_sets", json::object()}};
  for (std::size_t c = 0; c < e.corpora.size(); ++c) out["data_sets"][e.corpora[c].first] = accuracy_section(e, c);

  // The mechanism: the trained attention-only networks (first repeat) as attnflow layer maps.
  std::size_t total = 0, done = 0;
  for (std::size_t c = 0; c < e.corpora.size(); ++c)
    for (const auto& info : e.trained)
      if (info.layer_map())
        total += std::min<std::size_t>(e.corpora[c].second.size(), std::size_t(opt.mechanism_sentences));
  std::mutex progress_mutex;
  for (std::size_t c = 0; c < e.corpora.size(); ++c) {
    json mechanism = json::object();
    for (std::size_t v = 0; v < e.trained.size(); ++v) {
      const VariantInfo& info = e.trained[v];
      if (!info.layer_map()) continue;
      mechanism[info.id] = mechanism_entry(e, c, v, [&](std::size_t r, std::size_t m) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        ++done;
        if (progress)
          progress(0.8 + 0.2 * double(done) / double(std::max<std::size_t>(1, total)),
                   fmt::format("{} {} dynamics {}/{}", e.corpora[c].first, info.id, r + 1, m));
      });
    }
    out["data_sets"][e.corpora[c].first]["mechanism"] = mechanism;
  }
  out["settings"] = {
      {"folds", k},
      {"repeats", opt.repeats},
      {"d", opt.arch.d},
      {"layers", opt.arch.layers},
      {"hidden", opt.arch.hidden},
      {"epochs", opt.training.epochs},
      {"batch", opt.training.batch},
      {"learning_rate", opt.training.learning_rate},
      {"seed", opt.seed},
      {"precision", "double"},
      {"tokenizer", "lower case, split on non-letters, vocabulary of the training folds, one unknown-word token"},
      {"readout", "mean of the final tokens against a learned vector, plus a bias"}};
  out["provenance_data"] = provenance_data;
  out["provenance_blas"] = {{"library", blas_library()}, {"threads_used", e.threads}};
  return out;
}

}  // namespace attnflow::learn
