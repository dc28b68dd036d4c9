#include "report/wire_render.hpp"

#include "wire/base64.hpp"
#include "wire/registration_table.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

using namespace pdcheck::wire;

namespace {

using json = nlohmann::json;
using R = Registration;

std::string value_text(std::uint64_t v, bool hex)
{
  return hex ? hex_u64(v) : std::to_string(v);
}

json lists_json(const U64Lists& lists)
{
  json out = json::array();
  for (const auto& list : lists) {
    out.push_back(list);
  }
  return out;
}

json i32_lists_json(const I32Lists& lists)
{
  json out = json::array();
  for (const auto& list : lists) {
    out.push_back(list);
  }
  return out;
}

bool is_mori(const Registration& r)
{
  return r.backend == TransferBackend::mori;
}

// SGLang's name for a field of `r`, from its backend's frame tables: e.g.
// dst_tp_rank is "dst_tp_rank" on Mooncake and "decode_tp_rank" on Mori and NIXL.
std::string name(const Registration& r, const FrameMember& member)
{
  return std::string(registration_field_name(r.backend, member));
}

json components_json(const Registration& r)
{
  json out = json::array();
  for (const ComponentSummary& c : summarize_components(r)) {
    json groups = json::array();
    for (const TensorGroup& g : c.groups) {
      json jg = {{"first_entry", g.first_entry},
                 {"last_entry", g.first_entry + g.entries - 1},
                 {"entries", g.entries},
                 {"likely_tensor", g.likely_tensor},
                 {"why", g.why}};
      jg["item_len"] = g.item_len ? json(*g.item_len) : json(nullptr);
      jg["dim"] = g.dim ? json(*g.dim) : json(nullptr);
      jg["layer_ids"] = g.layer_ids;
      groups.push_back(std::move(jg));
    }
    json jc = {{"index", c.index}, {"entries", c.entries}, {"tensor_groups", std::move(groups)}};
    jc["bytes_per_slot"] = c.bytes_per_slot ? json(*c.bytes_per_slot) : json(nullptr);
    out.push_back(std::move(jc));
  }
  return out;
}

json frames_json(const std::vector<FrameInfo>& frames)
{
  json out = json::array();
  for (const FrameInfo& f : frames) {
    out.push_back({{"index", f.index}, {"field", f.field}, {"encoding", f.encoding}, {"bytes", f.bytes}});
  }
  return out;
}

// The table printer: one "name  value" line per field.
struct Table
{
  std::string out;
  void row(std::string_view name, std::string_view value) { out += fmt::format("  {:<28} {}\n", name, value); }
};

std::string lists_text(const U64Lists& lists, bool hex)
{
  if (lists.empty()) {
    return "[]";
  }
  std::string out;
  for (std::size_t i = 0; i < lists.size(); ++i) {
    out += (i == 0 ? "" : " | ") + fmt::format("[{}]", compact_list(lists[i], hex));
  }
  return out;
}

std::string i32_list_text(const std::vector<std::int32_t>& values)
{
  std::vector<std::uint64_t> as_u64;
  bool negative = false;
  for (std::int32_t v : values) {
    negative = negative || v < 0;
    as_u64.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
  }
  if (negative) {
    std::string out;
    for (std::size_t i = 0; i < values.size() && i < 8; ++i) {
      out += (i == 0 ? "" : ", ") + std::to_string(values[i]);
    }
    return values.size() > 8 ? out + fmt::format(", ... ({} values)", values.size()) : out;
  }
  return compact_list(as_u64, false);
}

std::string blob_text(const Bytes& bytes)
{
  return fmt::format("{} bytes {}", bytes.size(), python_bytes_repr(bytes, 32));
}

} // namespace

std::string compact_list(const std::vector<std::uint64_t>& values, bool hex)
{
  if (values.empty()) {
    return "";
  }
  // Runs of equal values (typical of item lens and dims) print as "v xN".
  std::vector<std::pair<std::uint64_t, std::size_t>> runs;
  for (std::uint64_t v : values) {
    if (!runs.empty() && runs.back().first == v) {
      ++runs.back().second;
    } else {
      runs.emplace_back(v, 1);
    }
  }
  std::string out;
  if (runs.size() <= 4 && runs.size() < values.size()) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
      out += (i == 0 ? "" : ", ") + value_text(runs[i].first, hex);
      if (runs[i].second > 1) {
        out += fmt::format(" x{}", runs[i].second);
      }
    }
    return out;
  }
  if (values.size() <= 6) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      out += (i == 0 ? "" : ", ") + value_text(values[i], hex);
    }
    return out;
  }
  return fmt::format("{}, {}, {}, ..., {} ({} values)", value_text(values[0], hex), value_text(values[1], hex),
                     value_text(values[2], hex), value_text(values.back(), hex), values.size());
}

