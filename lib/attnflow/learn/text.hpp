#pragma once
// Words to token ids, and the folds of the cross-validation.
#include "attnflow/learn/sentiment_data.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnflow::learn {

/// Lower case, split on every character that is not an ASCII letter; empty pieces dropped.
std::vector<std::string> tokenize(const std::string& text);

/// Words of the training folds → ids 1…V; id 0 is the one unknown-word token.
class Vocabulary {
 public:
  static constexpr int kUnknown = 0;
  void add(const std::string& word);
  int id(const std::string& word) const;
  int size() const { return static_cast<int>(ids_.size()) + 1; }  // with the unknown token
  /// A sentence as ids; a sentence without any word is the single unknown token.
  std::vector<int> encode(const std::string& text) const;

 private:
  std::map<std::string, int> ids_;
};

/// Stratified k-fold assignment: each class shuffled with `seed`, then dealt round-robin, so every
/// fold holds ⌊n_c/k⌋ or ⌈n_c/k⌉ sentences of class c. Returns fold index per sentence.
std::vector<int> stratified_folds(const std::vector<Sentence>& sentences, int k, std::uint64_t seed);

/// A seed derived from a base seed and a path of indices (splitmix64 steps): independent streams
/// for (repeat, fold, variant) that do not depend on the order in which they are run.
std::uint64_t derive_seed(std::uint64_t base, std::initializer_list<std::uint64_t> path);

}  // namespace attnflow::learn
