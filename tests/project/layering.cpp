// The layers never reach back: every #include "attnflow/…" under lib/ points to the
// file's own layer or a lower one, in the order of lib/attnflow/layers.txt. A back-include fails
// unless layers.txt lists it as an exception (none today), and so does a listed one that has gone.
// The checker is shown to fail on a back-include planted in a scratch tree. And at link level:
// each layer is a static library of its own (CMakeLists.txt), and no layer's objects need a
// symbol that only a higher layer's library defines (read with nm from the built archives).
#include <boost/test/unit_test.hpp>

#include "attnflow/version.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Layers {
  std::map<std::string, int> rank;                        // "model/", "tokens.hpp" → level
  std::set<std::pair<std::string, std::string>> allowed;  // (file under lib/, included header)
};

Layers read_layers(const fs::path& file) {
  Layers L;
  std::ifstream in(file);
  BOOST_REQUIRE_MESSAGE(in, "cannot read " << file);
  std::string line;
  int level = 0;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    if (!(words >> kind) || kind[0] == '#') continue;
    if (kind == "layer") {
      for (std::string name; words >> name;) L.rank[name] = level;
      ++level;
    } else if (kind == "exception") {
      std::string from, to;
      words >> from >> to;
      L.allowed.insert({from, to});
    } else {
      BOOST_FAIL(file << ": unknown line: " << line);
    }
  }
  return L;
}

/// The layer a file under lib/ belongs to ("" if none is named).
std::string layer_of(const std::string& rel) {
  const fs::path p(rel);
  auto it = p.begin();
  const std::string top = (it++)->string();
  if (top == "cli") return "cli/";
  if (top == "bench") return "microbench/";
  if (top != "attnflow" || it == p.end()) return "";
  const std::string first = (it++)->string();
  if (it != p.end()) return first + "/";
  std::string stem = first.substr(0, first.find('.'));
  return stem + ".hpp";
}

std::string layer_of_header(const std::string& header) {
  const auto slash = header.find('/');
  return slash == std::string::npos ? header : header.substr(0, slash + 1);
}

struct Finding {
  std::vector<std::string> back;     // "file → header" not allowed
  std::vector<std::string> unknown;  // a file or header in no layer
  std::set<std::pair<std::string, std::string>> seen_allowed;
};

Finding scan(const fs::path& lib, const Layers& L) {
  Finding f;
  const std::regex include(R"re(#\s*include\s*"attnflow/([^"]+)")re");
  for (const auto& e : fs::recursive_directory_iterator(lib)) {
    if (!e.is_regular_file()) continue;
    const std::string ext = e.path().extension().string();
    if (ext != ".hpp" && ext != ".cpp" && ext != ".in") continue;
    const std::string rel = fs::relative(e.path(), lib).generic_string();
    const std::string from = layer_of(rel);
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator m(s.begin(), s.end(), include), end; m != end; ++m) {
      const std::string header = (*m)[1];
      const std::string to = layer_of_header(header);
      if (!L.rank.count(from) || !L.rank.count(to)) {
        f.unknown.push_back(rel + " → " + header);
        continue;
      }
      if (L.rank.at(to) <= L.rank.at(from)) continue;
      if (L.allowed.count({rel, header}))
        f.seen_allowed.insert({rel, header});
      else
        f.back.push_back(rel + " → " + header);
    }
  }
  return f;
}

/// The external symbols of one archive: those its objects define and those they need.
struct ArchiveSymbols {
  std::set<std::string> defined, undefined;
};

/// nm's portable output (-P: "name type value size", one symbol a line) of one archive.
ArchiveSymbols read_archive(const std::string& archive) {
  ArchiveSymbols a;
  const std::string command = "nm -g -P '" + archive + "' 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  BOOST_REQUIRE_MESSAGE(pipe, "cannot run nm on " << archive);
  char buf[8192];
  while (std::fgets(buf, sizeof buf, pipe)) {
    std::istringstream line(buf);
    std::string name, type;
    if (!(line >> name >> type) || type.size() != 1 || name.back() == ':') continue;  // "lib.a[x.o]:" headers
    if (type == "U" || type == "w" || type == "v")
      a.undefined.insert(name);
    else
      a.defined.insert(name);
  }
  BOOST_REQUIRE_MESSAGE(::pclose(pipe) == 0, "nm failed on " << archive);
  return a;
}

/// "layer i needs symbol s": s is undefined in archive i, defined in a higher archive and in no
/// archive at or below i. Archives are given lowest first.
std::vector<std::string> upward_references(const std::vector<std::string>& names, const std::vector<ArchiveSymbols>& layers) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < layers.size(); ++i)
    for (const std::string& sym : layers[i].undefined) {
      bool below = false;
      for (std::size_t j = 0; j <= i && !below; ++j) below = layers[j].defined.count(sym) > 0;
      if (below) continue;
      for (std::size_t j = i + 1; j < layers.size(); ++j)
        if (layers[j].defined.count(sym)) {
          out.push_back(names[i] + " needs " + sym + " from " + names[j]);
          break;
        }
    }
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += "\n  " + s;
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(layering)