std::string compact_ids(const std::vector<std::uint64_t>& ids)
{
  if (ids.empty()) {
    return "";
  }
  std::string out;
  std::size_t i = 0;
  std::size_t shown = 0;
  while (i < ids.size()) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) {
      ++j;
    }
    if (shown == 8) {
      out += ",...";
      break;
    }
    out += (out.empty() ? "" : ",") + (j == i ? std::to_string(ids[i]) : fmt::format("{}-{}", ids[i], ids[j]));
    ++shown;
    i = j + 1;
  }
  return fmt::format("{} ({} {})", out, ids.size(), ids.size() == 1 ? "id" : "ids");
}

json registration_to_json(const Registration& r)
{
  json j;
  j["kind"] = "registration";
  j["backend"] = std::string(transfer_backend_name(r.backend));
  j["generation"] = std::string(generation_name(r.generation));
  j["generation_number"] = std::string(generation_number(r.generation));
  j["generation_evidence"] = r.generation_evidence;
  j["generation_forced"] = r.generation_forced;
  j["synthetic_pointers"] = r.synthetic_pointers;
  j[name(r, &R::room)] = r.room;
  j[name(r, &R::endpoint)] = r.endpoint;
  j[name(r, &R::dst_port)] = r.dst_port;
  switch (r.backend) {
  case TransferBackend::mooncake: j[name(r, &R::mooncake_session_id)] = r.mooncake_session_id; break;
  case TransferBackend::mori:
    j[name(r, &R::engine_desc)] = {{"bytes", r.engine_desc.size()}, {"base64", base64_encode(r.engine_desc)}};
    break;
  case TransferBackend::nixl:
    j[name(r, &R::agent_name)] = r.agent_name;
    j[name(r, &R::agent_metadata)] = {{"bytes", r.agent_metadata.size()}};
    break;
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: wire::throw_not_wire_speaking(r.backend);
  }
  if (is_mori(r)) {
    j[name(r, &R::dst_kv_mem_descs)] = {{"bytes", r.dst_kv_mem_descs.size()}, {"descriptors", r.kv_mem_desc_count}};
    j[name(r, &R::dst_aux_mem_descs)] = {{"bytes", r.dst_aux_mem_descs.size()}, {"descriptors", r.aux_mem_desc_count}};
    j[name(r, &R::dst_state_mem_descs)] = {{"bytes", r.dst_state_mem_descs.size()},
                                {"descriptors_per_component", r.state_mem_desc_counts}};
  } else {
    j[name(r, &R::dst_kv_ptrs)] = r.dst_kv_ptrs;
    j[name(r, &R::dst_aux_ptrs)] = r.dst_aux_ptrs;
    j[name(r, &R::dst_state_data_ptrs)] = lists_json(r.dst_state_data_ptrs);
  }
  if (r.backend != TransferBackend::mooncake) {
    j[name(r, &R::gpu_id)] = r.gpu_id;
  }
  j[name(r, &R::dst_tp_rank)] = r.dst_tp_rank;
  j[name(r, &R::dst_attn_tp_size)] = r.dst_attn_tp_size;
  j[name(r, &R::dst_kv_item_len)] = r.dst_kv_item_len;
  j[name(r, &R::dst_state_item_lens)] = lists_json(r.dst_state_item_lens);
  j[name(r, &R::dst_state_dim_per_tensor)] = lists_json(r.dst_state_dim_per_tensor);
  if (!is_mori(r)) {
    j[name(r, &R::dst_kv_layer_ids)] = r.dst_kv_layer_ids;
    j[name(r, &R::dst_state_layer_ids)] = lists_json(r.dst_state_layer_ids);
    j[name(r, &R::staging_base_ptr)] = r.staging_base_ptr;
    j[name(r, &R::staging_total_size)] = r.staging_total_size;
    j[name(r, &R::dst_dcp_size)] = r.dst_dcp_size;
    j[name(r, &R::dst_dcp_rank)] = r.dst_dcp_rank;
    j[name(r, &R::dst_kv_item_lens)] = r.dst_kv_item_lens;
  }
  if (r.backend == TransferBackend::mooncake) {
    if (r.generation == Generation::flat) {
      j[name(r, &R::enable_hisparse)] = r.enable_hisparse;
    }
    j[name(r, &R::staging_slot_layer_ids)] = r.staging_slot_layer_ids;
    json kv = nullptr;
    json state = nullptr;
    if (r.unified_layouts_json) {
      const json doc = json::parse(*r.unified_layouts_json, nullptr, false);
      if (doc.is_object()) {
        kv = doc.value("kv", json(nullptr));
        state = doc.value("state", json(nullptr));
      }
    }
    j["dst_unified_kv_layout"] = kv;
    j["dst_unified_state_layout"] = state;
  }
  if (r.backend == TransferBackend::nixl) {
    j[name(r, &R::dst_num_slots)] = r.dst_num_slots ? json(*r.dst_num_slots) : json(nullptr);
    j[name(r, &R::dst_kv_mem_kinds)] = r.dst_kv_mem_kinds;
  }
  j["components"] = components_json(r);
  j["frames"] = frames_json(r.frames);
  j["notes"] = r.notes;
  return j;
}

