#include "io/model_loader.hpp"
#include "model/catalog.hpp"
#include "util/error.hpp"

#include "../../support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

using namespace pdcheck;

namespace {

namespace fs = std::filesystem;

/// Each test file keeps its own temp-dir prefix, so leftovers say who left them.
struct ModelTempDir : test::TempDir
{
  ModelTempDir() : test::TempDir("pdcheck-model") {}
};

/// Runs `f`, which must throw InputError, and returns it for exact checks.
template <typename F>
InputError input_error_of(F&& f)
{
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  throw std::logic_error("unreachable");
}

const std::string k_lfm2_config = R"({
  "architectures": ["Lfm2ForCausalLM"],
  "model_type": "lfm2",
  "num_hidden_layers": 3,
  "layer_types": ["conv", "full_attention", "conv"],
  "hidden_size": 1024,
  "conv_L_cache": 3,
  "num_attention_heads": 16,
  "num_key_value_heads": 8
}
)";

const std::string k_catalog_names =
  "qwen3-next-80b-a3b, qwen3.5-35b-a3b, qwen3.5-27b, nemotron-h-8b, nemotron-nano-9b-v2, nemotron-3-nano-30b-a3b, "
  "falcon-h1-7b, falcon-h1-1.5b, kimi-linear-48b-a3b, lfm2-2.6b, granite-4.0-h-tiny";

} // namespace

TEST_CASE("io::load_model: a catalog name loads the built-in config")
{
  const model::ModelSpec spec = io::load_model("nemotron-h-8b");
  CHECK(spec.name == "nemotron-h-8b");
  CHECK(spec.architecture == "NemotronHForCausalLM");
  CHECK(spec.state_layer_ids.size() == 24);
  CHECK(spec.source == model::find_catalog_entry("nemotron-h-8b")->source);
}

TEST_CASE("io::load_model: an HF repo id loads its catalog entry, in any case")
{
  const model::ModelSpec spec = io::load_model("moonshotai/kimi-linear-48b-a3b-instruct");
  CHECK(spec.name == "kimi-linear-48b-a3b");
  CHECK(spec.family == model::StateFamily::kda);
}

TEST_CASE("io::load_model: a model directory is read through its config.json")
{
  const ModelTempDir dir;
  dir.write("my-model/config.json", k_lfm2_config);
  const model::ModelSpec spec = io::load_model("my-model", dir.path.string());
  CHECK(spec.name == "my-model");
  CHECK(spec.source == (dir.path / "my-model" / "config.json").string());
  CHECK(spec.state_layer_ids == std::vector<int>{0, 2});
}

TEST_CASE("io::load_model: a config file path is read directly, relative to base_dir or absolute")
{
  const ModelTempDir dir;
  const std::string file = dir.write("configs/lfm2.json", k_lfm2_config);
  CHECK(io::load_model("configs/lfm2.json", dir.path.string()).family == model::StateFamily::short_conv);
  // An absolute path ignores base_dir.
  CHECK(io::load_model(file, "/nonexistent").source == file);
}

TEST_CASE("io::load_model: a path that exists wins over a catalog name")
{
  const ModelTempDir dir;
  dir.write("nemotron-h-8b/config.json", k_lfm2_config);
  const model::ModelSpec spec = io::load_model("nemotron-h-8b", dir.path.string());
  CHECK(spec.architecture == "Lfm2ForCausalLM");
}

TEST_CASE("io::load_model: a directory without config.json cannot be read")
{
  const ModelTempDir dir;
  fs::create_directories(dir.path / "empty");
  const InputError e = input_error_of([&] { io::load_model("empty", dir.path.string()); });
  CHECK(e.where() == (dir.path / "empty" / "config.json").string());
  CHECK(e.detail() == "cannot read model config: No such file or directory");
}

TEST_CASE("io::load_model: a config.json that is a directory cannot be read")
{
  const ModelTempDir dir;
  fs::create_directories(dir.path / "odd" / "config.json");
  const InputError e = input_error_of([&] { io::load_model("odd", dir.path.string()); });
  CHECK(e.where() == (dir.path / "odd" / "config.json").string());
  CHECK(e.detail() == "cannot read model config: Is a directory");
}

