#pragma once
// The exact binary form of a typed result, for results that cross a process boundary (an MPI
// rank's instance sent to rank 0) or are kept on disk to be resumed (the instance journal). A
// double travels as its 8 bytes, so a result read back is the result computed: the same
// results.json whichever process computed it.
//
// A type takes part by declaring its fields once, for both directions (as Boost.Serialization's
// `serialize`), in a function found by argument-dependent lookup:
//     template <class Archive> void wire_fields(Archive& a, LinearFit& f) { a(f.points, f.slope, …); }
// Built in: arithmetic types and enums, std::string, std::vector, std::optional, std::variant,
// Eigen column vectors and nlohmann::json (as CBOR, which keeps every double exactly).
#include "attnflow/errors.hpp"

#include <Eigen/Core>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace attnflow::wire {

// The bytes are the machine's own: ranks of one job and the journal of one run share an architecture.
static_assert(sizeof(double) == 8 && sizeof(std::size_t) == 8, "the wire form assumes a 64-bit machine");

class Writer;
class Reader;

namespace detail {
template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};
template <class T> struct is_variant : std::false_type {};
template <class... T> struct is_variant<std::variant<T...>> : std::true_type {};
template <class T> struct is_column : std::false_type {};
template <class S> struct is_column<Eigen::Matrix<S, Eigen::Dynamic, 1>> : std::true_type {};

template <class T, class = void> struct has_fields : std::false_type {};
template <class T>
struct has_fields<T, std::void_t<decltype(wire_fields(std::declval<Writer&>(), std::declval<T&>()))>>
    : std::true_type {};
}  // namespace detail

/// True when T has a wire form (built in, or by its wire_fields).
template <class T> constexpr bool has_wire() {
  using namespace detail;
  if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string> ||
                std::is_same_v<T, nlohmann::json>)
    return true;
  else if constexpr (is_vector<T>::value || is_optional<T>::value || is_column<T>::value)
    return !std::is_same_v<T, std::vector<bool>> && has_wire<typename T::value_type>();
  else if constexpr (is_variant<T>::value)
    return true;  // each alternative is checked where it is written
  else
    return has_fields<T>::value;
}

class Writer {
 public:
  template <class... T> void operator()(const T&... values) { (put(values), ...); }
  std::string take() { return std::move(bytes_); }

 private:
  void raw(const void* p, std::size_t n) { bytes_.append(static_cast<const char*>(p), n); }
  void size(std::size_t n) { raw(&n, sizeof n); }
  template <class T> void put(const T& v) {
    using namespace detail;
    if constexpr (std::is_same_v<T, bool>) {
      const unsigned char b = v ? 1 : 0;
      raw(&b, 1);
    } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
      raw(&v, sizeof v);
    } else if constexpr (std::is_same_v<T, std::string>) {
      size(v.size()), raw(v.data(), v.size());
    } else if constexpr (std::is_same_v<T, nlohmann::json>) {
      const std::vector<std::uint8_t> cbor = nlohmann::json::to_cbor(v);
      size(cbor.size()), raw(cbor.data(), cbor.size());
    } else if constexpr (is_vector<T>::value) {
      static_assert(!std::is_same_v<T, std::vector<bool>>, "std::vector<bool> has no wire form");
      size(v.size());
      for (const auto& x : v) put(x);
    } else if constexpr (is_column<T>::value) {
      size(static_cast<std::size_t>(v.size()));
      for (Eigen::Index k = 0; k < v.size(); ++k) put(v[k]);
    } else if constexpr (is_optional<T>::value) {
      put(v.has_value());
      if (v) put(*v);
    } else if constexpr (is_variant<T>::value) {
      put(static_cast<std::uint32_t>(v.index()));
      std::visit([this](const auto& x) { put(x); }, v);
    } else {
      static_assert(has_fields<T>::value, "this type has no wire_fields");
      wire_fields(*this, const_cast<T&>(v));  // a Writer only reads the fields it is given
    }
  }

  std::string bytes_;
};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  template <class... T> void operator()(T&... values) { (get(values), ...); }
  /// Throws when bytes are left over: a form read back whole is the form that was written.
  void finish() const {
    if (pos_ != bytes_.size()) throw std::runtime_error("wire: trailing bytes after the value");
  }

 private:
  void raw(void* p, std::size_t n) {
    if (n > bytes_.size() - pos_) throw std::runtime_error("wire: the value ends early");
    std::memcpy(p, bytes_.data() + pos_, n);
    pos_ += n;
  }
  std::size_t size() {
    std::size_t n = 0;
    raw(&n, sizeof n);
    if (n > bytes_.size() - pos_) throw std::runtime_error("wire: a length beyond the value");
    return n;
  }
  template <std::size_t K = 0, class V> void get_alternative(V& v, std::uint32_t index) {
    if constexpr (K < std::variant_size_v<V>) {
      if (index == K) {
        std::variant_alternative_t<K, V> x{};
        get(x);
        v = std::move(x);
        return;
      }
      get_alternative<K + 1>(v, index);
    } else {
      throw std::runtime_error("wire: a variant index out of range");
    }
  }
  template <class T> void get(T& v) {
    using namespace detail;
    if constexpr (std::is_same_v<T, bool>) {
      unsigned char b = 0;
      raw(&b, 1);
      if (b > 1) throw std::runtime_error("wire: a bool that is neither 0 nor 1");
      v = b == 1;
    } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
      raw(&v, sizeof v);
    } else if constexpr (std::is_same_v<T, std::string>) {
      const std::size_t n = size();
      v.assign(bytes_.data() + pos_, n);
      pos_ += n;
    } else if constexpr (std::is_same_v<T, nlohmann::json>) {
      const std::size_t n = size();
      v = nlohmann::json::from_cbor(bytes_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                    bytes_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
      pos_ += n;
    } else if constexpr (is_vector<T>::value) {
      const std::size_t n = size();  // every element takes at least one byte: n is bounded
      v.clear();
      v.reserve(n);
      for (std::size_t k = 0; k < n; ++k) {
        typename T::value_type x{};
        get(x);
        v.push_back(std::move(x));
      }
    } else if constexpr (is_column<T>::value) {
      const std::size_t n = size();
      v.resize(static_cast<Eigen::Index>(n));
      for (Eigen::Index k = 0; k < v.size(); ++k) get(v[k]);
    } else if constexpr (is_optional<T>::value) {
      bool present = false;
      get(present);
      v.reset();
      if (present) {
        typename T::value_type x{};
        get(x);
        v = std::move(x);
      }
    } else if constexpr (is_variant<T>::value) {
      std::uint32_t index = 0;
      get(index);
      get_alternative(v, index);
    } else {
      wire_fields(*this, v);
    }
  }

  const std::string& bytes_;
  std::size_t pos_ = 0;
};

template <class T> std::string encode(const T& value) {
  Writer w;
  w(value);
  return w.take();
}

/// The value `encode` wrote; std::runtime_error on bytes that are not one whole value of T.
template <class T> T decode(const std::string& bytes) {
  T value{};
  Reader r(bytes);
  r(value);
  r.finish();
  return value;
}

}  // namespace attnflow::wire
