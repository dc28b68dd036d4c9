#include "io/model_loader.hpp"
#include "model/catalog.hpp"
#include "util/error.hpp"

#include "../../support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>
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

/// Every catalog name in the catalog's order, as the error lists them; the
/// catalog grows, so the list is built from it rather than copied.
const std::string k_catalog_names = [] {
  std::string names;
  for (const model::CatalogEntry& entry : model::catalog()) {
    names += (names.empty() ? "" : ", ") + std::string(entry.name);
  }
  return names;
}();

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

namespace {

/// Sets (or, with nullptr, unsets) environment variables for one test and puts
/// the old values back, so the Hugging Face cache lookup sees only what the
/// test chose.
class ScopedEnv
{
public:
  ScopedEnv(std::initializer_list<std::pair<const char*, const char*>> values)
  {
    for (const auto& [name, value] : values) {
      const char* old = std::getenv(name);
      saved_.emplace_back(name, old == nullptr ? std::nullopt : std::optional<std::string>(old));
      if (value == nullptr) {
        unsetenv(name);
      } else {
        setenv(name, value, 1);
      }
    }
  }
  ~ScopedEnv()
  {
    for (const auto& [name, old] : saved_) {
      if (old) {
        setenv(name.c_str(), old->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

const char* const k_hub_vars[] = {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "HOME"};

} // namespace

TEST_CASE("io::hub_cache_dir: huggingface_hub's order of variables")
{
  {
    const ScopedEnv env{{"HF_HUB_CACHE", "/a"}, {"HUGGINGFACE_HUB_CACHE", "/b"}, {"HF_HOME", "/c"},
                        {"XDG_CACHE_HOME", "/d"}, {"HOME", "/e"}};
    CHECK(io::hub_cache_dir() == fs::path("/a"));
  }
  {
    const ScopedEnv env{{"HF_HUB_CACHE", ""}, {"HUGGINGFACE_HUB_CACHE", "/b"}, {"HF_HOME", "/c"}};
    CHECK(io::hub_cache_dir() == fs::path("/b"));
  }
  {
    const ScopedEnv env{{"HF_HUB_CACHE", nullptr}, {"HUGGINGFACE_HUB_CACHE", nullptr}, {"HF_HOME", "/c"}};
    CHECK(io::hub_cache_dir() == fs::path("/c/hub"));
  }
  {
    const ScopedEnv env{{"HF_HUB_CACHE", nullptr}, {"HUGGINGFACE_HUB_CACHE", nullptr}, {"HF_HOME", nullptr},
                        {"XDG_CACHE_HOME", "/d"}};
    CHECK(io::hub_cache_dir() == fs::path("/d/huggingface/hub"));
  }
  {
    const ScopedEnv env{{"HF_HUB_CACHE", nullptr}, {"HUGGINGFACE_HUB_CACHE", nullptr}, {"HF_HOME", nullptr},
                        {"XDG_CACHE_HOME", nullptr}, {"HOME", "/e"}};
    CHECK(io::hub_cache_dir() == fs::path("/e/.cache/huggingface/hub"));
  }
  {
    const ScopedEnv env{{k_hub_vars[0], nullptr}, {k_hub_vars[1], nullptr}, {k_hub_vars[2], nullptr},
                        {k_hub_vars[3], nullptr}, {k_hub_vars[4], nullptr}};
    CHECK_FALSE(io::hub_cache_dir().has_value());
  }
  CHECK(io::hub_cache_entry("/hub", "LiquidAI/LFM2-2.6B") == fs::path("/hub/models--LiquidAI--LFM2-2.6B"));
}

TEST_CASE("io::load_model: a cache entry directory reads the snapshot refs/main names")
{
  const ModelTempDir dir;
  dir.write("models--Org--M/snapshots/aaaa/config.json", R"({"architectures": ["LlamaForCausalLM"]})");
  dir.write("models--Org--M/snapshots/bbbb/config.json", k_lfm2_config);
  dir.write("models--Org--M/refs/main", "bbbb\n");
  const model::ModelSpec spec = io::load_model("models--Org--M", dir.path.string());
  CHECK(spec.architecture == "Lfm2ForCausalLM");
  CHECK(spec.source == (dir.path / "models--Org--M" / "snapshots" / "bbbb" / "config.json").string());
}

TEST_CASE("io::load_model: a cache entry without refs/main reads its only snapshot")
{
  const ModelTempDir dir;
  dir.write("models--Org--M/snapshots/cccc/config.json", k_lfm2_config);
  fs::create_directories(dir.path / "models--Org--M" / "snapshots" / "dddd"); // a partial download
  CHECK(io::load_model("models--Org--M", dir.path.string()).state_layer_ids == std::vector<int>{0, 2});
}

TEST_CASE("io::load_model: several snapshots and no ref are refused, naming them")
{
  const ModelTempDir dir;
  dir.write("models--Org--M/snapshots/bbbb/config.json", k_lfm2_config);
  dir.write("models--Org--M/snapshots/aaaa/config.json", k_lfm2_config);
  dir.write("models--Org--M/refs/main", "ffff\n"); // names a snapshot that is not there
  const InputError e = input_error_of([&] { io::load_model("models--Org--M", dir.path.string()); });
  CHECK(e.where() == (dir.path / "models--Org--M" / "snapshots").string());
  CHECK(e.detail() == "2 snapshots have a config.json (aaaa, bbbb) and refs/main names none of them; give the "
                      "snapshot directory to use");
}

TEST_CASE("io::load_model: a cache entry with no config.json in any snapshot")
{
  const ModelTempDir dir;
  fs::create_directories(dir.path / "models--Org--M" / "snapshots" / "eeee");
  const InputError e = input_error_of([&] { io::load_model("models--Org--M", dir.path.string()); });
  CHECK(e.where() == (dir.path / "models--Org--M" / "snapshots").string());
  CHECK(e.detail() == "no snapshot in this Hugging Face cache entry has a config.json");
}

TEST_CASE("io::load_model: an HF id is found in the Hugging Face cache before the catalog")
{
  const ModelTempDir dir;
  const std::string hub = (dir.path / "hub").string();
  // The catalog also has LiquidAI/LFM2-2.6B; the downloaded copy wins.
  dir.write("hub/models--LiquidAI--LFM2-2.6B/snapshots/0123/config.json", k_lfm2_config);
  const ScopedEnv env{{"HF_HUB_CACHE", hub.c_str()}};
  const model::ModelSpec spec = io::load_model("LiquidAI/LFM2-2.6B", dir.path.string());
  CHECK(spec.name == "LiquidAI/LFM2-2.6B");
  CHECK(spec.source == hub + "/models--LiquidAI--LFM2-2.6B/snapshots/0123/config.json");
  CHECK(spec.state_layer_ids == std::vector<int>{0, 2});
}

TEST_CASE("io::load_model: an HF id neither cached nor catalogued names the cache folder it looked in")
{
  const ModelTempDir dir;
  const std::string home = (dir.path / "hf").string();
  const ScopedEnv env{{"HF_HUB_CACHE", nullptr}, {"HUGGINGFACE_HUB_CACHE", nullptr}, {"HF_HOME", home.c_str()}};
  const InputError e = input_error_of([&] { io::load_model("Org/Unknown-7B", dir.path.string()); });
  CHECK(e.where() == "Org/Unknown-7B");
  CHECK(e.detail() == "no such model directory, config.json or catalog entry; catalog has: " + k_catalog_names +
                        "; not in the Hugging Face cache either (" + home + "/hub/models--Org--Unknown-7B)");
}

TEST_CASE("io::load_model: a quantized upload of a catalogued model reads the catalog entry")
{
  const ModelTempDir dir;
  const std::string hub = (dir.path / "hub").string();
  const ScopedEnv env{{"HF_HUB_CACHE", hub.c_str()}};
  const model::ModelSpec base = io::load_model("qwen3-next-80b-a3b");
  for (const char* ref : {"Qwen/Qwen3-Next-80B-A3B-Instruct-FP8", "RedHatAI/Qwen3-Next-80B-A3B-Instruct-FP8-dynamic",
                          "qwen3-next-80b-a3b-AWQ", "someone/Qwen3-Next-80B-A3B-Instruct-quantized.w4a16"}) {
    INFO(ref);
    const model::ModelSpec spec = io::load_model(ref, dir.path.string());
    CHECK(spec.name == "qwen3-next-80b-a3b");
    CHECK(spec.state_layer_ids == base.state_layer_ids);
    CHECK(spec.intermediate_size == base.intermediate_size);
  }
  const model::ModelSpec fp8 = io::load_model("RedHatAI/Qwen3-Next-80B-A3B-Instruct-FP8-dynamic", dir.path.string());
  CHECK(fp8.source == base.source + " (read for RedHatAI/Qwen3-Next-80B-A3B-Instruct-FP8-dynamic: the '-FP8-dynamic' "
                                    "suffix names a quantization, which leaves the recurrent state's keys as they are; "
                                    "confidence medium)");
  // A suffix alone is not a variant of anything.
  CHECK_THROWS_AS(io::load_model("Qwen/Qwen3-Next-80B-FP8", dir.path.string()), InputError);
  // NVIDIA names the unquantized upload "-BF16" and its siblings "-FP8" and
  // "-NVFP4" in its place.
  for (const char* ref : {"nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"}) {
    INFO(ref);
    CHECK(io::load_model(ref, dir.path.string()).name == "nemotron-3-nano-30b-a3b");
  }
  CHECK_THROWS_AS(io::load_model("nvidia/NVIDIA-Nemotron-3-Nano-30B-FP8", dir.path.string()), InputError);
}
