#include "attnflow/config/json_number_range.hpp"

#include "attnflow/errors.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

namespace attnflow {

namespace {

/// Follows the path of the value being read (keys and array indices) and remembers the first
/// number outside double's normal range.
class NumberRangeCheck : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::string field, literal;  // set at the first offending number

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t v, const string_t& text) override {
    // A literal with a nonzero digit before its exponent that reads as 0 has underflowed.
    bool nonzero_digit = false;
    for (const char c : text) {
      if (c == 'e' || c == 'E') break;
      nonzero_digit = nonzero_digit || (c >= '1' && c <= '9');
    }
    if (v == 0 && nonzero_digit) {
      field = path();
      literal = text.substr(0, 40);
      return false;  // stop: one offending number is reported
    }
    return value();
  }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    frames_.push_back({false, 0, ""});
    return true;
  }
  bool key(string_t& k) override {
    if (!frames_.empty()) frames_.back().key = k.substr(0, 60);
    return true;
  }
  bool end_object() override { return end(); }
  bool start_array(std::size_t) override {
    frames_.push_back({true, 0, ""});
    return true;
  }
  bool end_array() override { return end(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct Frame {
    bool array;
    long index;
    std::string key;
  };
  std::vector<Frame> frames_;

  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }
  bool end() {
    frames_.pop_back();
    return value();  // the object or array was itself a value of its parent
  }
  std::string path() const {
    std::string p;
    for (const Frame& f : frames_)
      p += f.array ? "[" + std::to_string(f.index) + "]" : (p.empty() ? "" : ".") + f.key;
    return p;
  }
};

}  // namespace

void refuse_numbers_outside_double(const std::string& text, const std::string& origin) {
  NumberRangeCheck check;
  nlohmann::json::sax_parse(text, &check);
  if (check.literal.empty()) return;
  input_error(origin + (check.field.empty() ? "" : ": " + check.field),
              "the number " + check.literal + " is outside the range of double (0 or 2.3e-308 <= |x| <= 1.7e308)");
}

}  // namespace attnflow
