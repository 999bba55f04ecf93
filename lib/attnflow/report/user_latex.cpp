#include "attnflow/report/user_latex.hpp"

#include "attnflow/report/latex_escape.hpp"

#include <cctype>
#include <set>
#include <vector>

namespace attnflow {

namespace {

/// Commands of mathematics only: symbols, operators, fonts and spacing; none takes a file name,
/// defines anything or touches category codes, and each is defined by LaTeX with amsmath and
/// amssymb (the report's preamble): an accepted segment can still be ill-formed mathematics
/// ($\frac$ without arguments), which the report's LaTeX run reports, but never an unknown command.
const std::set<std::string>& math_commands() {
  static const std::set<std::string> s = {
      "alpha",  "beta",   "gamma",  "delta",   "epsilon", "varepsilon", "zeta",    "eta",     "theta",  "vartheta",
      "iota",   "kappa",  "lambda", "mu",      "nu",      "xi",         "pi",      "rho",     "sigma",  "tau",
      "upsilon", "phi",   "varphi", "chi",     "psi",     "omega",      "Gamma",   "Delta",   "Theta",  "Lambda",
      "Xi",     "Pi",     "Sigma",  "Phi",     "Psi",     "Omega",      "langle",  "rangle",  "le",     "ge",
      "leq",    "geq",    "ne",     "neq",     "approx",  "sim",        "simeq",   "equiv",   "propto", "ll",
      "gg",     "succ",   "prec",   "succeq",  "preceq",  "in",         "notin",   "subset",  "subseteq", "cup",
      "cap",    "times",  "cdot",   "pm",      "mp",      "circ",       "ast",     "oplus",   "otimes", "to",
      "mapsto", "Rightarrow", "Leftrightarrow", "infty", "partial", "nabla", "sum",  "prod",    "int",    "lim",
      "limsup", "liminf", "sup",    "inf",     "max",     "min",        "exp",     "log",     "ln",     "sin",
      "cos",    "tan",    "tanh",   "det",     "frac",       "tfrac",   "dfrac",   "sqrt",   "mathbb",
      "mathcal", "mathbf", "mathrm", "boldsymbol", "top", "perp",     "lVert",   "rVert",   "lvert",  "rvert",
      "|",      "{",      "}",      ",",       ";",       "!",          "quad",    "qquad",   "ldots",  "cdots",
      "dots",   "left",   "right",  "big",     "Big",     "bigl",       "bigr",    "hat",     "bar",    "tilde",
      "dot",    "ddot",   "vec",    "prime",   "mid",     "forall",     "exists",  "emptyset", "setminus", "lesssim",
      "gtrsim", "star",   "bullet", "ell",     "Re",      "Im",         "arg",     "operatorname"};
  return s;
}

bool plain_math(const std::string& m) {
  if (m.empty()) return false;
  int depth = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(m[i]);
    if (c >= 0x80) return false;  // non-ASCII inside math: left to the escaped form
    if (c == '{') ++depth;
    if (c == '}' && --depth < 0) return false;
    if (c == '%' || c == '#' || c == '&' || c == '~' || c == '@' || c == '"' || c == '`' || c < 0x20) return false;
    if (c == '\\') {
      std::size_t j = i + 1;
      std::string name;
      if (j < m.size() && std::isalpha(static_cast<unsigned char>(m[j]))) {
        while (j < m.size() && std::isalpha(static_cast<unsigned char>(m[j]))) name += m[j++];
      } else if (j < m.size()) {
        name = m[j++];
      }
      if (!math_commands().count(name)) return false;
      i = j - 1;
    }
  }
  return depth == 0;
}

}  // namespace

std::string user_statement_tex(const std::string& text) {
  std::vector<std::size_t> dollars;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '$' && (i == 0 || text[i - 1] != '\\')) dollars.push_back(i);
  if (dollars.size() % 2 != 0) return latex_escape(text);  // unmatched: nothing is math
  std::string out;
  std::size_t from = 0;
  for (std::size_t k = 0; k < dollars.size(); k += 2) {
    out += latex_escape(text.substr(from, dollars[k] - from));
    const std::string math = text.substr(dollars[k] + 1, dollars[k + 1] - dollars[k] - 1);
    out += plain_math(math) ? "$" + math + "$" : latex_escape("$" + math + "$");
    from = dollars[k + 1] + 1;
  }
  return out + latex_escape(text.substr(from));
}

}  // namespace attnflow