json transfer_info_to_json(const TransferInfo& t)
{
  json j;
  j["kind"] = "transfer_info";
  j["backend"] = std::string(transfer_backend_name(t.backend));
  j["generation"] = std::string(generation_name(t.generation));
  j["generation_evidence"] = t.generation_evidence;
  j["room"] = t.room;
  j["endpoint"] = t.endpoint;
  j["dst_port"] = t.dst_port;
  switch (t.backend) {
  case TransferBackend::mooncake: j["mooncake_session_id"] = t.mooncake_session_id; break;
  case TransferBackend::mori: j["engine_key"] = t.engine_key; break;
  case TransferBackend::nixl: j["agent_name"] = t.agent_name; break;
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: wire::throw_not_wire_speaking(t.backend);
  }
  j["dst_kv_indices"] = t.dst_kv_indices;
  j["dst_aux_index"] = t.dst_aux_index ? json(*t.dst_aux_index) : json(nullptr);
  j["dst_state_indices"] = i32_lists_json(t.dst_state_indices);
  j["required_dst_info_num"] = t.required_dst_info_num;
  if (t.generation == Generation::components) {
    j["decode_prefix_len"] = t.decode_prefix_len ? json(*t.decode_prefix_len) : json(nullptr);
  }
  if (t.backend == TransferBackend::mooncake && t.generation == Generation::components) {
    j["dst_device_kv_indices"] = t.dst_device_kv_indices ? json(*t.dst_device_kv_indices) : json(nullptr);
  }
  if (t.backend == TransferBackend::nixl && t.generation == Generation::components) {
    j["is_dummy_rank"] = t.is_dummy_rank ? json(*t.is_dummy_rank) : json(nullptr);
    j["transfer_generation"] = t.transfer_generation;
  }
  const auto [dummy, rule] = dummy_rule(t);
  j["is_dummy"] = dummy;
  j["dummy_rule"] = rule;
  j["frames"] = frames_json(t.frames);
  j["notes"] = t.notes;
  return j;
}

