// `pdcheck models` from plain rows: aligned columns sized by the widest cell,
// sources listed after the table, the catalog revision in both forms.
#include "report/models_render.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;

namespace {

std::vector<report::ModelRow> rows()
{
  return {{"tiny", "org/Tiny", "TinyForCausalLM", "mamba2", 4, 2, "https://example.org/tiny"},
          {"a-longer-name", "org/Longer-Model", "LongerForCausalLM", "gdn", 48, 36, "https://example.org/longer"}};
}

} // namespace

TEST_CASE("models_to_text: a table, then each model's source", "[report]")
{
  CHECK(report::models_to_text(rows(), "r7") ==
        "built-in model catalog, revision r7\n"
        "\n"
        "NAME           HF REPO           ARCHITECTURE       FAMILY  STATE LAYERS\n"
        "tiny           org/Tiny          TinyForCausalLM    mamba2  2 of 4\n"
        "a-longer-name  org/Longer-Model  LongerForCausalLM  gdn     36 of 48\n"
        "\n"
        "sources:\n"
        "  tiny: https://example.org/tiny\n"
        "  a-longer-name: https://example.org/longer\n");
}

TEST_CASE("models_to_json: the revision and one object per row, in order", "[report]")
{
  const auto j = report::models_to_json(rows(), "r7");
  CHECK(j["catalog_revision"] == "r7");
  REQUIRE(j["models"].size() == 2);
  CHECK(j["models"][1] == nlohmann::ordered_json({{"name", "a-longer-name"},
                                                  {"hf_repo", "org/Longer-Model"},
                                                  {"architecture", "LongerForCausalLM"},
                                                  {"family", "gdn"},
                                                  {"num_hidden_layers", 48},
                                                  {"state_layers", 36},
                                                  {"source", "https://example.org/longer"}}));
}
