// attnflow report --results DIR/results.json [--out DIR] → DIR/report.tex, DIR/report.pdf
// attnflow report --results DIR/results.json --only ID [--standalone] → DIR/ID.tex (one section)
// attnflow report --certificate CERT.json [--out DIR] → DIR/proof.tex (the proof's appendix)
// attnflow report --learn DIR/learn.json [--out DIR] → DIR/learn.tex, DIR/learn.pdf
// attnflow report --hunt DIR/hunt.json [--out DIR] → DIR/hunt.tex (the hunt's section)
#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/report/equilibrium_appendix.hpp"
#include "attnflow/report/hunt_report.hpp"
#include "attnflow/report/learn_report.hpp"
#include "attnflow/report/proof_appendix.hpp"
#include "attnflow/report/report.hpp"
#include "attnflow/verify/equilibrium.hpp"
#include "attnflow/verify/prove.hpp"
#include "cli/interrupt.hpp"
#include "cli/commands.hpp"

#include <filesystem>
#include <iostream>

namespace attnflow::cli {

int print_report_outcome(const ReportOutcome& r) {
  if (r.compiled)
    std::cout << "attnflow: report " << r.pdf_path << "\n";
  else
    std::cout << "attnflow: wrote " << r.tex_path << " (" << r.message << ")\n";
  return 0;
}

void register_report(CLI::App& app) {
  struct Options {
    std::string results, certificate, learn, hunt, out, only;
    bool no_pdf = false, standalone = false;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
      "report", "LaTeX report (and PDF) of a results.json or a learn.json, or the appendix of one proof");
  auto* results = sub->add_option("--results", o->results, "results.json written by attnflow check");
  auto* certificate = sub->add_option("--certificate", o->certificate, "certificate.json written by attnflow prove");
  results->excludes(certificate);
  auto* learn = sub->add_option("--learn", o->learn, "learn.json written by attnflow learn");
  learn->excludes(results)->excludes(certificate);
  auto* hunt = sub->add_option("--hunt", o->hunt, "hunt.json written by attnflow hunt (counterexample.json beside it)");
  hunt->excludes(results)->excludes(certificate)->excludes(learn);
  sub->add_option("--out", o->out, "output directory (default: beside the input)")->check(non_empty_path());
  sub->add_flag("--no-pdf", o->no_pdf, "write the .tex file and data only");
  auto* only = sub->add_option("--only", o->only, "one check's section alone, as DIR/ID.tex (to include in a paper)");
  only->needs(results);
  sub->add_flag("--standalone", o->standalone, "with --only: a document that compiles alone (DIR/ID.pdf)")->needs(only);
  add_command(sub, [o] {
    if (o->results.empty() && o->certificate.empty() && o->learn.empty() && o->hunt.empty())
      throw InputError(
          "report: give --results results.json, --learn learn.json, --hunt hunt.json or --certificate certificate.json");
    if (!o->hunt.empty()) {
      const std::filesystem::path beside = std::filesystem::path(o->hunt).parent_path();
      const std::string dir = o->out.empty() ? beside.string() : o->out;
      const nlohmann::json h = read_json_file(o->hunt);
      const bool found = h.is_object() && h.contains("found") && h.at("found") == true;
      const nlohmann::json c = found ? read_json_file((beside / "counterexample.json").string()) : nlohmann::json();
      const std::string path = (dir.empty() ? std::string(".") : dir) + "/hunt.tex";
      write_file_atomically(path, hunt_section_tex(h, c));
      std::cout << "attnflow: wrote " << path << "\n";
      return 0;
    }
    if (!o->learn.empty()) {
      const std::string dir = o->out.empty() ? std::filesystem::path(o->learn).parent_path().string() : o->out;
      return print_report_outcome(write_learn_report(read_json_file(o->learn), dir.empty() ? "." : dir, !o->no_pdf));
    }
    if (!o->certificate.empty()) {
      const std::string dir = o->out.empty() ? std::filesystem::path(o->certificate).parent_path().string() : o->out;
      const std::string path = (dir.empty() ? std::string(".") : dir) + "/proof.tex";
      const nlohmann::json cert = read_json_file(o->certificate);
      if (cert.is_object() && cert.contains("kind") && cert.at("kind") == "attnflow-equilibrium") {
        // Typeset only once recomputed, as equilibrium --check does.
        const verify::CheckResult checked = verify::check_equilibrium_certificate(cert);
        if (!checked.accepted) {
          std::cerr << "attnflow: " << checked.message << "; no proof typeset\n";
          return 1;
        }
        write_file_atomically(path, equilibrium_appendix_tex(cert));
        std::cout << "attnflow: wrote " << path << "\n";
        return 0;
      }
      verify::validate_certificate(cert);
      // A proof is typeset only once recomputed, as prove --check does: a schema-valid forgery
      // must not reach a page as a proof. A "not proved" certificate claims nothing to check.
      if (cert.at("outcome") == "proved") {
        const InterruptFlag interrupt;
        verify::CheckLimits limits;
        limits.interrupt = &interrupt.flag();
        const verify::CheckResult checked = verify::check_certificate(cert, limits);
        if (checked.interrupted) return 130;
        if (!checked.accepted) {
          std::cerr << "attnflow: " << checked.message << "; no proof typeset\n";
          return 1;
        }
      }
      write_file_atomically(path, proof_appendix_tex(cert));
      std::cout << "attnflow: wrote " << path << "\n";
      return 0;
    }
    const std::string out = o->out.empty() ? std::filesystem::path(o->results).parent_path().string() : o->out;
    const std::string results_dir = std::filesystem::path(o->results).parent_path().string();
    if (!o->only.empty())
      return print_report_outcome(write_section(read_json_file(o->results), o->only, out.empty() ? "." : out,
                                                o->standalone, !o->no_pdf, results_dir.empty() ? "." : results_dir));
    return print_report_outcome(write_report(read_json_file(o->results), out.empty() ? "." : out, !o->no_pdf,
                                             results_dir.empty() ? "." : results_dir));
  });
}

}  // namespace attnflow::cli
