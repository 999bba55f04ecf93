#include "attnflow/report/prose_math.hpp"

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "attnflow/report/key_labels.hpp"
#include "attnflow/report/latex_escape.hpp"

namespace attnflow {

namespace {

bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool alnum(char c) { return alpha(c) || digit(c); }

const std::map<std::string, std::string>& greek() {
  static const std::map<std::string, std::string> g = {
      {"alpha", "\\alpha"},   {"beta", "\\beta"},     {"gamma", "\\gamma"}, {"delta", "\\delta"},
      {"eps", "\\varepsilon"}, {"epsilon", "\\varepsilon"}, {"eta", "\\eta"}, {"theta", "\\theta"},
      {"lambda", "\\lambda"}, {"mu", "\\mu"},         {"nu", "\\nu"},       {"xi", "\\xi"},
      {"pi", "\\pi"},         {"rho", "\\rho"},       {"sigma", "\\sigma"}, {"tau", "\\tau"},
      {"phi", "\\varphi"},    {"chi", "\\chi"},       {"psi", "\\psi"},     {"omega", "\\omega"},
      {"Gamma", "\\Gamma"},   {"Delta", "\\Delta"},   {"Theta", "\\Theta"}, {"Lambda", "\\Lambda"},
      {"Xi", "\\Xi"},         {"Pi", "\\Pi"},         {"Sigma", "\\Sigma"}, {"Phi", "\\Phi"},
      {"Psi", "\\Psi"},       {"Omega", "\\Omega"}};
  return g;
}

const std::map<std::string, std::string>& operator_names() {
  static const std::map<std::string, std::string> o = {{"max", "\\max"}, {"min", "\\min"}, {"sup", "\\sup"},
                                                       {"inf", "\\inf"}, {"log", "\\log"}, {"exp", "\\exp"},
                                                       {"lim", "\\lim"}, {"sum", "\\sum"}};
  return o;
}

/// ASCII operators and their symbols, longest first where one is a prefix of another.
const std::vector<std::pair<std::string, std::string>>& ascii_operators() {
  static const std::vector<std::pair<std::string, std::string>> ops = {
      {"->", "\\to"}, {"=>", "\\Rightarrow"}, {">=", "\\geq"}, {"<=", "\\leq"}, {"!=", "\\neq"}, {"+-", "\\pm"}};
  return ops;
}

/// The index of the bracket closing the one at `open`, nested brackets counted; npos if none.
std::size_t closing(const std::string& s, std::size_t open) {
  const char o = s[open], c = o == '(' ? ')' : o == '{' ? '}' : o == '[' ? ']' : '>';
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == o) ++depth;
    if (s[i] == c && --depth == 0) return i;
  }
  return std::string::npos;
}

/// `<a, b>` (an inner product) starting at i: the index of its '>', or npos.
std::size_t inner_product_end(const std::string& s, std::size_t i) {
  if (s[i] != '<' || i + 1 >= s.size() || s[i + 1] == ' ' || s[i + 1] == '=') return std::string::npos;
  const std::size_t end = s.find('>', i + 1);
  if (end == std::string::npos || end - i > 80) return std::string::npos;
  const std::string inside = s.substr(i + 1, end - i - 1);
  if (inside.find('<') != std::string::npos || inside.find(',') == std::string::npos || inside.back() == ' ')
    return std::string::npos;
  return end;
}

/// A number written 1e-06 or 2.5e+3 starting at i: its length, or 0.
std::size_t exponent_number(const std::string& s, std::size_t i) {
  std::size_t k = i;
  while (k < s.size() && digit(s[k])) ++k;
  if (k == i) return 0;
  if (k < s.size() && s[k] == '.') {
    ++k;
    while (k < s.size() && digit(s[k])) ++k;
  }
  if (k >= s.size() || s[k] != 'e') return 0;
  ++k;
  if (k < s.size() && (s[k] == '-' || s[k] == '+')) ++k;
  const std::size_t first = k;
  while (k < s.size() && digit(s[k])) ++k;
  if (k == first || (k < s.size() && alnum(s[k]))) return 0;
  return k - i;
}

std::string exponent_number_tex(const std::string& n) {
  const std::size_t e = n.find('e');
  const std::string mantissa = n.substr(0, e);
  std::string exponent = n.substr(e + 1);
  const bool negative = !exponent.empty() && exponent[0] == '-';
  if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) exponent.erase(0, 1);
  exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
  const std::string power = "10^{" + std::string(negative ? "-" : "") + exponent + "}";
  return mantissa == "1" ? power : mantissa + "\\cdot " + power;
}

