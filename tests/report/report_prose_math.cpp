// prose_tex: the ASCII mathematics of statement data and runner lines, typeset.
#include <boost/test/unit_test.hpp>

#include "attnflow/report/prose_math.hpp"

using attnflow::prose_tex;

BOOST_AUTO_TEST_SUITE(report_prose_math)

BOOST_AUTO_TEST_CASE(operators_become_symbols) {
  BOOST_TEST(prose_tex("x_i -> x*") == "$x_{i} \\to x^*$");
  BOOST_TEST(prose_tex("lambda >= 0") == "$\\lambda \\geq$ 0");
  BOOST_TEST(prose_tex("a <= b") == "a $\\leq$ b");
  BOOST_TEST(prose_tex("i != j") == "i $\\neq$ j");
  BOOST_TEST(prose_tex("pair +-x") == "pair $\\pm$x");
  BOOST_TEST(prose_tex("lambda < 0: V = -diag(1, 0)") == "$\\lambda <$ 0: V = $-$diag(1, 0)");
}

BOOST_AUTO_TEST_CASE(symbols_with_scripts_greek_roots_and_inner_products) {
  BOOST_TEST(prose_tex("Q^T K positive definite") == "$Q^\\top$ K positive definite");
  BOOST_TEST(prose_tex("points on S^{d-1}") == "points on $S^{d-1}$");
  BOOST_TEST(prose_tex("the scale sqrt(log d / d)") == "the scale $\\sqrt{\\log d / d}$");
  BOOST_TEST(prose_tex("|<Q phi_1, K phi_1>|") == "\\textbar{}$\\langle Q \\varphi_{1}, K \\varphi_{1}\\rangle$\\textbar{}");
  BOOST_TEST(prose_tex("psi^T (z_i - z_i^ref)") == "$\\psi^\\top$ ($z_{i} - z_{i}^{\\mathrm{ref}}$)");
  BOOST_TEST(prose_tex("max_(k>=2) |lambda_k|") == "$\\max_{k\\geq 2}$ \\textbar{}$\\lambda_{k}$\\textbar{}");
  BOOST_TEST(prose_tex("Delta_k(digits)") == "$\\Delta_{k}$(digits)");
  BOOST_TEST(prose_tex("e_j'") == "$e_{j}'$");
  BOOST_TEST(prose_tex("t_delta inside F's band") == "$t_{\\delta}$ inside F's band");  // a possessive, not F′s
  BOOST_TEST(prose_tex("within 10^-digits") == "within $10^{-\\mathrm{digits}}$");
}

BOOST_AUTO_TEST_CASE(a_minus_sign_is_not_a_hyphen) {
  BOOST_TEST(prose_tex("V = -I") == "V = $-$I");
  BOOST_TEST(prose_tex("beta = -0.5") == "$\\beta$ = $-$0.5");
  BOOST_TEST(prose_tex("|D - 0|") == "\\textbar{}D $-$ 0\\textbar{}");
  BOOST_TEST(prose_tex("non-decreasing, left-most") == "non-decreasing, left-most");
  BOOST_TEST(prose_tex("decaying like t^-0.41") == "decaying like $t^{-0.41}$");
  BOOST_TEST(prose_tex("1 \u2212 \u03b4") == "1 $-$ $\\delta$");
}

BOOST_AUTO_TEST_CASE(numbers_in_exponent_form_read_as_powers_of_ten) {
  BOOST_TEST(prose_tex("delta = 1e-06") == "$\\delta$ = $10^{-6}$");
  BOOST_TEST(prose_tex("rate 6.26e-05 (95% CI)") == "rate $6.26\\cdot 10^{-5}$ (95\\% CI)");
  BOOST_TEST(prose_tex("the 2e5 case") == "the $2\\cdot 10^{5}$ case");
  BOOST_TEST(prose_tex("type1e5") == "type1e5");  // inside a word: not a number
}

BOOST_AUTO_TEST_CASE(snake_case_becomes_words_or_labels_and_paths_stay_verbatim) {
  BOOST_TEST(prose_tex("some_unknown_name <= 0") == "some unknown name $\\leq$ 0");
  BOOST_TEST(prose_tex("gap_decrease") == "largest decrease of a pairwise distance since the previous sample");  // a key: its label
  BOOST_TEST(prose_tex("mt19937_64") == "mt19937\\_64");  // a name with digits is kept
  BOOST_TEST(prose_tex("see configs/A_2.json now") == "see configs/A\\_2.json now");
  BOOST_TEST(prose_tex("plain words stay") == "plain words stay");
  BOOST_TEST(prose_tex("beta") == "$\\beta$");
  BOOST_TEST(prose_tex("betamax") == "betamax");
}

BOOST_AUTO_TEST_CASE(the_input_can_never_inject_latex) {
  // Every special character of the input is escaped, in text and inside the mathematics.
  for (const std::string hostile : {"\\input{/etc/passwd}", "$\\write18{x}$", "x_{\\input{a}}", "sqrt(\\def\\a{b})",
                                    "<\\x, y>", "S^{#1}", "ctl_odd_id", "x^2^3", "sqrt(a_b_c)", "x^T'", "x''", "a%b", "x_i^{}}}", "{{{", "$$"}) {
    const std::string tex = prose_tex(hostile);
    BOOST_TEST(tex.find("\\input") == std::string::npos, tex);
    BOOST_TEST(tex.find("\\write") == std::string::npos, tex);
    BOOST_TEST(tex.find("\\def") == std::string::npos, tex);
    BOOST_TEST(tex.find("$$") == std::string::npos, tex);
    int depth = 0;
    for (std::size_t i = 0; i < tex.size(); ++i) {
      if (tex[i] == '\\') {
        ++i;
        continue;
      }
      depth += tex[i] == '{' ? 1 : tex[i] == '}' ? -1 : 0;
      BOOST_TEST(depth >= 0, tex);
    }
    BOOST_TEST(depth == 0, tex);
    std::size_t dollars = 0;
    for (std::size_t i = 0; i < tex.size(); ++i)
      if (tex[i] == '$' && (i == 0 || tex[i - 1] != '\\')) ++dollars;
    BOOST_TEST(dollars % 2 == 0u, tex);
  }
}

BOOST_AUTO_TEST_SUITE_END()
