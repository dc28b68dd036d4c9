// `pdcheck models` from plain rows: aligned columns sized by the widest cell,
// sources listed after the table, the catalog revision in both forms, and
// which state each backend transfers.
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
  CHECK(report::models_to_text(rows(), "r7", {}, {}).rfind(
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
  const std::string text = report::models_to_text({}, "r7", archs(), {});
  const std::size_t from = text.find("\narchitectures");
  const std::string tail = text.substr(from, text.find("\nMamba state transfer") - from);
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
  const auto j = report::models_to_json(rows(), "r7", archs(), {});
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

namespace {

plan::Transferability transfers()
{
  plan::Transferability t;
  t.mamba = {{TransferBackend::mooncake, "0.5.3.post3", "#10912", "high"}, {TransferBackend::mori, "", "#22665", ""}};
  t.components_release = "0.5.23";
  plan::ComponentTransfer swa;
  swa.type = sglang::ExtraStateType::swa;
  swa.backend = TransferBackend::nixl;
  swa.unequal_tp = {"RuntimeError: no", "maybe_send_extra"};
  t.components = {swa};
  return t;
}

} // namespace

TEST_CASE("models_to_text: which state each backend transfers comes last", "[report]")
{
  const std::string text = report::models_to_text({}, "r7", {}, transfers());
  CHECK(text.substr(text.find("\nMamba state transfer")) ==
        "\nMamba state transfer: the first release whose backend sends it (earlier releases move the KV cache only and "
        "leave the decode's state unwritten):\n"
        "  mooncake  0.5.3.post3 (PR #10912, release row confidence high)\n"
        "  mori      no modelled release (PR #22665, release row confidence -)\n"
        "\n"
        "other state components (a side file's extra_state_types), as SGLang 0.5.23 handles them on a non-MLA model; an "
        "MLA model passes the TP checks; \"sends\" means SGLang raises nothing (pdcheck simulates the bytes of the Mamba "
        "component only):\n"
        "  swa on nixl:\n"
        "    equal attention TP:   sends\n"
        "    unequal attention TP: raises RuntimeError: no (maybe_send_extra)\n"
        "    prefill PP 2:         sends\n");
  const auto j = report::models_to_json({}, "r7", {}, transfers())["transfers"];
  CHECK(j["mamba"][1] == nlohmann::ordered_json({{"backend", "mori"},
                                                 {"first_release", nullptr},
                                                 {"pull_request", "#22665"},
                                                 {"confidence", nullptr}}));
  CHECK(j["components"][0]["unequal_attn_tp"] ==
        nlohmann::ordered_json({{"sends", false}, {"raised", "RuntimeError: no"}, {"function", "maybe_send_extra"}}));
  CHECK(j["components"][0]["equal_attn_tp"]["sends"] == true);
}
