#pragma once
// Computer-assisted proofs of cone collapse for concrete starts of the sphere flows:
// a rigorous enclosure of the solution (interval Taylor method with Lohner's wrapping control,
// lohner.hpp) is carried forward until at some time T every point of the enclosure lies in one
// open hemisphere {⟨w, x⟩ > 0}; by [B] Lemma 6.4 (V = I, any Q, K, SA or USA) the tokens then
// converge to a single point. Nothing here exposes an interval type: results are outward-rounded
// doubles, so ordinary code (tests, CLI) never instantiates rigorous arithmetic.
#include "attnflow/config/sim_config.hpp"

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow::verify {

/// The most layers of per-layer weights a proof instance holds (a trained network has a handful;
/// simulate's exported configs repeat them, e.g. 25·L).
inline constexpr std::size_t kMaxProofLayers = 100000;

/// One layer's weights of a layer model with per-layer weights (exact decimal text).
struct LayerWeights {
  std::string step;               // α_k of V_k = α_k I (layer-normalized), or η (euler-renormalize)
  std::vector<std::string> Q, K;  // d×d row-major decimals
  bool operator==(const LayerWeights& o) const { return step == o.step && Q == o.Q && K == o.K; }
};

/// One attention head's weights (exact decimal text, d×d row-major).
struct HeadWeights {
  std::vector<std::string> Q, K, V;
  bool operator==(const HeadWeights& o) const { return Q == o.Q && K == o.K && V == o.V; }
};

/// What is proved about: the model, the weights and the start, all as exact decimal text.
/// The start of the flow is x_i(0) = p_i / ‖p_i‖ with p_i the given points.
struct ProveInstance {
  std::string model;  // sa-sphere | usa-sphere | sa-euclid | layer-normalized | euler-renormalize (general(): any flow)
  int n = 0, d = 0;
  std::string beta = "1";
  std::string step = "1";           // layer models: y_i = x_i + step Σ_j P_ij x_j (α of V = αI, or η)
  std::vector<std::string> Q, K;    // d×d row-major decimals
  std::vector<std::string> V;       // sa-euclid only: d×d row-major decimals (the sphere flows have V = I)
  std::vector<std::string> points;  // n×d row-major decimals (p_i; sa-euclid: x_i(0) = p_i)
  /// Layer models only, when the weights change from layer to layer (a trained network): layer k
  /// uses layers[min(k, L − 1)] (the last layer repeats forever), or layers[k mod L] when `cycle`
  /// (the L layers applied again and again), as simulate reads a per-layer list; step, Q and K
  /// are then unused (and not written).
  std::vector<LayerWeights> layers;
  bool cycle = false;
  bool per_layer() const { return !layers.empty(); }
  /// A flow outside the three classic forms (several heads, a mask, ffn, a sphere flow with
  /// V ≠ I): every head's constant weights, and Q, K, V above unused. Its field is
  /// Model<T> itself on intervals (model_series.hpp); prove encloses it (--enclose) but has no
  /// theorem to invoke on it.
  std::vector<HeadWeights> heads;
  std::vector<std::string> W;  // ffn: d×d
  std::string activation;      // ffn: tanh | identity (relu is not analytic at its kink: refused)
  bool causal = false;         // the causal mask (token i attends to j ≤ i)
  bool general() const { return !heads.empty(); }
  /// The weights of layer k (the constant ones when not per_layer()).
  LayerWeights layer(long k) const;
  nlohmann::json to_json() const;
  static ProveInstance from_json(const nlohmann::json& j);  // InputError on bad fields
};

/// The instance a simulate config describes (one head; constant weights, or per-layer lists for
/// the layer models). Random starts and random weights are drawn as simulate does and written
/// with 17 digits. InputError for a config no proof covers: β as γ log n (no decimal to state), noise
/// (kappa: an SDE, not the flow), a general mask.
ProveInstance prove_instance_from_config(const SimConfig& c);

struct ProveOptions {
  double max_time = 20;             // give up ("not proved") at this time
  int order = 20;                   // Taylor order p of the point part
  int jet_order = 6;                // Taylor order q of the Jacobian (mean-value form; it multiplies r, already tiny)
  double tol = 1e-20;               // target remainder per step (chooses the step size)
  double max_step = 0.25;           // longest step
  double rem_tol = 1e-17;           // largest remainder h^p a_p(Y) accepted in one step
  std::string interval = "double";  // double | mpfi
  int digits = 40;                  // mpfi: decimal digits
  double report_until = 0;          // after the proof, keep enclosing to this time to report widths
                                    // (in the certificate's method when > 0: --check recomputes them)
  long max_steps = 200000;
  std::vector<double> steps;  // replay these step sizes (certificate check); empty: choose
  double epsilon = 1e-6;      // capture predicates (sa-euclid): P_i,leader(i)(T) ≥ 1 − ε
  /// Told after every step (time or layer reached, steps, largest width); not part of a certificate.
  std::function<void(double t, long steps, double width)> progress;
  /// Polled after every step (layer): once it reads true the run stops, with `interrupted` set in
  /// its result (the CLI's Ctrl-C flag; verify/ knows no signals). Not part of a certificate.
  const std::atomic<bool>* interrupt = nullptr;
  bool interrupt_requested() const { return interrupt != nullptr && interrupt->load(); }
  nlohmann::json to_json() const;
  static ProveOptions from_json(const nlohmann::json& j);
};

/// An enclosure at one time: every coordinate (token i, coordinate c at i·d + c) in [lo, hi].
struct Box {
  double t = 0;
  std::vector<double> lo, hi;
  double max_width() const;
};

/// A capture predicate at T (sa-euclid): Boolean attention in d = 1 ([A] Thm 2.1's prediction:
/// left, right, sign, exceptional) or vertex capture in d ≥ 2 ([A] Thm 3.1: leaders).
struct BooleanCapture {
  double epsilon = 0;
  int left = -1, right = -1;      // the certified extreme tokens (box of x_left below all others)
  std::vector<int> sign;          // per token: +1 / −1 when the sign of x_i(T) is certified, else 0
  std::vector<int> leader;        // per row: the predicted leader whose P_i,leader ≥ 1 − ε is certified, or −1
  std::vector<double> p_lead_lo;  // per row: lower bound of P_i,predicted leader (0 when no prediction)
  int exceptional = -1;           // the one row not certified (if any)
  std::vector<double> exceptional_lo, exceptional_hi;  // its row of P(T), enclosed
  double min_capture = 1;                              // min over certified rows of the lower bound of P_i,leader
  std::vector<int> leaders;  // d ≥ 2: the distinct leaders, each capturing itself (vertices)
};

inline constexpr const char* kHemispherePredicate = "open hemisphere";
inline constexpr const char* kBooleanPredicate = "boolean attention";     // sa-euclid, d = 1
inline constexpr const char* kVertexCapturePredicate = "vertex capture";  // sa-euclid, d ≥ 2

struct ProofResult {
  bool proved = false;
  std::string predicate = kHemispherePredicate;  // | kBooleanPredicate | kVertexCapturePredicate
  /// A capture predicate on P(T) (sa-euclid, any d), as opposed to a hemisphere.
  bool boolean() const { return predicate == kBooleanPredicate || predicate == kVertexCapturePredicate; }
  std::string outcome;  // "proved" | "not proved"
  std::string reason;   // not proved: why, and the time reached
  double T = 0;         // proved: the hemisphere was certified at T
  double t_reached = 0;
  long steps_to_T = 0, steps = 0;
  std::vector<double> w;  // the hemisphere's normal
  double margin = 0;      // lower bound of min_i ⟨w, x_i(T)⟩ over the enclosure (> 0)
  Box at_T, last;         // the enclosures at T and at the end (report_until)
  std::vector<double> step_sizes;         // the steps up to T (all of them when not proved)
  std::vector<double> report_step_sizes;  // proved: the steps after T, taken only for report_until
  std::vector<std::pair<double, double>> width_trace;  // (t, max width) after each step
  bool start_in_hemisphere = false;                    // the start (rounded to double) in an open hemisphere (exact LP)
  bool start_hemisphere_certified = false;
  BooleanCapture capture;               // the capture predicates (boolean())
  std::vector<std::string> hypotheses;  // capture predicates: what was certified on the decimals
  double seconds = 0;
  bool interrupted = false;  // stopped by ProveOptions::interrupt at t_reached: neither proved nor refuted
};

/// The discrete layer models (layer-normalized, euler-renormalize): the proof runs layer by layer
/// (layer_proof.cpp), "time" counts layers, ProveOptions::max_time is the layer limit, and the
/// theorem invoked is [Blog] Proposition 2.1.
bool is_layer_model(const std::string& model);
ProofResult prove_layer_collapse(const ProveInstance& instance, const ProveOptions& options);

/// sa-euclid with d = 1 (boolean_proof.cpp): encloses the flow until P(T) is certified within ε
/// of a Boolean matrix whose rows, all but at most one, are e_left or e_right with the leader
/// [A] Thm 2.1 predicts (the extreme token on x_i's side). A finite-T statement about this
/// solution: the limit itself is the theorem's. Its hypotheses (V > 0, βQK > 0, distinct tokens)
/// are certified on the decimals first; if one fails, the outcome is "not proved".
/// In d ≥ 2 ([A] Thm 3.1: V = v·I, v > 0, βQ^T K ≻ 0, distinct tokens) the predicate is vertex
/// capture: every row has P_i,ℓ(i)(T) ≥ 1 − ε and every leader captures itself, hence is a
/// strictly exposed vertex of conv{x_j(T)}.
ProofResult prove_boolean_attention(const ProveInstance& instance, const ProveOptions& options);

/// Proves what the model allows: cone collapse for the sphere flows ([B] Lemma 6.4) and the
/// layer models ([Blog] Prop 2.1), Boolean attention (d = 1) and vertex capture (d ≥ 2) for sa-euclid. Deterministic: the
/// same input and options give the same numbers, whatever the machine load.
ProofResult prove(const ProveInstance& instance, const ProveOptions& options);

/// Rigorous enclosures of the flow at the given times (monotone, from 0, either direction), from
/// the instance's start, or from the box [start_lo, start_hi] when those are non-empty. For a flow
/// on the sphere, a box's enclosure holds the solutions from its points on the sphere; off it the
/// field is extended as y − ⟨x, y⟩x (model/attention.hpp's SphereExtension::Plain).
struct FlowResult {
  bool ok = false;
  std::string reason;
  double t_reached = 0;
  long steps = 0;
  std::vector<Box> boxes;  // one per requested time reached
  bool interrupted = false;  // stopped by ProveOptions::interrupt at t_reached (ok is false)
};
FlowResult enclose_flow(const ProveInstance& instance, const std::vector<double>& times, const ProveOptions& options,
                        const std::vector<double>& start_lo = {}, const std::vector<double>& start_hi = {});

/// Bytes a proof (or enclosure) of this instance with these options needs at its peak, estimated
/// from what verify/ allocates for one step: the Taylor coefficient arrays of the point series
/// (orders ≤ p, n² logits and exponentials), the Jacobian jets (orders ≤ q, each value carrying
/// n·d derivatives: n²·(n·d) intervals), the Lohner matrices (a handful of (n·d)² matrices); for
/// the layer models the layer's Jacobian and the attention matrices of dual numbers. A guard
/// against runs that cannot fit, measured against peak RSS in docs/verified.md, not a promise.
double proof_memory_bytes(const ProveInstance& instance, const ProveOptions& options);
inline constexpr double kDefaultMaxMemoryGb = 4;  // GiB (2^30 bytes)
/// InputError "prove: n = 2000, d = 3 needs about X GB (limit Y GB; --max-memory-gb to raise it)"
/// when the estimate exceeds max_gb GiB; nothing is allocated before the refusal.
void require_proof_memory(const ProveInstance& instance, const ProveOptions& options, double max_gb);

/// certificate.json of a proof (the instance, options and step sizes needed to re-verify it, and
/// everything report/proof_appendix.hpp needs to typeset it).
nlohmann::json make_certificate(const ProveInstance& instance, const ProveOptions& options, const ProofResult& r);

/// The keys of a certificate that are provenance, not claims: written by make_certificate (or the
/// CLI: source_config), type-checked, never compared with a recomputation.
inline constexpr const char* kCertificateProvenanceKeys[] = {"attnflow_version", "git", "seconds", "source_config"};

/// The schema of certificate.json, without running the proof: every key known (at every level,
/// for the certificate's model and outcome), every value of its type and range, every list of
/// the length the instance implies (n·d points, d·d weights, at most method.max_steps steps).
/// Throws InputError naming the field ("certificate.predicate.margin: must be a decimal string"),
/// nothing else; allocates nothing that grows with a number read from the input (a fuzz target).
void validate_certificate(const nlohmann::json& certificate);

/// Re-verifies a certificate: validate_certificate (InputError), then the proof recomputed with
/// the certificate's instance, method and step sizes, and the certificate make_certificate writes
/// for that recomputation compared with the stored one key by key: every claim (outcome, T, steps,
/// step sizes, predicate, enclosures, width trace, start, the texts derived from the predicate and
/// the model) must be equal, every key present in both; only kCertificateProvenanceKeys are not
/// compared. Also the method's settings a replay of given steps does not read (tol, max_step, …)
/// are not claims: an edit there leaves the same valid proof (docs/verified.md).
struct CheckResult {
  bool accepted = false;
  bool interrupted = false;  // stopped by the interrupt flag: neither accepted nor rejected
  std::string message;  // one line: why rejected, or what was verified (the same on every run)
  double seconds = 0;   // the recomputation's wall time (not in the message: results stay deterministic)
};
struct CheckLimits {
  const std::atomic<bool>* interrupt = nullptr;  // polled by the recomputation (ProveOptions::interrupt)
  double max_memory_gb = kDefaultMaxMemoryGb;    // require_proof_memory before recomputing
};
CheckResult check_certificate(const nlohmann::json& certificate, const CheckLimits& limits = {});

/// t rounded to the nearest multiple of 2^-24, the time quantum every step size is a multiple of
/// (enclose_flow lands exactly on such times).
double nearest_quantum_time(double t);

/// Wall time of proving the instance in a config file (for `attnflow bench`: prove4_seconds,
/// prove8_seconds). Throws if the instance is not proved.
double prove_benchmark_seconds(const std::string& instance_path);
/// Wall time of enclosing the flow of an instance up to t_end (euclid8x4_seconds); the largest
/// width at t_end in max_width. Throws if the enclosure is lost on the way.
double enclose_benchmark_seconds(const std::string& instance_path, double t_end, double& max_width);

/// Interval self-tests (tests/verify/verify_interval.cpp): outward-rounded end points of the enclosures
/// of e^x and √x computed by the given kind ("double" or "mpfi", digits) on the interval [x, x].
std::pair<double, double> exp_enclosure(const std::string& kind, const std::string& x, int digits = 40);
std::pair<double, double> sqrt_enclosure(const std::string& kind, const std::string& x, int digits = 40);
/// Double-interval products [a_lo, a_hi]·[b_lo, b_hi] by the recurrences' multiplication (one
/// loop, as in the Taylor recurrences): outward-rounded end points, element by element.
std::vector<std::pair<double, double>> mul_enclosures(const std::vector<double>& a_lo, const std::vector<double>& a_hi,
                                                      const std::vector<double>& b_lo, const std::vector<double>& b_hi);
/// The same for mpfi with decimal end points at full precision (for comparison at 100 digits).
std::pair<std::string, std::string> exp_enclosure_mpfi_text(const std::string& x, int digits);

}  // namespace attnflow::verify
