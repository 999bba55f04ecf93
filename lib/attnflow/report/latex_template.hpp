#pragma once
// LaTeX templates from reports/ (see reports/README.md): Mustache tags with << >> delimiters,
// values escaped for LaTeX unless inserted with <<&name>>, and <<>name>> the partial
// reports/<name>.tex inserted in place.
#include <map>
#include <string>
#include <vector>

namespace attnflow {

/// The values a template may use: text (escaped or raw, as the template says), flags for
/// <<#flag>> and <<^flag>> sections, and lists for <<#list>> … <</list>> sections, rendered once
/// per item with the item's own values (a table's rows, a plot's curves).
struct TemplateValues {
  std::map<std::string, std::string> text;
  std::map<std::string, bool> flags;
  std::map<std::string, std::vector<TemplateValues>> lists;
  TemplateValues& list(const std::string& name, std::vector<TemplateValues> items) {
    lists[name] = std::move(items);
    return *this;
  }
  TemplateValues& set(const std::string& name, const std::string& value) {
    text[name] = value;
    return *this;
  }
  TemplateValues& set(const std::string& name, long value) {
    text[name] = std::to_string(value);
    return *this;
  }
  TemplateValues& flag(const std::string& name, bool value) {
    flags[name] = value;
    return *this;
  }
};

/// Where templates are read from: the source tree's reports/.
std::string templates_dir();

/// Renders templates_dir()/name. A missing file, a malformed template or a placeholder not in
/// `values` is an InputError naming the file, so an edited template fails loudly, not blank.
std::string render_template(const std::string& name, const TemplateValues& values);

/// The same, for template text given directly (`origin` names it in errors).
std::string render_template_text(const std::string& text, const TemplateValues& values, const std::string& origin);

}  // namespace attnflow
