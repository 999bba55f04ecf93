// attnflow learn --data imdb|yelp|amazon|all [--variants …] [--folds k] [--layers L] [--dim d]
//                [--seed S] [--out DIR] → DIR/learn.json
// A program of its own, attnflow-learn, which `attnflow learn` runs in its place (forward.cpp):
// only it links LibTorch, whose 150 MB of libraries every other command would otherwise load at
// start-up.
#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/learn/experiment.hpp"
#include "attnflow/learn/sentiment_data.hpp"
#include "attnflow/run/instance_monitor.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/program_main.hpp"
#include "cli/progress.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <sstream>

namespace attnflow::cli {

namespace {
struct LearnCliOptions {
  std::string data = "imdb";
  std::string variants = "plus,minus,minus-per-layer,nn,sa-ffn,lexicon";
  learn::LearnOptions run;
  std::string out = "out/learn";
  bool no_fetch = false;
  bool quiet = false;
};

std::vector<std::string> split_list(const std::string& s, const std::string& field) {
  std::vector<std::string> items;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) input_error(field, "an empty item in '" + s + "'");
    items.push_back(item);
  }
  if (items.empty()) input_error(field, "must name at least one");
  return items;
}

int run_learn_command(LearnCliOptions& o) {
  learn::LearnOptions opt = o.run;
  opt.data = o.data == "all" ? learn::corpus_names() : split_list(o.data, "--data");
  for (const auto& d : opt.data) {
    bool known = false;
    for (const auto& n : learn::corpus_names()) known |= d == n;
    if (!known) input_error("--data", "unknown data set '" + d + "'; known: imdb, yelp, amazon, all");
  }
  opt.variants = split_list(o.variants, "--variants");
  for (const auto& v : opt.variants)
    if (v != "lexicon") learn::variant_info(v);
  opt.allow_fetch = !o.no_fetch;
  opt.configs_dir = o.out + "/configs";
  // The first Ctrl-C stops before the next training (at most one training's time); nothing is
  // written, since learn.json is written whole at the end. A second one ends the program at once.
  const InterruptFlag interrupt;
  opt.interrupt = &interrupt.flag();
  const auto start = std::chrono::steady_clock::now();
  ProgressLine line(!o.quiet);
  nlohmann::json result;
  try {
    result = learn::run_learn(opt, [&](double f, const std::string& what) { line.draw("learn", f, what); });
  } catch (const Cancelled&) {
    line.clear();
    std::cerr << "attnflow: learn interrupted; nothing written\n";
    return 130;
  }
  line.clear();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result["provenance"] = {
      {"version", kVersion},
      {"git", git_commit()},
      {"data", result["provenance_data"]},
      {"package", "sentiment@5.0.2 (npm, MIT): the UCI Sentiment Labelled Sentences, Kotzias et al., KDD 2015"},
      {"seconds", seconds},
      {"blas", result["provenance_blas"]}};
  result.erase("provenance_data");
  result.erase("provenance_blas");
  write_file_atomically(o.out + "/learn.json", result.dump(1) + "\n");
  if (!o.quiet) {
    for (const auto& [name, ds] : result["data_sets"].items()) {
      std::cout << "attnflow: " << name << " (" << ds["sentences"] << " sentences, " << opt.folds << "-fold CV):\n";
      for (const auto& [id, v] : ds["variants"].items())
        std::cout << fmt::format("  {:<16} accuracy {:.3f}  95% CI [{:.3f}, {:.3f}]\n", id, v["accuracy"].get<double>(),
                                 v["ci_low"].get<double>(), v["ci_high"].get<double>());
      for (const auto& c : ds["comparisons"])
        std::cout << fmt::format("  {}: difference {:+.3f} [{:+.3f}, {:+.3f}], p = {:.3g}: {}\n",
                                 c["claim"].get<std::string>(), c["mean_difference"].get<double>(),
                                 c["ci_low"].get<double>(), c["ci_high"].get<double>(), c["p_value"].get<double>(),
                                 c["verdict"].get<std::string>());
      for (const auto& [id, m] : ds["mechanism"].items()) {
        const auto& sh = m["shapes_after_long"];
        std::cout << fmt::format(
            "  {} after {} layers: one cluster {}, two antipodal {}, neither {} (of {}; delta {})\n", id,
            m["layers_long"].get<int>(), sh["one cluster"].get<long>(), sh["two antipodal clusters"].get<long>(),
            sh["neither"].get<long>(), m["sentences"].get<long>(), m["delta"].get<double>());
      }
    }
    std::cout << fmt::format("attnflow: wrote {}/learn.json ({:.0f} s)\n", o.out, seconds);
  }
  return 0;
}

void add_learn_options(CLI::App& app, LearnCliOptions& o) {
  app.add_option("--data", o.data, "imdb, yelp, amazon (comma-separated) or all")->capture_default_str();
  app.add_option("--variants", o.variants, "comma-separated: plus, minus, minus-per-layer, nn, sa-ffn, lexicon")
      ->capture_default_str();
  app.add_option("--folds", o.run.folds, "cross-validation folds")->check(CLI::Range(2, 100))->capture_default_str();
  app.add_option("--repeats", o.run.repeats, "cross-validations with other splits and initial weights")
      ->check(CLI::Range(1, 20))
      ->capture_default_str();
  app.add_option("--layers", o.run.arch.layers, "attention layers L")->check(CLI::Range(1, 32))->capture_default_str();
  app.add_option("--dim", o.run.arch.d, "embedding dimension d")->check(CLI::Range(2, 256))->capture_default_str();
  app.add_option("--epochs", o.run.training.epochs, "training epochs")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--seed", o.run.seed, "seed of the splits, the initial weights and the batch order")
      ->check(attnflow::cli::seed_value())
      ->capture_default_str();
  app.add_option("--threads", o.run.threads, "trainings at once (default: all cores; the results do not depend on it)")
      ->check(CLI::Range(0, 256));
  app.add_option("--horizon", o.run.horizon_blocks, "the long run: the L trained layers repeated this often")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--mechanism-sentences", o.run.mechanism_sentences,
                 "sentences per data set whose dynamics are measured")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--prove", o.run.prove_sentences,
                 "V = +alpha I: prove collapse rigorously for at most this many measured sentences whose start "
                 "lies in no open hemisphere")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option("--out", o.out, "output directory")->check(non_empty_path())->capture_default_str();
  app.add_flag("--no-fetch", o.no_fetch, "never run npm: a missing data file is an error");
  app.add_flag("--quiet", o.quiet, "print nothing on success");
}

}  // namespace

}  // namespace attnflow::cli

int main(int argc, char** argv) {
  CLI::App app{
      "attnflow learn: train the blog's V = ±alpha I attention classifiers on real text, cross-validate "
      "them and measure their dynamics (DIR/learn.json)",
      "attnflow learn"};
  attnflow::cli::LearnCliOptions o;
  attnflow::cli::add_learn_options(app, o);
  return attnflow::cli::program_main(app, argc, argv, "attnflow learn",
                                     [&] { return attnflow::cli::run_learn_command(o); });
}