std::string math_body(const std::string& s);

/// One word in mathematics: a Greek letter or an operator name as its command, a letter or
/// number as itself, a longer word upright.
std::string math_word(const std::string& w) {
  // No space after the command: what follows a word is never a letter (words are maximal runs).
  if (const auto g = greek().find(w); g != greek().end()) return g->second;
  if (const auto o = operator_names().find(w); o != operator_names().end()) return o->second;
  bool digits = true;
  for (char c : w) digits = digits && (digit(c) || c == '.');
  if (w.size() == 1 || digits) return w;
  return "\\mathrm{" + w + "}";
}

/// A sub- or superscript's argument starting at i (after the _ or ^): a braced or parenthesised
/// group, "T" (the transpose), or a run of letters and digits with an optional sign. Its LaTeX
/// and the index after it; nullopt when nothing there reads as an argument.
std::optional<std::pair<std::string, std::size_t>> script_argument(const std::string& s, std::size_t i, bool super) {
  if (i >= s.size()) return std::nullopt;
  if (s[i] == '{' || s[i] == '(') {
    const std::size_t end = closing(s, i);
    if (end == std::string::npos) return std::nullopt;
    return std::make_pair("{" + math_body(s.substr(i + 1, end - i - 1)) + "}", end + 1);
  }
  if (super && s[i] == 'T' && (i + 1 >= s.size() || !alnum(s[i + 1]))) return std::make_pair(std::string("\\top"), i + 1);
  if (super && s[i] == '*') return std::make_pair(std::string("*"), i + 1);
  std::size_t k = i + (s[i] == '-' && super ? 1 : 0);
  const std::size_t first = k;
  while (k < s.size() && alnum(s[k])) ++k;
  // A decimal exponent (t^-0.41): its fraction too.
  if (k > first && digit(s[first]) && k + 1 < s.size() && s[k] == '.' && digit(s[k + 1]))
    for (++k; k < s.size() && digit(s[k]);) ++k;
  if (k == first) return std::nullopt;
  return std::make_pair("{" + std::string(s[i] == '-' ? "-" : "") + math_word(s.substr(first, k - first)) + "}", k);
}

/// Escapes one character for math mode (ASCII only; anything else goes through an \mbox).
std::string math_char(char c) {
  switch (c) {
    case '%': return "\\%";
    case '#': return "\\#";
    case '&': return "\\&";
    case '$': return "\\$";
    case '\\': return "\\backslash ";
    case '~': return "\\sim ";
    case '{': return "\\{";
    case '}': return "\\}";
    case '_': return "\\_";
    case '^': return "\\hat{}";
    case '\n': return " ";
    default: return std::string(1, c);
  }
}

/// A whole string in math mode.
std::string math_body(const std::string& s) {
  std::string out;
  bool has_sub = false, has_sup = false;  // since the last base: TeX refuses a second one
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\'' && has_sup) {
      out += "{}'";  // x^2' would be a double superscript
      ++i;
      continue;
    }
    if (c != '_' && c != '^' && c != '\'') has_sub = has_sup = false;
    if (static_cast<unsigned char>(c) >= 0x80) {
      std::size_t k = i;
      while (k < s.size() && static_cast<unsigned char>(s[k]) >= 0x80) ++k;
      out += "\\mbox{" + latex_escape(s.substr(i, k - i)) + "}";
      i = k;
      continue;
    }
    if (s.compare(i, 5, "sqrt(") == 0 && (i == 0 || !alnum(s[i - 1]))) {
      if (const std::size_t end = closing(s, i + 4); end != std::string::npos) {
        out += "\\sqrt{" + math_body(s.substr(i + 5, end - i - 5)) + "}";
        i = end + 1;
        continue;
      }
    }
    bool matched = false;
    for (const auto& [ascii, symbol] : ascii_operators())
      if (s.compare(i, ascii.size(), ascii) == 0) {
        out += symbol + " ";
        i += ascii.size();
        matched = true;
        break;
      }
    if (matched) continue;
    if (const std::size_t end = inner_product_end(s, i); end != std::string::npos) {
      out += "\\langle " + math_body(s.substr(i + 1, end - i - 1)) + "\\rangle ";
      i = end + 1;
      continue;
    }
    if (digit(c) && (i == 0 || !alnum(s[i - 1])))
      if (const std::size_t n = exponent_number(s, i)) {
        out += exponent_number_tex(s.substr(i, n));
        i += n;
        continue;
      }
    if (alnum(c)) {
      std::size_t k = i;
      while (k < s.size() && alnum(s[k])) ++k;
      // A number and a letter ("2n") are two words.
      std::size_t split = i;
      while (split < k && digit(s[split])) ++split;
      if (split > i && split < k) k = split;
      out += math_word(s.substr(i, k - i));
      i = k;
      continue;
    }
    if ((c == '_' && !has_sub) || (c == '^' && !has_sup))
      if (const auto arg = script_argument(s, i + 1, c == '^')) {
        out += std::string(1, c) + arg->first;
        (c == '_' ? has_sub : has_sup) = true;
        i = arg->second;
        continue;
      }
    out += math_char(c);
    ++i;
  }
  return out;
}

