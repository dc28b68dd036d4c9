#include "probe/side_wire.hpp"

#include "sglang/launch_flags.hpp"

#include "probe/peer_fields.hpp"
#include "probe/probe_error.hpp"
#include "core/profile.hpp"
#include "sglang/server_args.hpp"
#include "util/untrusted_text.hpp"

#include <fmt/format.h>

namespace pdcheck::probe {

namespace {

struct Fnv
{
  std::uint64_t h = 0xcbf29ce484222325ULL;
  void add(std::int64_t v)
  {
    for (int i = 0; i < 8; ++i) {
      h ^= static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i));
      h *= 0x100000001b3ULL;
    }
  }
  void add(const std::string& s)
  {
    add(static_cast<std::int64_t>(s.size()));
    for (char c : s) {
      h ^= static_cast<std::uint8_t>(c);
      h *= 0x100000001b3ULL;
    }
  }
};

nlohmann::json model_to_json(const model::ModelSpec& m)
{
  nlohmann::json j;
  j["name"] = m.name;
  j["source"] = m.source;
  j["architecture"] = m.architecture;
  j["model_type"] = m.model_type;
  j["family"] = static_cast<int>(m.family);
  j["num_hidden_layers"] = m.num_hidden_layers;
  j["state_layer_ids"] = m.state_layer_ids;
  j["intermediate_size"] = m.intermediate_size;
  j["n_groups"] = m.n_groups;
  j["num_heads"] = m.num_heads;
  j["head_dim"] = m.head_dim;
  j["state_size"] = m.state_size;
  j["conv_kernel"] = m.conv_kernel;
  j["kda_num_heads"] = m.kda_num_heads;
  j["kda_head_dim"] = m.kda_head_dim;
  j["kda_num_k_heads"] = m.kda_num_k_heads;
  j["kda_head_k_dim"] = m.kda_head_k_dim;
  j["config_ssm_dtype"] = m.config_ssm_dtype ? nlohmann::json(std::string(dtype_name(*m.config_ssm_dtype)))
                                             : nlohmann::json();
  j["num_attention_heads"] = m.num_attention_heads;
  j["num_key_value_heads"] = m.num_key_value_heads;
  j["num_attention_layers"] = m.num_attention_layers;
  j["hybrid_mla"] = m.hybrid_mla;
  j["minicpm_sparse_attention"] = m.minicpm_sparse_attention;
  j["gdn_conv_shard_groups"] = m.gdn_conv_shard_groups;
  j["state_sharded_by_full_tp"] = m.state_sharded_by_full_tp;
  j["confidence"] = m.confidence;
  j["confidence_note"] = m.confidence_note;
  j["sglang_source"] = m.sglang_source;
  j["replicated_conv_channels"] = m.replicated_conv_channels;
  j["fixed_state_dtype"] = m.fixed_state_dtype ? nlohmann::json(std::string(dtype_name(*m.fixed_state_dtype)))
                                               : nlohmann::json();
  return j;
}

model::ModelSpec model_from_json(const nlohmann::json& j)
{
  // Every integer range-checked: a narrowed layer count or head size would
  // give a layout that only looks like the peer's.
  const PeerObject in(j, "the peer's hello side.model", Phase::handshake);
  model::ModelSpec m;
  m.name = j.at("name").get<std::string>();
  m.source = j.at("source").get<std::string>();
  m.architecture = j.at("architecture").get<std::string>();
  m.model_type = j.at("model_type").get<std::string>();
  in.integer<int>("family"); // required: an absent family is not the first one
  const int family = in.integer_in<int>("family", 0, 0, static_cast<int>(model::StateFamily::rwkv7));
  m.family = static_cast<model::StateFamily>(family);
  m.num_hidden_layers = in.integer<int>("num_hidden_layers");
  m.state_layer_ids = in.integers<int>("state_layer_ids");
  m.intermediate_size = in.integer<std::int64_t>("intermediate_size");
  m.n_groups = in.integer<std::int64_t>("n_groups");
  m.num_heads = in.integer<std::int64_t>("num_heads");
  m.head_dim = in.integer<std::int64_t>("head_dim");
  m.state_size = in.integer<std::int64_t>("state_size");
  m.conv_kernel = in.integer<std::int64_t>("conv_kernel");
  m.kda_num_heads = in.integer<std::int64_t>("kda_num_heads");
  m.kda_head_dim = in.integer<std::int64_t>("kda_head_dim");
  m.kda_num_k_heads = in.integer<std::int64_t>("kda_num_k_heads");
  m.kda_head_k_dim = in.integer<std::int64_t>("kda_head_k_dim");
  if (!j.at("config_ssm_dtype").is_null()) {
    m.config_ssm_dtype = parse_dtype(j.at("config_ssm_dtype").get<std::string>());
  }
  m.num_attention_heads = in.integer<int>("num_attention_heads");
  m.num_key_value_heads = in.integer<int>("num_key_value_heads");
  m.num_attention_layers = in.integer<int>("num_attention_layers");
  m.hybrid_mla = j.at("hybrid_mla").get<bool>();
  m.minicpm_sparse_attention = j.value("minicpm_sparse_attention", false);
  // Added with the architecture table; a peer from before it sends none, and
  // the defaults are what its architectures had.
  m.gdn_conv_shard_groups = j.value("gdn_conv_shard_groups", true);
  m.state_sharded_by_full_tp = j.value("state_sharded_by_full_tp", false);
  m.confidence = j.value("confidence", std::string("high"));
  m.confidence_note = j.value("confidence_note", std::string());
  m.sglang_source = j.value("sglang_source", std::string());
  m.replicated_conv_channels = j.value("replicated_conv_channels", std::int64_t{0});
  if (const auto it = j.find("fixed_state_dtype"); it != j.end() && it->is_string()) {
    m.fixed_state_dtype = parse_dtype(it->get<std::string>());
  }
  return m;
}

} // namespace