BOOST_AUTO_TEST_CASE(no_include_reaches_back_up_the_data_flow) {
  const fs::path lib = fs::path(attnflow::source_dir()) / "lib";
  const Layers L = read_layers(lib / "attnflow" / "layers.txt");
  const Finding f = scan(lib, L);
  BOOST_TEST(f.back.empty(), "back-includes (a lower layer naming a higher one):" << join(f.back));
  BOOST_TEST(f.unknown.empty(), "files or headers in no layer of layers.txt:" << join(f.unknown));
  std::vector<std::string> gone;
  for (const auto& a : L.allowed)
    if (!f.seen_allowed.count(a)) gone.push_back(a.first + " → " + a.second);
  BOOST_TEST(gone.empty(), "exceptions in layers.txt that no longer exist (remove them):" << join(gone));
}

BOOST_AUTO_TEST_CASE(a_planted_back_include_is_found) {
  const fs::path root = fs::temp_directory_path() / ("attnflow-layering-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "attnflow" / "model");
  fs::create_directories(root / "attnflow" / "suite");
  std::ofstream(root / "attnflow" / "suite" / "runner.hpp") << "#include \"attnflow/model/field.hpp\"\n";
  std::ofstream(root / "attnflow" / "model" / "field.hpp") << "#include \"attnflow/suite/runner.hpp\"\n";
  const Layers L = read_layers(fs::path(attnflow::source_dir()) / "lib" / "attnflow" / "layers.txt");
  const Finding f = scan(root, L);
  fs::remove_all(root);
  BOOST_REQUIRE_EQUAL(f.back.size(), 1u);
  BOOST_TEST(f.back[0] == "attnflow/model/field.hpp → suite/runner.hpp");
}

BOOST_AUTO_TEST_CASE(no_layer_library_needs_a_symbol_of_a_higher_one) {
  const char* list = std::getenv("ATTNFLOW_LAYER_ARCHIVES");
  BOOST_TEST_REQUIRE((list != nullptr && *list), "ATTNFLOW_LAYER_ARCHIVES is not set (ctest sets it)");
  std::vector<std::string> names;
  std::vector<ArchiveSymbols> layers;
  std::istringstream in(list);
  for (std::string archive; std::getline(in, archive, ':');) {
    names.push_back(fs::path(archive).filename().string());
    layers.push_back(read_archive(archive));
  }
  BOOST_TEST(layers.size() == 13u);  // base and the twelve layers of CMakeLists.txt
  // The libraries' order is layers.txt's: libattnflow_<folder>.a ranks as <folder>/ does there.
  const Layers L = read_layers(fs::path(attnflow::source_dir()) / "lib" / "attnflow" / "layers.txt");
  int previous = -1;
  for (std::size_t i = 1; i < names.size(); ++i) {
    const std::string folder = names[i].substr(std::string("libattnflow_").size(),
                                               names[i].size() - std::string("libattnflow_").size() - 2) + "/";
    BOOST_TEST_REQUIRE(L.rank.count(folder) == 1u, names[i] << ": " << folder << " is not a layer of layers.txt");
    BOOST_TEST(L.rank.at(folder) > previous, names[i] << " is out of layers.txt's order");
    previous = L.rank.at(folder);
  }
  std::size_t symbols = 0;
  for (const auto& l : layers) symbols += l.defined.size();
  BOOST_TEST(symbols > 1000u);  // nm read the archives
  const auto up = upward_references(names, layers);
  BOOST_TEST(up.empty(), "symbols a layer needs from a higher one:" << join(up));
}

BOOST_AUTO_TEST_CASE(a_planted_upward_symbol_is_found) {
  std::vector<ArchiveSymbols> layers(3);
  layers[0].undefined = {"_Z4leafv", "memcpy"};  // memcpy: from the C library, in no layer
  layers[1].defined = {"_Z6middlev"};
  layers[1].undefined = {"_Z3topv", "_Z6sharedv"};
  layers[1].defined.insert("_Z6sharedv");
  layers[2].defined = {"_Z3topv", "_Z4leafv", "_Z6sharedv"};
  const auto up = upward_references({"base", "middle", "top"}, layers);
  BOOST_REQUIRE_EQUAL(up.size(), 2u);
  BOOST_TEST(up[0] == "base needs _Z4leafv from top");
  BOOST_TEST(up[1] == "middle needs _Z3topv from top");
}

BOOST_AUTO_TEST_SUITE_END()