/// A path or a file name ("configs/A-2.1_3.json"): shown verbatim.
bool looks_like_path(const std::string& chunk) {
  if (chunk.find("://") != std::string::npos) return true;
  for (const char* ext : {".json", ".tex", ".pdf", ".csv", ".txt", ".hpp", ".cpp"})
    if (chunk.find(ext) != std::string::npos) return true;
  return chunk.find('/') != std::string::npos && chunk.find('.') != std::string::npos;
}

/// The LaTeX being written: text, and mathematics that merges with the mathematics right before
/// it (two $…$ pieces side by side would make TeX's display-math $$).
struct Output {
  std::string tex;
  bool last_is_math = false;
  void text(const std::string& t) {
    if (t.empty()) return;
    if (!tex.empty() && tex.back() == '$' && t.front() == '$') tex += "{}";
    tex += t;
    last_is_math = false;
  }
  void math(const std::string& m) {
    if (last_is_math) {
      tex.pop_back();
      tex += " " + m + "$";
    } else {
      if (!tex.empty() && tex.back() == '$') tex += "{}";
      tex += "$" + m + "$";
    }
    last_is_math = true;
  }
};

/// An identifier with its scripts starting at i ("x_i", "z_i^ref", "Q^T", "S^{d-1}", "x*",
/// "Delta_k", "max_{t,i}"): its mathematics and the index after it, when it reads as a symbol.
std::optional<std::pair<std::string, std::size_t>> symbol_at(const std::string& s, std::size_t i) {
  std::size_t k = i;
  while (k < s.size() && alnum(s[k])) ++k;
  const std::string base = s.substr(i, k - i);
  const bool greek_base = greek().count(base) > 0, operator_base = operator_names().count(base) > 0;
  const bool letter_base = base.size() == 1 && alpha(base[0]);
  const bool short_base = base.size() <= 3;
  std::string tex = math_word(base);
  bool scripted = false, short_scripts = true, has_sub = false, has_sup = false;
  for (;;) {
    if (k < s.size() && (s[k] == '_' || s[k] == '^')) {
      // A second subscript or superscript ("ctl_odd_id") is no symbol: TeX refuses x_a_b.
      if (s[k] == '_' ? has_sub : has_sup) return std::nullopt;
      (s[k] == '_' ? has_sub : has_sup) = true;
      const std::size_t arg_start = k + 1;
      const auto arg = script_argument(s, arg_start, s[k] == '^');
      if (!arg) break;
      std::size_t word_end = arg_start;
      while (word_end < s.size() && alnum(s[word_end])) ++word_end;
      const std::string word = s.substr(arg_start, word_end - arg_start);
      if (word.size() > 3 && !greek().count(word)) short_scripts = false;
      tex += std::string(1, s[k]) + arg->first;
      k = arg->second;
      scripted = true;
      continue;
    }
    // A prime, not the possessive of "F's band".
    const bool possessive = k + 1 < s.size() && s[k + 1] == 's' && (k + 2 >= s.size() || !alnum(s[k + 2]));
    if (k < s.size() && s[k] == '\'' && !possessive && (scripted || letter_base) && !has_sup) {
      tex += "'";
      ++k;
      scripted = has_sup = true;
      continue;
    }
    // x* (a distinguished point), not a product: nothing alphanumeric follows.
    if (k < s.size() && s[k] == '*' && (k + 1 >= s.size() || !alnum(s[k + 1])) && (letter_base || greek_base) &&
        !has_sup) {
      tex += "^*";
      ++k;
      scripted = has_sup = true;
      continue;
    }
    break;
  }
  if (!scripted) {
    if (greek_base) return std::make_pair(tex, k);
    return std::nullopt;
  }
  if (!short_scripts || !(greek_base || operator_base || letter_base || short_base)) return std::nullopt;
  return std::make_pair(tex, k);
}

}  // namespace

