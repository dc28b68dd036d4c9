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

std::vector<model::Architecture> archs()
{
  return {{"TinyForCausalLM", "tiny", model::ConfigReader::nemotron_h, "", false, "configs/tiny.py@0123", "high", "", ""},
          {"TinyVlForConditionalGeneration", "tiny_vl", model::ConfigReader::gdn, "text_config", true,
           "configs/tiny_vl.py@4567", "medium", "the route is unseen", ""},
          {"OldForCausalLM", "old", model::ConfigReader::refused, "", false, "configs/old.py@89ab", "", "",
           "never merged"}};
}

} // namespace

TEST_CASE("models_to_text: a table, then each model's source", "[report]")
{
  CHECK(report::models_to_text(rows(), "r7", {}).rfind(
        "built-in model catalog, revision r7\n"
        "\n"
        "NAME           HF REPO           ARCHITECTURE       FAMILY  STATE LAYERS\n"
        "tiny           org/Tiny          TinyForCausalLM    mamba2  2 of 4\n"
        "a-longer-name  org/Longer-Model  LongerForCausalLM  gdn     36 of 48\n"
        "\n"
        "sources:\n"
        "  tiny: https://example.org/tiny\n"
        "  a-longer-name: https://example.org/longer\n", 0) == 0);
}

TEST_CASE("models_to_text: every architecture, its reader and confidence, then sources and reasons", "[report]")
{
  const std::string text = report::models_to_text({}, "r7", archs());
  const std::string tail = text.substr(text.find("\narchitectures"));
  CHECK(tail ==
        "\narchitectures (a config.json's architectures[0]; SGLang files under python/sglang/srt/):\n"
        "\n"
        "ARCHITECTURE                    MODEL TYPE  READER      LANGUAGE MODEL       CONFIDENCE\n"
        "TinyForCausalLM                 tiny        nemotron_h  -                    high\n"
        "TinyVlForConditionalGeneration  tiny_vl     gdn         text_config or root  medium\n"
        "OldForCausalLM                  old         refused     -                    refused\n"
        "\n"
        "sglang sources, and what is not confirmed:\n"
        "  TinyForCausalLM: configs/tiny.py@0123\n"
        "  TinyVlForConditionalGeneration: configs/tiny_vl.py@4567; not confirmed: the route is unseen\n"
        "  OldForCausalLM: configs/old.py@89ab; refused: never merged\n");
}

TEST_CASE("models_to_json: the revision and one object per row, in order", "[report]")
{
  const auto j = report::models_to_json(rows(), "r7", archs());
  CHECK(j["catalog_revision"] == "r7");
  REQUIRE(j["models"].size() == 2);
  CHECK(j["models"][1] == nlohmann::ordered_json({{"name", "a-longer-name"},
                                                  {"hf_repo", "org/Longer-Model"},
                                                  {"architecture", "LongerForCausalLM"},
                                                  {"family", "gdn"},
                                                  {"num_hidden_layers", 48},
                                                  {"state_layers", 36},
                                                  {"source", "https://example.org/longer"}}));
  REQUIRE(j["architectures"].size() == 3);
  CHECK(j["architectures"][1] == nlohmann::ordered_json({{"architecture", "TinyVlForConditionalGeneration"},
                                                         {"model_type", "tiny_vl"},
                                                         {"reader", "gdn"},
                                                         {"language_model", "text_config"},
                                                         {"language_model_optional", true},
                                                         {"supported", true},
                                                         {"confidence", "medium"},
                                                         {"sglang_source", "configs/tiny_vl.py@4567"},
                                                         {"not_confirmed", "the route is unseen"},
                                                         {"refusal", nullptr}}));
  CHECK(j["architectures"][2]["supported"] == false);
  CHECK(j["architectures"][2]["confidence"].is_null());
  CHECK(j["architectures"][2]["refusal"] == "never merged");
}
