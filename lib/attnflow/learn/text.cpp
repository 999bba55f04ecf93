#include "attnflow/learn/text.hpp"

#include "attnflow/random.hpp"

namespace attnflow::learn {

std::vector<std::string> tokenize(const std::string& text) {
  std::vector<std::string> words;
  std::string w;
  for (char ch : text) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
      w += static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    } else if (!w.empty()) {
      words.push_back(w);
      w.clear();
    }
  }
  if (!w.empty()) words.push_back(w);
  return words;
}

void Vocabulary::add(const std::string& word) { ids_.emplace(word, static_cast<int>(ids_.size()) + 1); }

int Vocabulary::id(const std::string& word) const {
  const auto it = ids_.find(word);
  return it == ids_.end() ? kUnknown : it->second;
}

std::vector<int> Vocabulary::encode(const std::string& text) const {
  std::vector<int> ids;
  for (const auto& w : tokenize(text)) ids.push_back(id(w));
  if (ids.empty()) ids.push_back(kUnknown);
  return ids;
}

std::vector<int> stratified_folds(const std::vector<Sentence>& sentences, int k, std::uint64_t seed) {
  std::vector<int> fold(sentences.size(), 0);
  SeededDraws draws(seed);
  int next = 0;  // the round-robin continues across classes so fold sizes differ by at most one
  for (int label : {0, 1}) {
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < sentences.size(); ++i)
      if (sentences[i].label == label) members.push_back(i);
    draws.shuffle(members.begin(), members.end());
    for (std::size_t i : members) {
      fold[i] = next;
      next = (next + 1) % k;
    }
  }
  return fold;
}

std::uint64_t derive_seed(std::uint64_t base, std::initializer_list<std::uint64_t> path) {
  auto mix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  std::uint64_t s = mix(base);
  for (std::uint64_t p : path) s = mix(s ^ mix(p + 1));
  return s;
}

}  // namespace attnflow::learn