std::string prose_tex(const std::string& s) {
  Output out;
  std::string pending;  // plain text not yet escaped
  auto flush = [&] {
    out.text(latex_escape(pending));
    pending.clear();
  };
  auto math = [&](const std::string& m) {
    // Spaces between two pieces of mathematics stay inside it.
    if (out.last_is_math && !pending.empty() && pending.find_first_not_of(' ') == std::string::npos) pending.clear();
    flush();
    out.math(m);
  };
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    const bool word_start = i == 0 || !(alnum(s[i - 1]) || s[i - 1] == '_');
    if (i == 0 || s[i - 1] == ' ') {
      const std::size_t end = std::min(s.find(' ', i), s.size());
      const std::string chunk = s.substr(i, end - i);
      if (looks_like_path(chunk)) {
        pending += chunk;
        i = end;
        continue;
      }
    }
    if (word_start && s.compare(i, 5, "sqrt(") == 0)
      if (const std::size_t end = closing(s, i + 4); end != std::string::npos) {
        math("\\sqrt{" + math_body(s.substr(i + 5, end - i - 5)) + "}");
        i = end + 1;
        continue;
      }
    bool matched = false;
    for (const auto& [ascii, symbol] : ascii_operators())
      if (s.compare(i, ascii.size(), ascii) == 0) {
        math(symbol);
        i += ascii.size();
        matched = true;
        break;
      }
    if (matched) continue;
    if (const std::size_t end = inner_product_end(s, i); end != std::string::npos) {
      math("\\langle " + math_body(s.substr(i + 1, end - i - 1)) + "\\rangle");
      i = end + 1;
      continue;
    }
    if (word_start && digit(c)) {
      if (const std::size_t n = exponent_number(s, i)) {
        math(exponent_number_tex(s.substr(i, n)));
        i += n;
        continue;
      }
      std::size_t k = i;
      while (k < s.size() && (digit(s[k]) || s[k] == '.')) ++k;
      if (k < s.size() && s[k] == '^')
        if (const auto arg = script_argument(s, k + 1, true)) {
          math(s.substr(i, k - i) + "^" + arg->first);
          i = arg->second;
          continue;
        }
    }
    if (word_start && alpha(c)) {
      std::size_t k = i;
      while (k < s.size() && (alnum(s[k]) || s[k] == '_')) ++k;
      while (k > i && s[k - 1] == '_') --k;
      const std::string run = s.substr(i, k - i);
      const bool snake = run.find('_') != std::string::npos;
      if (snake)
        if (const auto label = find_key_label(run)) {
          // The label's own mathematics typeset too (a label never contains a key: no recursion).
          const bool plain = label->label.find('_') == std::string::npos;
          flush();
          out.text(plain ? prose_tex(label->label) : latex_escape(label->label));
          i = k;
          continue;
        }
      if (const auto symbol = symbol_at(s, i)) {
        math(symbol->first);
        i = symbol->second;
        continue;
      }
      bool letters_only = true;
      for (char w : run) letters_only = letters_only && (alpha(w) || w == '_');
      if (snake && letters_only) {
        std::string words = run;
        for (char& w : words)
          if (w == '_') w = ' ';
        pending += words;
        i = k;
        continue;
      }
      pending += run;
      i = k;
      continue;
    }
    // A minus sign, not a hyphen: before a number or a symbol ("V = -I", "-0.5") or between
    // spaces ("|D - 0|"); a hyphen inside a word ("non-decreasing") stays.
    if (c == '-' && i + 1 < s.size() && (i == 0 || std::string(" (=[,:;").find(s[i - 1]) != std::string::npos) &&
        (alnum(s[i + 1]) || (s[i + 1] == ' ' && i > 0 && s[i - 1] == ' '))) {
      math("-");
      ++i;
      continue;
    }
    // A comparison between spaces: "lambda < 0".
    if ((c == '<' || c == '>') && i > 0 && s[i - 1] == ' ' && i + 1 < s.size() && s[i + 1] == ' ') {
      math(std::string(1, c));
      ++i;
      continue;
    }
    pending += c;
    ++i;
  }
  flush();
  return out.tex;
}

}  // namespace attnflow
