#pragma once
// The statement data and the runner's lines write mathematics in ASCII ("Q^T K", "x_i -> x*",
// "max_k |Delta_k| <= 0.271", "sqrt(log d / d)", "<Q phi_1, K phi_1>"): a reader of the report
// should see it typeset. prose_tex turns those conventions into LaTeX mathematics and escapes
// everything else, so the result is as safe as latex_escape's: no command, brace or $ of the input
// reaches LaTeX unescaped. A key of the label table written in prose ("boolean_capture_distance")
// becomes its label; another snake_case word its words. File names and paths stay verbatim.

#include <string>

namespace attnflow {

std::string prose_tex(const std::string& text);

}  // namespace attnflow
