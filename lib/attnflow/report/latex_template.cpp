#include "attnflow/report/latex_template.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/report/latex_escape.hpp"
#include "attnflow/version.hpp"

#include <filesystem>
#include <fstream>
#include <kainjow/mustache.hpp>
#include <regex>
#include <sstream>

namespace attnflow {

namespace {

/// Drops the leading lines that start with "%%" (notes for whoever edits the template).
std::string strip_header_comments(const std::string& text) {
  std::size_t pos = 0;
  while (text.compare(pos, 2, "%%") == 0) {
    const std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) return "";
    pos = end + 1;
  }
  return text.substr(pos);
}

/// Mustache's "standalone" rule, done here because kainjow 4.1 keeps the newline of a skipped
/// section's closing tag: a line holding only a section tag (<<#x>>, <<^x>>, <</x>>) leaves no
/// line of its own in the output. Joining it to the next line makes that so in every case.
std::string join_standalone_section_lines(const std::string& body) {
  static const std::regex standalone(R"(^[ \t]*<<[#^/][A-Za-z_][A-Za-z0-9_]*>>[ \t]*$)");
  std::string out;
  std::size_t pos = 0;
  while (pos < body.size()) {
    const std::size_t end = body.find('\n', pos);
    const std::string line = body.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    const bool tag_only = std::regex_match(line, standalone);
    if (tag_only) {
      const std::size_t a = line.find('<'), b = line.rfind('>');
      out += line.substr(a, b - a + 1);  // the tag without its indentation and newline
    } else {
      out += line;
      if (end != std::string::npos) out += '\n';
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return out;
}

/// Every placeholder name must be provided: a typo in a template is an error, not a blank.
void check_names(const std::string& body, const TemplateValues& v, const std::string& origin) {
  static const std::regex tag(R"(<<\s*([#^/&]?)\s*([A-Za-z_][A-Za-z0-9_]*)\s*>>)");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::string sigil = (*it)[1], name = (*it)[2];
    const bool section = sigil == "#" || sigil == "^" || sigil == "/";
    const bool known = section ? v.flags.count(name) > 0 : v.text.count(name) > 0;
    if (!known)
      input_error(origin, "unknown " + std::string(section ? "flag" : "placeholder") + " <<" + sigil + name +
                              ">> (attnflow provides it for no template of this kind)");
  }
}

}  // namespace

std::string templates_dir() { return (std::filesystem::path(source_dir()) / "reports").string(); }

std::string render_template_text(const std::string& text, const TemplateValues& values, const std::string& origin) {
  const std::string body = join_standalone_section_lines(strip_header_comments(text));
  check_names(body, values, origin);
  kainjow::mustache::mustache tmpl("{{=<< >>=}}" + body);
  if (!tmpl.is_valid()) input_error(origin, "malformed template: " + tmpl.error_message());
  tmpl.set_custom_escape([](const std::string& s) { return latex_escape(s); });
  kainjow::mustache::data data;
  for (const auto& [name, value] : values.text) data.set(name, value);
  for (const auto& [name, value] : values.flags) data.set(name, kainjow::mustache::data(value));
  std::string out = tmpl.render(data);
  if (!tmpl.is_valid()) input_error(origin, "template failed to render: " + tmpl.error_message());
  return out;
}

std::string render_template(const std::string& name, const TemplateValues& values) {
  const std::string path = (std::filesystem::path(templates_dir()) / name).string();
  std::ifstream in(path, std::ios::binary);
  if (!in) input_error(path, "LaTeX template not found (reports/ of the source tree)");
  std::ostringstream s;
  s << in.rdbuf();
  return render_template_text(s.str(), values, path);
}

}  // namespace attnflow