std::string registration_to_text(const Registration& r)
{
  std::string out = fmt::format("{} registration, {} ({})\n", transfer_backend_name(r.backend),
                                generation_name(r.generation), generation_number(r.generation));
  for (const std::string& e : r.generation_evidence) {
    out += "  evidence: " + e + "\n";
  }
  if (r.synthetic_pointers) {
    out += "  pointers are synthetic (made by pdcheck encode): never write to them\n";
  }
  out += "\n";
  Table t;
  t.row(name(r, &R::room), r.room);
  t.row(name(r, &R::endpoint), r.endpoint);
  t.row(name(r, &R::dst_port), std::to_string(r.dst_port));
  switch (r.backend) {
  case TransferBackend::mooncake: t.row(name(r, &R::mooncake_session_id), r.mooncake_session_id); break;
  case TransferBackend::mori: t.row(name(r, &R::engine_desc), blob_text(r.engine_desc)); break;
  case TransferBackend::nixl:
    t.row(name(r, &R::agent_name), r.agent_name);
    t.row(name(r, &R::agent_metadata), fmt::format("{} bytes", r.agent_metadata.size()));
    break;
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: wire::throw_not_wire_speaking(r.backend);
  }
  if (is_mori(r)) {
    t.row(name(r, &R::dst_kv_mem_descs), fmt::format("{} descriptors ({} bytes)", r.kv_mem_desc_count, r.dst_kv_mem_descs.size()));
    t.row(name(r, &R::dst_aux_mem_descs),
          fmt::format("{} descriptors ({} bytes)", r.aux_mem_desc_count, r.dst_aux_mem_descs.size()));
    std::vector<std::uint64_t> counts(r.state_mem_desc_counts.begin(), r.state_mem_desc_counts.end());
    t.row(name(r, &R::dst_state_mem_descs),
          fmt::format("per component [{}] ({} bytes)", compact_list(counts), r.dst_state_mem_descs.size()));
    t.row(name(r, &R::gpu_id), std::to_string(r.gpu_id));
  } else {
    t.row(name(r, &R::dst_kv_ptrs), fmt::format("[{}]", compact_list(r.dst_kv_ptrs, true)));
    t.row(name(r, &R::dst_aux_ptrs), fmt::format("[{}]", compact_list(r.dst_aux_ptrs, true)));
    t.row(name(r, &R::dst_state_data_ptrs), lists_text(r.dst_state_data_ptrs, true));
    if (r.backend == TransferBackend::nixl) {
      t.row(name(r, &R::gpu_id), std::to_string(r.gpu_id));
    }
  }
  t.row(name(r, &R::dst_tp_rank), std::to_string(r.dst_tp_rank));
  t.row(name(r, &R::dst_attn_tp_size), std::to_string(r.dst_attn_tp_size));
  t.row(name(r, &R::dst_kv_item_len), std::to_string(r.dst_kv_item_len));
  t.row(name(r, &R::dst_state_item_lens), lists_text(r.dst_state_item_lens, false));
  t.row(name(r, &R::dst_state_dim_per_tensor), lists_text(r.dst_state_dim_per_tensor, false));
  if (!is_mori(r)) {
    t.row(name(r, &R::dst_kv_layer_ids), r.dst_kv_layer_ids.empty() ? "[]" : compact_ids(r.dst_kv_layer_ids));
    std::string ids;
    for (std::size_t c = 0; c < r.dst_state_layer_ids.size(); ++c) {
      ids += (c == 0 ? "" : " | ") + fmt::format("[{}]", compact_ids(r.dst_state_layer_ids[c]));
    }
    t.row(name(r, &R::dst_state_layer_ids), ids.empty() ? "[]" : ids);
    t.row(name(r, &R::staging_base_ptr), hex_u64(r.staging_base_ptr));
    t.row(name(r, &R::staging_total_size), std::to_string(r.staging_total_size));
    t.row(name(r, &R::dst_dcp_size), std::to_string(r.dst_dcp_size));
    t.row(name(r, &R::dst_dcp_rank), std::to_string(r.dst_dcp_rank));
    t.row(name(r, &R::dst_kv_item_lens), fmt::format("[{}]", compact_list(r.dst_kv_item_lens)));
  }
  if (r.backend == TransferBackend::mooncake) {
    if (r.generation == Generation::flat) {
      t.row(name(r, &R::enable_hisparse), r.enable_hisparse ? "True" : "False");
    }
    t.row(name(r, &R::staging_slot_layer_ids), fmt::format("[{}]", compact_list(r.staging_slot_layer_ids)));
    t.row("unified layouts (frame 20)",
          r.unified_layouts_json ? fmt::format("{} bytes of JSON", r.unified_layouts_json->size()) : "None");
  }
  if (r.backend == TransferBackend::nixl) {
    t.row(name(r, &R::dst_num_slots), r.dst_num_slots ? std::to_string(*r.dst_num_slots) : "None");
    // Runs of the same kind, as for numbers: "VRAM x24".
    std::string kinds;
    for (std::size_t i = 0; i < r.dst_kv_mem_kinds.size();) {
      std::size_t j = i;
      while (j < r.dst_kv_mem_kinds.size() && r.dst_kv_mem_kinds[j] == r.dst_kv_mem_kinds[i]) {
        ++j;
      }
      kinds += (i == 0 ? "" : ", ") + r.dst_kv_mem_kinds[i] + (j - i > 1 ? fmt::format(" x{}", j - i) : "");
      i = j;
    }
    t.row(name(r, &R::dst_kv_mem_kinds), "[" + kinds + "]");
  }
  out += t.out;

  for (const ComponentSummary& c : summarize_components(r)) {
    out += fmt::format("\nstate component {}: {} {}", c.index, c.entries, c.entries == 1 ? "entry" : "entries");
    if (c.bytes_per_slot) {
      out += fmt::format(", {} bytes per slot", *c.bytes_per_slot);
    }
    out += "\n";
    out += fmt::format("  {:<10} {:<10} {:<8} {:<30} {}\n", "entries", "item_len", "dim", "layers", "likely tensor");
    for (const TensorGroup& g : c.groups) {
      const std::string range = g.entries == 1 ? std::to_string(g.first_entry)
                                               : fmt::format("{}-{}", g.first_entry, g.first_entry + g.entries - 1);
      out += fmt::format("  {:<10} {:<10} {:<8} {:<30} {}\n", range, g.item_len ? std::to_string(*g.item_len) : "-",
                         g.dim ? std::to_string(*g.dim) : "-", g.layer_ids.empty() ? "-" : compact_ids(g.layer_ids),
                         g.likely_tensor);
    }
  }
  if (!r.notes.empty()) {
    out += "\nnotes:\n";
    for (const std::string& n : r.notes) {
      out += "  " + n + "\n";
    }
  }
  return out;
}

