#pragma once
// Weights Q, K, V, W that are constant, given per layer, or interpolated in time.
#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/random.hpp"
#include "attnflow/tokens.hpp"

namespace attnflow {

/// The matrix a MatrixSpec names, in T. Random entries are drawn in double from the seed (so
/// every precision sees the same matrix) and converted exactly.
template <class T> Matrix<T> build_matrix(const MatrixSpec& spec, int d) {
  using K = MatrixSpec::Kind;
  switch (spec.kind) {
    case K::Identity: return Matrix<T>::Identity(d, d);
    case K::MinusIdentity: return -Matrix<T>::Identity(d, d);
    case K::Zero: return Matrix<T>::Zero(d, d);
    case K::ScaledIdentity: return Matrix<T>::Identity(d, d) * from_decimal<T>(spec.scalar);
    case K::Diagonal: {
      Matrix<T> m = Matrix<T>::Zero(d, d);
      for (int i = 0; i < d; ++i) m(i, i) = from_decimal<T>(spec.entries[i]);
      return m;
    }
    case K::Explicit: {
      Matrix<T> m(d, d);
      for (int i = 0; i < d; ++i)
        for (int k = 0; k < d; ++k) m(i, k) = from_decimal<T>(spec.entries[i * d + k]);
      return m;
    }
    case K::Random: {
      SeededDraws draws(spec.seed);
      const double scale = decimal_as_double(spec.scale);
      Matrix<T> m(d, d);
      for (int i = 0; i < d; ++i)
        for (int k = 0; k < d; ++k)
          m(i, k) = T(spec.distribution == "uniform" ? scale * (2 * draws.uniform01() - 1) : scale * draws.normal());
      return m;
    }
  }
  throw std::logic_error("build_matrix: unknown kind");
}

/// The entry of a per-layer list of `count` entries that layer k uses: k mod count for a cyclic
/// list, else min(k, count − 1) (the last entry held). The one rule simulate's schedules and
/// prove's instances read.
inline std::size_t scheduled_entry(long k, std::size_t count, bool cycle) {
  const long n = static_cast<long>(count), at = std::max<long>(k, 0);
  return static_cast<std::size_t>(cycle ? at % n : std::min<long>(at, n - 1));
}

template <class T> class WeightSchedule {
 public:
  WeightSchedule() = default;
  /// `layer_duration`: for continuous models a per-layer list is piecewise constant in time,
  /// layer k acting on [k·h, (k+1)·h).
  WeightSchedule(const WeightSpec& spec, int d, T layer_duration = T(1))
      : kind_(spec.kind), cycle_(spec.cycle), layer_duration_(layer_duration) {
    for (const auto& m : spec.values) values_.push_back(build_matrix<T>(m, d));
    for (const auto& t : spec.knot_times) knots_.push_back(from_decimal<T>(t));
  }

  /// A constant schedule holding m (for callers that read their own numbers, as the verified
  /// layer does with enclosures of decimals).
  static WeightSchedule constant_matrix(Matrix<T> m) {
    WeightSchedule w;
    w.values_.push_back(std::move(m));
    return w;
  }
  /// A per-layer schedule, as a per-layer config list reads: layer k holds ms[min(k, size − 1)],
  /// or ms[k mod size] when `cycle`.
  static WeightSchedule per_layer_matrices(std::vector<Matrix<T>> ms, bool cycle = false) {
    if (ms.empty()) throw std::logic_error("per_layer_matrices: no layers");
    WeightSchedule w;
    w.kind_ = WeightSpec::Kind::PerLayer;
    w.cycle_ = cycle;
    w.values_ = std::move(ms);
    return w;
  }

  /// The same schedule with every number converted to another scalar type by `convert`
  /// (e.g. to a dual number, to differentiate the model: see diagnostics/lyapunov.hpp).
  template <class U, class F> WeightSchedule<U> converted(F convert) const {
    WeightSchedule<U> w;
    w.kind_ = kind_;
    w.cycle_ = cycle_;
    w.layer_duration_ = convert(layer_duration_);
    for (const auto& m : values_) {
      Matrix<U> c(m.rows(), m.cols());
      for (Eigen::Index i = 0; i < m.size(); ++i) c.data()[i] = convert(m.data()[i]);
      w.values_.push_back(c);
    }
    for (const auto& t : knots_) w.knots_.push_back(convert(t));
    return w;
  }

  bool constant() const { return kind_ == WeightSpec::Kind::Constant; }
  const Matrix<T>& constant_value() const { return values_.front(); }

  const Matrix<T>& at_layer(long k) const {
    if (kind_ == WeightSpec::Kind::PerLayer) return values_[scheduled_entry(k, values_.size(), cycle_)];
    return values_.front();
  }

  /// The matrix at time t when it is stored (constant and per-layer schedules), else nullptr
  /// (interpolated knots must be computed: at_time).
  const Matrix<T>* stored_at_time(const T& t) const {
    if (kind_ == WeightSpec::Kind::Constant) return &values_.front();
    if (kind_ == WeightSpec::Kind::PerLayer) return &at_layer(layer_index(t));
    return nullptr;
  }

  Matrix<T> at_time(const T& t) const {
    switch (kind_) {
      case WeightSpec::Kind::Constant: return values_.front();
      case WeightSpec::Kind::PerLayer: return at_layer(layer_index(t));
      case WeightSpec::Kind::Knots: {
        if (t <= knots_.front()) return values_.front();
        if (t >= knots_.back()) return values_.back();
        std::size_t k = 1;
        while (knots_[k] < t) ++k;
        const T s = (t - knots_[k - 1]) / (knots_[k] - knots_[k - 1]);
        return values_[k - 1] * (T(1) - s) + values_[k] * s;
      }
    }
    return values_.front();
  }

 private:
  long layer_index(const T& t) const {
    using std::floor;
    const T idx = floor(t / layer_duration_);
    return static_cast<long>(idx < T(0) ? T(0) : idx);
  }

  template <class> friend class WeightSchedule;
  WeightSpec::Kind kind_ = WeightSpec::Kind::Constant;
  bool cycle_ = false;
  T layer_duration_ = T(1);
  std::vector<Matrix<T>> values_;
  std::vector<T> knots_;
};

}  // namespace attnflow
