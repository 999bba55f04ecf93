// Fuzzes the statement-file reader, and the simulate configs a parsed statement generates for
// its first instance and for each control's.
#include "attnflow/catalogue/statement_spec.hpp"
#include "fuzz_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return attnflow::fuzz::read_fuzzed_json(data, size, [](const nlohmann::json& j) {
    const attnflow::StatementSpec s = attnflow::parse_statement(j, "fuzz-statement.json");
    if (s.hook) return;  // a hook's instances are its own code, not configs
    (void)attnflow::parse_sim_config(attnflow::instance_config(s, 0, 1));
    for (const auto& c : s.controls) {
      const attnflow::StatementSpec control = attnflow::control_statement(s, c);
      (void)attnflow::parse_sim_config(attnflow::instance_config(control, 0, 1));
    }
  });
}