std::string transfer_info_to_text(const TransferInfo& t)
{
  std::string out =
    fmt::format("{} TransferInfo, {}\n", transfer_backend_name(t.backend), generation_name(t.generation));
  for (const std::string& e : t.generation_evidence) {
    out += "  evidence: " + e + "\n";
  }
  out += "\n";
  Table table;
  table.row("room", std::to_string(t.room));
  table.row("endpoint", t.endpoint);
  table.row("dst_port", std::to_string(t.dst_port));
  switch (t.backend) {
  case TransferBackend::mooncake: table.row("mooncake_session_id", t.mooncake_session_id); break;
  case TransferBackend::mori: table.row("engine_key", t.engine_key); break;
  case TransferBackend::nixl: table.row("agent_name", t.agent_name); break;
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: wire::throw_not_wire_speaking(t.backend);
  }
  table.row("dst_kv_indices", fmt::format("[{}]", i32_list_text(t.dst_kv_indices)));
  table.row("dst_aux_index", t.dst_aux_index ? std::to_string(*t.dst_aux_index) : "None");
  std::string state;
  for (std::size_t c = 0; c < t.dst_state_indices.size(); ++c) {
    state += (c == 0 ? "" : ", ") + fmt::format("[{}]", i32_list_text(t.dst_state_indices[c]));
  }
  table.row("dst_state_indices", "[" + state + "]");
  table.row("required_dst_info_num", std::to_string(t.required_dst_info_num));
  if (t.generation == Generation::components) {
    table.row("decode_prefix_len", t.decode_prefix_len ? std::to_string(*t.decode_prefix_len) : "None");
  }
  if (t.backend == TransferBackend::mooncake && t.generation == Generation::components) {
    table.row("dst_device_kv_indices",
              t.dst_device_kv_indices ? fmt::format("[{}]", i32_list_text(*t.dst_device_kv_indices)) : "None");
  }
  if (t.backend == TransferBackend::nixl && t.generation == Generation::components) {
    table.row("is_dummy_rank", t.is_dummy_rank ? (*t.is_dummy_rank ? "True" : "False") : "None");
    table.row("transfer_generation", t.transfer_generation);
  }
  const auto [dummy, rule] = dummy_rule(t);
  table.row("is_dummy", fmt::format("{} ({})", dummy ? "True" : "False", rule));
  out += table.out;
  for (std::size_t c = 0; c < t.dst_state_indices.size(); ++c) {
    out += fmt::format("\nstate component {}: {} {}\n", c, t.dst_state_indices[c].size(),
                       t.dst_state_indices[c].size() == 1 ? "index" : "indices");
  }
  if (!t.notes.empty()) {
    out += "\nnotes:\n";
    for (const std::string& n : t.notes) {
      out += "  " + n + "\n";
    }
  }
  return out;
}

} // namespace pdcheck::report
