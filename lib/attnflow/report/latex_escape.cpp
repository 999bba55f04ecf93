#include "attnflow/report/latex_escape.hpp"

#include <cstdio>
#include <map>

namespace attnflow {

namespace {

/// The non-ASCII characters our own messages use, as LaTeX (pdflatex has no Unicode fonts by
/// default). Anything else is shown as its code point rather than breaking the document.
const std::map<char32_t, const char*>& unicode_table() {
  static const std::map<char32_t, const char*> t = {
      {U'α', "$\\alpha$"},
      {U'β', "$\\beta$"},
      {U'γ', "$\\gamma$"},
      {U'δ', "$\\delta$"},
      {U'ε', "$\\varepsilon$"},
      {U'ζ', "$\\zeta$"},
      {U'η', "$\\eta$"},
      {U'κ', "$\\kappa$"},
      {U'θ', "$\\theta$"},
      {U'λ', "$\\lambda$"},
      {U'μ', "$\\mu$"},
      {U'ν', "$\\nu$"},
      {U'ξ', "$\\xi$"},
      {U'π', "$\\pi$"},
      {U'ρ', "$\\rho$"},
      {U'σ', "$\\sigma$"},
      {U'τ', "$\\tau$"},
      {U'φ', "$\\varphi$"},
      {U'χ', "$\\chi$"},
      {U'ψ', "$\\psi$"},
      {U'ω', "$\\omega$"},
      {U'Δ', "$\\Delta$"},
      {U'Σ', "$\\Sigma$"},
      {U'Π', "$\\Pi$"},
      {U'Φ', "$\\Phi$"},
      {U'⟨', "$\\langle$"},
      {U'⟩', "$\\rangle$"},
      {U'−', "$-$"},
      {U'–', "--"},
      {U'—', "---"},
      {U'≈', "$\\approx$"},
      {U'≤', "$\\leq$"},
      {U'≥', "$\\geq$"},
      {U'≠', "$\\neq$"},
      {U'≲', "$\\lesssim$"},
      {U'≳', "$\\gtrsim$"},
      {U'×', "$\\times$"},
      {U'·', "$\\cdot$"},
      {U'√', "$\\surd$"},
      {U'∞', "$\\infty$"},
      {U'‖', "$\\|$"},
      {U'∈', "$\\in$"},
      {U'→', "$\\to$"},
      {U'⇒', "$\\Rightarrow$"},
      {U'…', "\\ldots{}"},
      {U'§', "\\S{}"},
      {U'²', "\\textsuperscript{2}"},
      {U'₀', "\\textsubscript{0}"},
      {U'₁', "\\textsubscript{1}"},
      {U'³', "\\textsuperscript{3}"},
      {U'±', "$\\pm$"},
      {U'∑', "$\\sum$"},
      {U'∂', "$\\partial$"},
      {U'𝟙', "$\\mathbf{1}$"},
      {U'‘', "`"},
      {U'’', "'"},
      {U'“', "``"},
      {U'”', "''"},
      {U'≻', "$\\succ$"},
      {U'∪', "$\\cup$"},
      {U'⊕', "$\\oplus$"},
      {U'⊗', "$\\otimes$"},
      {U'∗', "$*$"},
      {U'ᵀ', "\\textsuperscript{T}"},
      {U'₂', "$_2$"},
      {U'ᵢ', "$_i$"},
      {U'ⱼ', "$_j$"},
      {U'ₖ', "$_k$"},
      {U'é', "\\'e"},
      {U'ü', "\\\"u"},
      // Subscripts and superscripts used in axis labels (x₃, Eᵦ, log₁₀, h⁴).
      {U'₃', "$_3$"},
      {U'₄', "$_4$"},
      {U'ₙ', "$_n$"},
      {U'ₘ', "$_m$"},
      {U'ₜ', "$_t$"},
      {U'ᵦ', "$_\\beta$"},
      {U'¹', "\\textsuperscript{1}"},
      {U'⁴', "\\textsuperscript{4}"},
      {U'⁻', "\\textsuperscript{-}"},
      {U'𝒦', "$\\mathcal{K}$"}};
  return t;
}

/// Decodes one UTF-8 sequence at s[i]; advances i. Invalid bytes decode as U+FFFD.
char32_t next_code_point(const std::string& s, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
  if (extra < 0 || i + static_cast<std::size_t>(extra) >= s.size()) {
    ++i;
    return U'\uFFFD';
  }
  char32_t cp = c & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) {
      ++i;
      return U'\uFFFD';
    }
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  i += static_cast<std::size_t>(extra) + 1;
  return cp;
}

}  // namespace

std::string latex_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const char32_t cp = next_code_point(s, i);
      const auto it = unicode_table().find(cp);
      if (it != unicode_table().end())
        out += it->second;
      else
        out += "[U+" + [&] {
          char buf[16];
          std::snprintf(buf, sizeof buf, "%04X", static_cast<unsigned>(cp));
          return std::string(buf);
        }() + "]";
      continue;
    }
    ++i;
    switch (c) {
      case '\\': out += "\\textbackslash{}"; break;
      case '_': out += "\\_"; break;
      case '%': out += "\\%"; break;
      case '&': out += "\\&"; break;
      case '#': out += "\\#"; break;
      case '$': out += "\\$"; break;
      case '{': out += "\\{"; break;
      case '}': out += "\\}"; break;
      case '^': out += "\\textasciicircum{}"; break;
      case '~': out += "\\textasciitilde{}"; break;
      case '<': out += "\\textless{}"; break;
      case '>': out += "\\textgreater{}"; break;
      case '|': out += "\\textbar{}"; break;
      case '\n': out += " "; break;
      default:
        // Control characters would break the document; drop them.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') out += c;
    }
  }
  return out;
}

std::string latex_breakable(const std::string& tex) {
  std::string out;
  for (char c : tex) {
    out += c;
    if (c == ',' || c == ';' || c == '/') out += "\\allowbreak{}";
  }
  return out;
}

}  // namespace attnflow