TEST_CASE("io::load_model: a JSON syntax error names the line and column")
{
  const ModelTempDir dir;
  const std::string file = dir.write("bad/config.json", "{\n  \"model_type\": \"lfm2\",\n  \"hidden_size\": }\n");
  const InputError e = input_error_of([&] { io::load_model(file); });
  CHECK(e.where() == file + ":3:18");
  CHECK(e.detail() ==
        "invalid JSON: syntax error while parsing value - unexpected '}'; expected '[', '{', or a literal");
}

TEST_CASE("io::load_model: a number out of range is an input error naming the file")
{
  const ModelTempDir dir;
  const std::string file = dir.write("huge/config.json", "{\n  \"model_type\": \"lfm2\",\n  \"hidden_size\": 1e999\n}\n");
  const InputError e = input_error_of([&] { io::load_model(file); });
  CHECK(e.where() == file);
  CHECK(e.detail() == "invalid JSON: number overflow parsing '1e999'");
}

TEST_CASE("io::load_model: a truncated file reports the end of the text")
{
  const ModelTempDir dir;
  const std::string file = dir.write("short.json", "{\n  \"a\": 1,\n");
  const InputError e = input_error_of([&] { io::load_model(file); });
  CHECK(e.where() == file + ":3:1");
  CHECK(e.detail() == "invalid JSON: syntax error while parsing object key - unexpected end of input; expected "
                      "string literal");
}

TEST_CASE("io::load_model: config errors name the file")
{
  const ModelTempDir dir;
  const std::string file = dir.write("llama/config.json", R"({"architectures": ["LlamaForCausalLM"]})");
  const InputError e = input_error_of([&] { io::load_model(file); });
  CHECK(e.where() == file);
  CHECK(e.detail().rfind("unsupported architecture 'LlamaForCausalLM': ", 0) == 0);
}

TEST_CASE("io::load_model: an unknown name lists the catalog")
{
  const ModelTempDir dir;
  const InputError e = input_error_of([&] { io::load_model("no-such-model", dir.path.string()); });
  CHECK(e.where() == "no-such-model");
  CHECK(e.detail() == "no such model directory, config.json or catalog entry; catalog has: " + k_catalog_names);
}

TEST_CASE("io::load_model: a near miss gets a did-you-mean")
{
  const ModelTempDir dir;
  const InputError e = input_error_of([&] { io::load_model("nemotron-h-9b", dir.path.string()); });
  CHECK(e.where() == "nemotron-h-9b");
  CHECK(e.detail() == "no such model directory, config.json or catalog entry; catalog has: " + k_catalog_names +
                        "; did you mean 'nemotron-h-8b'?");
}

TEST_CASE("io::load_model: an empty reference is refused")
{
  const InputError e = input_error_of([] { io::load_model(""); });
  CHECK(e.where() == "model");
  CHECK(e.detail() == "empty model reference: give a catalog name, a model directory or a config.json");
}

TEST_CASE("io::load_model: the Granite-4.0-H-1B fixture is hybrid")
{
  const model::ModelSpec spec = io::load_model("tests/data/models/granite-4.0-h-1b", PDCHECK_SOURCE_DIR);
  CHECK(spec.architecture == "granitemoehybrid");
  CHECK(spec.state_layer_ids.size() == 36);
  CHECK(spec.num_attention_layers == 4);
  CHECK(spec.intermediate_size == 3072);
}

TEST_CASE("io::load_model: the Granite-4.0-Micro fixture is refused as not hybrid")
{
  const InputError e =
    input_error_of([] { io::load_model("tests/data/models/granite-4.0-micro", PDCHECK_SOURCE_DIR); });
  CHECK(e.where() == std::string(PDCHECK_SOURCE_DIR) + "/tests/data/models/granite-4.0-micro/config.json");
  CHECK(e.detail() == "granitemoehybrid config has no \"mamba\" entry in layer_types: it is not a hybrid model, so "
                      "SGLang allocates no Mamba state to check");
}
