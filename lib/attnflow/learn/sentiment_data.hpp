#pragma once
// The real text of the blog's experiment: the UCI "Sentiment Labelled Sentences"
// (Kotzias et al., KDD 2015) as the npm package sentiment@5.0.2 ships them (1,000 IMDb, Yelp and
// Amazon sentences each, 500 positive and 500 negative), and its AFINN-165 lexicon. The package is
// fetched once with npm (`npm pack`, no shell), unpacked with tar, and every file is checked
// against a pinned SHA-256 before it is read.
#include <map>
#include <string>
#include <vector>

namespace attnflow::learn {

struct Sentence {
  std::string text;
  int label = 0;  // 1 positive, 0 negative
};

struct Corpus {
  std::string name;  // imdb | yelp | amazon
  std::vector<Sentence> sentences;
  std::string sha256;  // of the file read
};

/// The data sets the package ships.
const std::vector<std::string>& corpus_names();

/// Where the unpacked package lives: $ATTNFLOW_DATA_DIR, else $XDG_CACHE_HOME/attnflow, else
/// $HOME/.cache/attnflow; the files are under <dir>/sentiment-5.0.2/.
std::string data_directory();

/// Fetches and unpacks the package into data_directory() when a file is missing (npm and tar on
/// PATH). Throws InputError (one line, how to fetch by hand) when it cannot.
void ensure_sentiment_package(bool allow_fetch);

/// Reads one data set after checking its pinned SHA-256; drops the package's trailing entry with
/// a null class. A missing or altered file is an InputError saying how to fetch it.
Corpus load_corpus(const std::string& name);

/// The AFINN-165 lexicon (word → valence −5…5), checked the same way.
std::map<std::string, int> load_afinn();

/// Hex SHA-256 of a file's bytes (nettle).
std::string sha256_of_file(const std::string& path);

}  // namespace attnflow::learn