std::string layout_digest(const model::Layout& layout)
{
  Fnv f;
  f.add(layout.tp_size);
  f.add(layout.attn_tp_size);
  f.add(layout.pp_size);
  for (const model::RankLayout& r : layout.ranks) {
    f.add(r.attn_tp_rank);
    f.add(r.pp_rank);
    f.add(r.unified ? 1 : 0);
    for (const model::StateTensor& t : r.tensors) {
      f.add(t.name);
      f.add(static_cast<std::int64_t>(t.dtype));
      for (std::int64_t d : t.per_slot_shape) {
        f.add(d);
      }
      f.add(t.item_len);
      f.add(t.slice_axis);
      f.add(t.registered_dim);
    }
    for (const model::StateEntry& e : r.entries) {
      f.add(e.tensor);
      f.add(e.layer_id);
      f.add(e.item_len);
      f.add(e.dim);
    }
  }
  return fmt::format("{:016x}", f.h);
}

nlohmann::json side_to_json(const sglang::Side& side)
{
  nlohmann::json j;
  j["profile"] = side.profile.name;
  j["model"] = model_to_json(side.model);
  // The launch arguments as SGLang would see them again: every understood flag
  // with its value. --config files were already folded into `given`.
  std::vector<std::string> words;
  for (const auto& [dest, origin] : side.args.given) {
    if (dest == "config" || origin.flag.empty()) {
      continue;
    }
    words.push_back(origin.flag.rfind("--", 0) == 0 ? origin.flag : "--" + origin.flag);
    if (!origin.value.empty()) {
      words.push_back(origin.value);
    }
  }
  j["args"] = words;
  j["env"] = side.args.env;
  return j;
}

sglang::Side side_from_json(const nlohmann::json& j, sglang::Role role)
{
  sglang::Side side;
  side.role = role;
  side.origin = fmt::format("the peer's {} side", sglang::role_name(role));
  try {
    const std::string profile = j.at("profile").get<std::string>();
    const Profile* p = find_profile(profile);
    if (p == nullptr) {
      throw ProbeError(Phase::handshake,
                       fmt::format("the peer runs SGLang profile '{}', unknown to this pdcheck",
                                   printable_untrusted(profile, 64)),
                       "that both hosts run the same pdcheck version");
    }
    side.profile = *p;
    side.sglang = profile;
    side.model = model_from_json(j.at("model"));
    const auto words = j.at("args").get<std::vector<std::string>>();
    const auto env = j.at("env").get<std::map<std::string, std::string>>();
    side.args = sglang::parse_launch_args(words, side.origin, env, nullptr, ".",
                                          sglang::flag_tables_for(side.profile.name).table);
  } catch (const ProbeError&) {
    throw;
  } catch (const std::exception& e) {
    throw ProbeError(Phase::handshake,
                     fmt::format("the peer's side description is unusable: {}", printable_untrusted(e.what())),
                     "that both hosts run the same pdcheck version");
  }
  return side;
}

} // namespace pdcheck::probe
