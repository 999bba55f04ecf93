#include "attnflow/report/latex_template.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/report/latex_escape.hpp"
#include "attnflow/version.hpp"

#include <filesystem>
#include <fstream>
#include <kainjow/mustache.hpp>
#include <map>
#include <regex>
#include <set>
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

/// The names a section may use: its own values, then those of the sections around it (Mustache's
/// context stack). A list's items are one scope of the names every item provides.
struct Scope {
  std::set<std::string> text, flags;
  std::map<std::string, Scope> lists;  // a list's name → the scope of its items
  bool unchecked = false;              // an empty list's body: never rendered, so not checked
};

Scope scope_of(const TemplateValues& v) {
  Scope s;
  for (const auto& [name, value] : v.text) s.text.insert(name);
  for (const auto& [name, value] : v.flags) s.flags.insert(name);
  for (const auto& [name, items] : v.lists) {
    Scope item;
    if (items.empty()) item.unchecked = true;
    for (std::size_t k = 0; k < items.size(); ++k) {
      Scope one = scope_of(items[k]);
      if (k == 0) {
        item = std::move(one);
        continue;
      }
      std::set<std::string> text, flags;  // the names every item has
      for (const auto& n : item.text)
        if (one.text.count(n)) text.insert(n);
      for (const auto& n : item.flags)
        if (one.flags.count(n)) flags.insert(n);
      item.text = std::move(text), item.flags = std::move(flags);
    }
    s.lists[name] = std::move(item);
  }
  return s;
}

/// Every placeholder name must be provided: a typo in a template is an error, not a blank.
void check_names(const std::string& body, const TemplateValues& v, const std::string& origin) {
  static const std::regex tag(R"(<<\s*([#^/&]?)\s*([A-Za-z_][A-Za-z0-9_]*)\s*>>)");
  std::vector<Scope> stack = {scope_of(v)};
  for (auto it = std::sregex_iterator(body.begin(), body.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::string sigil = (*it)[1], name = (*it)[2];
    if (sigil == "/") {
      if (stack.size() > 1) stack.pop_back();
      continue;
    }
    const bool section = sigil == "#" || sigil == "^";
    bool known = false;
    const Scope* list_items = nullptr;
    for (auto s = stack.rbegin(); s != stack.rend() && !known; ++s) {
      if (s->unchecked) known = true;
      if (!section) known = known || s->text.count(name) > 0;
      if (section && s->lists.count(name)) known = true, list_items = &s->lists.at(name);
      if (section) known = known || s->flags.count(name) > 0;
    }
    if (!known)
      input_error(origin, "unknown " + std::string(section ? "flag or list" : "placeholder") + " <<" + sigil + name +
                              ">> (attnflow provides it for no template of this kind)");
    if (section) stack.push_back(sigil == "#" && list_items ? *list_items : Scope{});
  }
}

kainjow::mustache::data to_data(const TemplateValues& v) {
  kainjow::mustache::data data;
  for (const auto& [name, value] : v.text) data.set(name, value);
  for (const auto& [name, value] : v.flags) data.set(name, kainjow::mustache::data(value));
  for (const auto& [name, items] : v.lists) {
    kainjow::mustache::data list{kainjow::mustache::data::type::list};
    for (const auto& item : items) list.push_back(to_data(item));
    data.set(name, list);
  }
  return data;
}

/// The text of reports/<name>.tex without its header comments and final newline (a partial).
std::string partial_text(const std::string& name, const std::string& origin);

/// Replaces each <<>name>> by the partial reports/<name>.tex (itself expanded, at most 4 deep):
/// a piece that several templates share, such as a figure's axis options.
std::string expand_partials(const std::string& body, const std::string& origin, int depth = 0) {
  static const std::regex partial(R"(<<>\s*([A-Za-z_][A-Za-z0-9_]*)\s*>>)");
  std::string out;
  auto last = body.cbegin();
  for (auto it = std::sregex_iterator(body.begin(), body.end(), partial); it != std::sregex_iterator(); ++it) {
    if (depth >= 4) input_error(origin, "partials nested more than 4 deep");
    out.append(last, (*it)[0].first);
    out += expand_partials(partial_text((*it)[1], origin), origin, depth + 1);
    last = (*it)[0].second;
  }
  out.append(last, body.cend());
  return out;
}

}  // namespace

std::string templates_dir() { return (std::filesystem::path(source_dir()) / "reports").string(); }

std::string render_template_text(const std::string& text, const TemplateValues& values, const std::string& origin) {
  const std::string body = join_standalone_section_lines(expand_partials(strip_header_comments(text), origin));
  check_names(body, values, origin);
  kainjow::mustache::mustache tmpl("{{=<< >>=}}" + body);
  if (!tmpl.is_valid()) input_error(origin, "malformed template: " + tmpl.error_message());
  tmpl.set_custom_escape([](const std::string& s) { return latex_escape(s); });
  std::string out = tmpl.render(to_data(values));
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

namespace {

std::string partial_text(const std::string& name, const std::string& origin) {
  const std::string path = (std::filesystem::path(templates_dir()) / (name + ".tex")).string();
  std::ifstream in(path, std::ios::binary);
  if (!in) input_error(origin, "the partial <<>" + name + ">> has no file " + path);
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = strip_header_comments(s.str());
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

}  // namespace

}  // namespace attnflow
