#include "attnflow/learn/sentiment_data.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/io/process.hpp"

#include <nettle/sha2.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace attnflow::learn {

namespace {

const char* const kPackage = "sentiment@5.0.2";
const char* const kFolder = "sentiment-5.0.2";
const char* const kTarball = "sentiment-5.0.2.tgz";
const char* const kTarballSha = "89302eb03d2005d03b214fe65814bb48adb7d3c42c8ca80bdee6a3ecb7e4480f";

struct PinnedFile {
  const char* name;  // data set or "afinn"
  const char* path;  // inside the package
  const char* sha256;
};
const PinnedFile kFiles[] = {
    {"imdb", "test/fixtures/imdb.json", "44a7b9082ed732ee2de3c858ea5ee2e99aca34f239a1c4359d3a300bf099bdb5"},
    {"yelp", "test/fixtures/yelp.json", "9f3f47983f21eeb819380767b74bfa648eca208f156241111454b3e122773ff7"},
    {"amazon", "test/fixtures/amazon.json", "bc5eb0cac49fc45987301f1dc2d02cf5ca356ba6c882be179dce77d74e666ed9"},
    {"afinn", "languages/en/labels.json", "c632f16659901337310443c0a9981bef230704ef46ec70fbd08be5b9890341ea"},
};

std::string how_to_fetch() {
  return std::string("fetch it with 'npm pack ") + kPackage + "' and 'tar -xzf " + kTarball +
         "', then move package/ to " + (fs::path(data_directory()) / kFolder).string() +
         " (or let 'attnflow learn' fetch it: npm and tar on PATH)";
}

const PinnedFile& pinned(const std::string& name) {
  for (const auto& f : kFiles)
    if (name == f.name && name != "afinn") return f;
  std::string known;
  for (const auto& n : corpus_names()) known += (known.empty() ? "" : ", ") + n;
  input_error("--data", "unknown data set '" + name + "'; known: " + known + ", all");
}

fs::path package_root() { return fs::path(data_directory()) / kFolder; }

/// The checked path of a pinned file, or an InputError naming what is wrong and how to fetch.
std::string checked_path(const PinnedFile& f) {
  const fs::path p = package_root() / f.path;
  if (!fs::is_regular_file(p)) input_error("data", p.string() + " is missing; " + how_to_fetch());
  const std::string got = sha256_of_file(p.string());
  if (got != f.sha256)
    input_error("data", p.string() + " has SHA-256 " + got.substr(0, 16) + "…, not the pinned " +
                            std::string(f.sha256).substr(0, 16) + "… of " + kPackage + "; delete " +
                            package_root().string() + " and " + how_to_fetch());
  return p.string();
}

bool all_files_present() {
  for (const auto& f : kFiles)
    if (!fs::is_regular_file(package_root() / f.path)) return false;
  return true;
}

}  // namespace

const std::vector<std::string>& corpus_names() {
  static const std::vector<std::string> names = {"imdb", "yelp", "amazon"};
  return names;
}

std::string data_directory() {
  if (const char* d = std::getenv("ATTNFLOW_DATA_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "attnflow").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "attnflow").string();
  input_error("data", "no place for the data: set ATTNFLOW_DATA_DIR (or HOME)");
}

std::string sha256_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) input_error("data", "cannot read " + path);
  sha256_ctx ctx;
  sha256_init(&ctx);
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    if (in.gcount() > 0) sha256_update(&ctx, static_cast<size_t>(in.gcount()), reinterpret_cast<const uint8_t*>(buf));
  }
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (uint8_t b : digest) {
    s += hex[b >> 4];
    s += hex[b & 15];
  }
  return s;
}

void ensure_sentiment_package(bool allow_fetch) {
  if (all_files_present()) return;
  if (!allow_fetch) input_error("data", (package_root() / kFiles[0].path).string() + " is missing; " + how_to_fetch());
  for (const char* tool : {"npm", "tar"})
    if (!on_path(tool)) input_error("data", std::string(tool) + " is not on PATH; " + how_to_fetch());
  std::error_code ec;
  fs::create_directories(data_directory(), ec);
  if (ec) input_error("data", "cannot create " + data_directory() + ": " + ec.message());
  // Unpack beside the target and rename, so an interrupted fetch never leaves a half folder.
  const fs::path scratch = fs::path(data_directory()) / (std::string(".fetch-") + std::to_string(::getpid()));
  fs::remove_all(scratch, ec);
  fs::create_directories(scratch, ec);
  if (ec) input_error("data", "cannot create " + scratch.string() + ": " + ec.message());
  const std::string log = (scratch / "fetch.log").string();
  auto fail = [&](const std::string& what) {
    std::string tail;
    if (std::ifstream l(log); l) {
      for (std::string line; std::getline(l, line);)
        if (!line.empty()) tail = line;
    }
    fs::remove_all(scratch, ec);
    input_error("data", what + (tail.empty() ? "" : " (" + tail + ")") + "; " + how_to_fetch());
  };
  const ProcessResult npm = run_program({"npm", "pack", kPackage, "--silent"}, scratch.string(), log, 600);
  if (!npm.started || npm.timed_out || npm.exit_code != 0) fail(std::string("'npm pack ") + kPackage + "' failed");
  const fs::path tarball = scratch / kTarball;
  if (!fs::is_regular_file(tarball)) fail(std::string("'npm pack' wrote no ") + kTarball);
  if (sha256_of_file(tarball.string()) != kTarballSha)
    fail(std::string(kTarball) + " does not match its pinned SHA-256");
  std::vector<std::string> tar = {"tar", "-xzf", kTarball};
  for (const auto& f : kFiles) tar.push_back(std::string("package/") + f.path);
  const ProcessResult untar = run_program(tar, scratch.string(), log, 300);
  if (!untar.started || untar.timed_out || untar.exit_code != 0) fail("unpacking " + std::string(kTarball) + " failed");
  fs::remove_all(package_root(), ec);
  fs::rename(scratch / "package", package_root(), ec);
  if (ec) fail("cannot move the package to " + package_root().string() + ": " + ec.message());
  fs::remove_all(scratch, ec);
}

Corpus load_corpus(const std::string& name) {
  const PinnedFile& f = pinned(name);
  Corpus c;
  c.name = name;
  const std::string path = checked_path(f);
  c.sha256 = f.sha256;
  std::ifstream in(path);
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) { input_error("data", path + ": not JSON: " + e.what()); }
  if (!j.is_array()) input_error("data", path + ": not a list of sentences");
  for (const auto& e : j) {
    if (!e.is_object() || !e.contains("class") || e["class"].is_null()) continue;  // the trailing empty entry
    if (!e.contains("text") || !e["text"].is_string() || !e["class"].is_number_integer())
      input_error("data", path + ": an entry without a text and a 0/1 class");
    const int label = e["class"].get<int>();
    if (label != 0 && label != 1) input_error("data", path + ": a class other than 0 or 1");
    c.sentences.push_back({e["text"].get<std::string>(), label});
  }
  return c;
}

std::map<std::string, int> load_afinn() {
  const PinnedFile& f = kFiles[3];
  const std::string path = checked_path(f);
  std::ifstream in(path);
  nlohmann::json j;
  in >> j;
  std::map<std::string, int> lexicon;
  for (auto it = j.begin(); it != j.end(); ++it) lexicon[it.key()] = it.value().get<int>();
  return lexicon;
}

}  // namespace attnflow::learn
