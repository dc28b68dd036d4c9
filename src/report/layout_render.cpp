#include "report/layout_render.hpp"

#include "report/finding_json.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape)
{
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return s + ")";
}

std::string grouped(std::int64_t n)
{
  std::string digits = std::to_string(n);
  std::string out;
  const int len = static_cast<int>(digits.size());
  for (int i = 0; i < len; ++i) {
    if (i > 0 && (len - i) % 3 == 0) {
      out += ',';
    }
    out += digits[static_cast<std::size_t>(i)];
  }
  return out;
}

nlohmann::ordered_json tensor_json(const model::StateTensor& t)
{
  nlohmann::ordered_json j;
  j["name"] = t.name;
  j["per_slot_shape"] = t.per_slot_shape;
  j["dtype"] = dtype_name(t.dtype);
  j["item_len"] = t.item_len;
  j["slice_axis"] = t.slice_axis;
  j["slice_dim"] = t.slice_dim;
  j["outer_count"] = t.outer_count;
  j["registered_dim"] = t.registered_dim;
  j["conv_shard_groups"] = t.conv_shard_groups.empty() ? nlohmann::ordered_json(nullptr)
                                                       : nlohmann::ordered_json(t.conv_shard_groups);
  j["registered"] = t.registered;
  j["replicated"] = t.replicated;
  return j;
}

nlohmann::ordered_json rank_json(const model::RankLayout& r)
{
  nlohmann::ordered_json j;
  j["attn_tp_rank"] = r.attn_tp_rank;
  j["pp_rank"] = r.pp_rank;
  j["unified"] = r.unified;
  j["layer_ids"] = r.layer_ids;
  j["bytes_per_request"] = r.bytes_per_request;
  j["state_types"] = r.state_types;
  j["state_item_lens"] = r.state_item_lens;
  j["state_dim_per_tensor"] = r.state_dim_per_tensor;
  j["state_layer_ids"] = r.state_layer_ids;
  auto tensors = nlohmann::ordered_json::array();
  for (const auto& t : r.tensors) {
    tensors.push_back(tensor_json(t));
  }
  j["tensors"] = std::move(tensors);
  auto entries = nlohmann::ordered_json::array();
  for (const auto& e : r.entries) {
    nlohmann::ordered_json ej;
    ej["tensor"] = e.tensor < 0 ? std::string("unified") : r.tensors[static_cast<std::size_t>(e.tensor)].name;
    ej["layer_id"] = e.layer_id < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.layer_id);
    ej["item_len"] = e.item_len;
    ej["dim"] = e.dim;
    entries.push_back(std::move(ej));
  }
  j["entries"] = std::move(entries);
  return j;
}

/// Ranks of one PP stage differ only in their rank number: group them.
bool same_shape(const model::RankLayout& a, const model::RankLayout& b)
{
  return a.pp_rank == b.pp_rank && a.layer_ids == b.layer_ids && a.bytes_per_request == b.bytes_per_request;
}

} // namespace

nlohmann::ordered_json layout_to_json(const sglang::Side& side, const model::Layout& layout)
{
  nlohmann::ordered_json j;
  j["model"] = side.model.name;
  j["architecture"] = side.model.architecture;
  j["profile"] = side.profile.name;
  j["role"] = sglang::role_name(side.role);
  j["servable"] = layout.servable();
  j["tp_size"] = layout.tp_size;
  j["attn_tp_size"] = layout.attn_tp_size;
  j["attn_dp_size"] = layout.attn_dp_size;
  j["pp_size"] = layout.pp_size;
  auto ranks = nlohmann::ordered_json::array();
  for (const auto& r : layout.ranks) {
    ranks.push_back(rank_json(r));
  }
  j["ranks"] = std::move(ranks);
  auto findings = nlohmann::ordered_json::array();
  for (const auto& f : layout.findings) {
    findings.push_back(finding_to_json(f));
  }
  j["findings"] = std::move(findings);
  return j;
}

std::string layout_to_text(const sglang::Side& side, const model::Layout& layout)
{
  std::string out = fmt::format("{} ({}) · SGLang profile {} · tp {} · attention TP {} · PP {}\n", side.model.name,
                                side.model.architecture, side.profile.name, layout.tp_size, layout.attn_tp_size,
                                layout.pp_size);
  for (const Finding& f : layout.findings) {
    out += fmt::format("{}: [{}] {}\n", severity_name(f.severity), f.rule, f.message);
    if (f.runtime_error) {
      out += fmt::format("  SGLang: {}\n", *f.runtime_error);
    }
    out += fmt::format("  fix: {}\n", f.fix);
  }
  std::size_t i = 0;
  while (i < layout.ranks.size()) {
    std::size_t j = i + 1;
    while (j < layout.ranks.size() && same_shape(layout.ranks[i], layout.ranks[j])) {
      ++j;
    }
    const model::RankLayout& r = layout.ranks[i];
    const std::string who = j - i == 1 ? fmt::format("rank {}", r.attn_tp_rank)
                                       : fmt::format("ranks {}-{}", r.attn_tp_rank, layout.ranks[j - 1].attn_tp_rank);
    out += fmt::format("\n{} (pp {}): {} state layers, {} registered entries, {} bytes per request{}\n", who, r.pp_rank,
                       r.layer_ids.size(), r.entries.size(), grouped(r.bytes_per_request),
                       r.unified ? " (unified memory: one envelope per slot)" : "");
    out += fmt::format("  {:<9} {:<16} {:<9} {:>9} {:>5} {:>7} {:>6}  {}\n", "tensor", "per-slot shape", "dtype",
                       "item_len", "axis", "dim", "layers", "registered");
    for (const auto& t : r.tensors) {
      out += fmt::format("  {:<9} {:<16} {:<9} {:>9} {:>5} {:>7} {:>6}  {}\n", t.name, shape_text(t.per_slot_shape),
                         dtype_name(t.dtype), t.item_len, t.slice_axis, t.registered_dim, r.layer_ids.size(),
                         !t.registered ? "no (zero-size)"
                         : r.unified   ? "in envelope"
                         : t.replicated ? "yes (whole on every rank, dim as if sharded)"
                                        : "yes");
    }
    if (!r.state_item_lens.empty() && !r.unified) {
      out += fmt::format("  registration: state_item_lens {} entries, state_dim_per_tensor {} entries, state_layer_ids {}\n",
                         r.state_item_lens[0].size(), r.state_dim_per_tensor[0].size(),
                         r.state_layer_ids.empty() ? std::string("not sent") : fmt::format("{} entries", r.state_layer_ids[0].size()));
    } else if (r.state_item_lens.empty()) {
      out += "  registration: pointers only (this profile sends no state_item_lens or dims)\n";
    }
    i = j;
  }
  return out;
}

} // namespace pdcheck::report
