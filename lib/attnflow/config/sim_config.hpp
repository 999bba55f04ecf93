#pragma once
// The simulate config (DESIGN.md "simulate config"), validated once and kept as exact decimal
// text so that any scalar type can be built from it without going through double.
#include "attnflow/config/method.hpp"
#include "attnflow/config/model_kind.hpp"
#include "attnflow/precision.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow {

/// One d×d matrix: a named one, explicit entries, a diagonal, or seeded random entries.
struct MatrixSpec {
  enum class Kind { Identity, MinusIdentity, Zero, ScaledIdentity, Diagonal, Explicit, Random };
  Kind kind = Kind::Identity;
  std::vector<std::string> entries;  // Explicit: d*d row-major; Diagonal: d
  std::string scalar = "1";          // ScaledIdentity: α in α I
  std::string distribution;          // Random: "gaussian" (N(0, scale^2)) | "uniform" (U[-scale, scale])
  std::uint64_t seed = 0;
  std::string scale = "1";
};

/// A weight that may change with the layer or with time.
struct WeightSpec {
  enum class Kind { Constant, PerLayer, Knots };
  Kind kind = Kind::Constant;
  std::vector<MatrixSpec> values;       // Constant: 1; PerLayer: one per layer; Knots: one per knot
  std::vector<std::string> knot_times;  // Knots: increasing times, piecewise-linear in between
  /// PerLayer (discrete models): layer k >= L uses entry k mod L, the L layers applied again and
  /// again (a trained network iterated); otherwise the list covers every layer of the run and
  /// a layer past its end (prove's infinite horizon) holds the last entry.
  bool cycle = false;
};

/// Reads one d×d matrix of a config (InputError naming `field`).
MatrixSpec parse_matrix(const nlohmann::json& j, int d, const std::string& field);

struct HeadSpec {
  WeightSpec Q, K, V;
};

struct InitSpec {
  std::string kind = "uniform-sphere";  // uniform-sphere | uniform-cube | orthogonal | hemisphere | equiangular | explicit
  std::uint64_t seed = 0;
  bool standard_basis = false;      // orthogonal: e_1..e_n instead of a random frame
  std::string scale = "1";          // uniform-cube: half-width
  std::vector<std::string> points;  // explicit: n*d row-major
  std::string rho = "0";            // equiangular: every pairwise inner product ⟨x_i, x_j⟩
};

struct SimConfig {
  const ModelInfo* model = nullptr;
  int n = 0, d = 0;
  std::string beta = "1";
  /// "beta": {"log_n": γ}: β = γ log n, formed in the run's scalar type (build_model); `beta` then
  /// holds it to 40 significant digits for what reads β in double.
  std::string beta_log_n;
  std::vector<HeadSpec> heads;  // size = number of heads
  WeightSpec W;                 // ffn only
  std::string activation = "relu";
  bool causal = false;
  /// The keys each token attends to, n×n row-major (row i: 1 where token i sees token j), beside
  /// `causal`; empty: every key. A row is never empty (parse_sim_config refuses one).
  std::vector<std::uint8_t> mask;
  std::string eta = "0.1";  // euler-renormalize step
  bool normalize_output = false;  // attention-map: each output divided by its length
  InitSpec init;
  // time: continuous models sample at `times`; discrete models run `layers` layers and keep
  // every `sample_every`-th one (and the last).
  std::vector<std::string> times;  // explicit sample times, or {0, t_end} with a grid
  long grid_samples = 0;           // > 0: sample k is t_end·k/(grid_samples−1), formed exactly in T
  long layers = 0;
  long sample_every = 1;
  Method method = Method::dopri5;
  /// Noise (the sphere models): dX_i = drift dt + √(2/κ) dW_i, W_i Brownian motion on the sphere,
  /// integrated by euler-maruyama from the seed noise_seed. Empty: no noise.
  std::string kappa;
  std::uint64_t noise_seed = 0;
  std::string rtol = "1e-10", atol = "1e-12", dt = "0.01";
  bool fixed_step = false;  // a controlled method run without step control (steps ≤ dt)
  std::string max_step = "0";  // adaptive methods: the longest step allowed ("0": no limit)
  long max_steps = 10000000;
  std::string stop_diameter_below;  // empty: no predicate
  Precision precision = Precision::double_();
  bool verify = false;
  nlohmann::json source;  // the config as given, for provenance

  bool discrete() const { return model->discrete; }
  /// A continuous run without error control (its steps are dt, or less to land on samples).
  bool fixed_steps() const { return !discrete() && takes_fixed_steps(method, fixed_step); }
  std::string t_end() const { return times.empty() ? "0" : times.back(); }
};

SimConfig parse_sim_config(const nlohmann::json& j);
/// Reads and parses a file; unreadable files and invalid JSON are InputErrors.
SimConfig load_sim_config(const std::string& path);
nlohmann::json read_json_file(const std::string& path);
/// The same checks on text already in memory (depth and size caps, no duplicate keys); origin
/// names it in messages.
nlohmann::json parse_json_text(const std::string& text, const std::string& origin);

extern const std::vector<std::string> kMethods;

/// Bytes the samples of one run of c hold (samples × n × d values of its precision; MPFR values
/// with their limbs and header), twice with "verify" (the reference is held beside the run), and
/// the text trajectory.json and .csv take (about 26 characters a value). A guard against runs that
/// cannot fit, not a promise: the integrator's own work arrays are a few states.
double simulation_memory_bytes(const SimConfig& c);
inline constexpr double kDefaultSimulationMemoryGb = 8;  // GiB

}  // namespace attnflow
