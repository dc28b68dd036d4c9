#include "wire/registration.hpp"

#include "model/layout.hpp"
#include "wire/msgpack.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

namespace pdcheck::wire {

namespace {

constexpr std::uint64_t k_state_base = 0x7f00'0000'0000;
constexpr std::uint64_t k_kv_base = 0x7e00'0000'0000;
constexpr std::uint64_t k_aux_base = 0x7d00'0000'0000;
constexpr std::uint64_t k_component_stride = 0x100'0000'0000; // 1 TiB
constexpr std::uint64_t k_entry_stride = 0x1'0000'0000;       // 4 GiB
// CUDA allocations are 2 MiB-aligned, not 4 GiB-aligned: the low 32 bits of a
// real pointer are almost never zero. SGLang parsers that misread a pointer
// array as pack_int_lists take those bits as a sub-list count, so synthetic
// pointers carry realistic low bits to fail the way real ones do (a 4 GiB-aligned
// pointer would read as count 0 and parse on as garbage).
constexpr std::uint64_t k_low_bits = 0x3c20'0000;

// Every wire field, in one place, so that operator== cannot forget one.
auto wire_fields(const Registration& r)
{
  return std::tie(r.backend, r.room, r.endpoint, r.dst_port, r.dst_tp_rank, r.dst_attn_tp_size,
                  r.dst_kv_item_len, r.dst_state_item_lens, r.dst_state_dim_per_tensor, r.dst_kv_ptrs, r.dst_aux_ptrs,
                  r.dst_state_data_ptrs, r.dst_kv_layer_ids, r.dst_state_layer_ids, r.staging_base_ptr,
                  r.staging_total_size, r.dst_dcp_size, r.dst_dcp_rank, r.dst_kv_item_lens, r.mooncake_session_id,
                  r.enable_hisparse, r.staging_slot_layer_ids, r.unified_layouts_json, r.gpu_id, r.engine_desc,
                  r.dst_kv_mem_descs, r.dst_aux_mem_descs, r.dst_state_mem_descs, r.kv_mem_desc_count,
                  r.aux_mem_desc_count, r.state_mem_desc_counts, r.agent_name, r.agent_metadata, r.dst_num_slots,
                  r.dst_kv_mem_kinds);
}

// A synthetic Mori memory descriptor: opaque bytes that say what they stand for.
Bytes synthetic_desc(std::string_view kind, std::uint64_t ptr)
{
  return to_bytes(fmt::format("pdcheck synthetic MemoryDesc {} {:#x}", kind, ptr));
}

Bytes desc_list(std::string_view kind, const std::vector<std::uint64_t>& ptrs)
{
  if (ptrs.empty()) {
    return {};
  }
  Bytes out;
  append_msgpack_array_header(out, ptrs.size());
  for (std::uint64_t p : ptrs) {
    append_msgpack_bin(out, synthetic_desc(kind, p));
  }
  return out;
}

Bytes nested_desc_list(const U64Lists& ptrs)
{
  if (ptrs.empty()) {
    return {};
  }
  Bytes out;
  append_msgpack_array_header(out, ptrs.size());
  for (const auto& component : ptrs) {
    append_msgpack_array_header(out, component.size());
    for (std::uint64_t p : component) {
      append_msgpack_bin(out, synthetic_desc("state", p));
    }
  }
  return out;
}

std::size_t entries_of(const U64Lists& lists, std::size_t c)
{
  return c < lists.size() ? lists[c].size() : 0;
}

} // namespace

bool operator==(const Registration& a, const Registration& b)
{
  return wire_fields(a) == wire_fields(b);
}

std::vector<std::size_t> state_entry_counts(const Registration& r)
{
  const std::size_t components =
    std::max({r.dst_state_data_ptrs.size(), r.dst_state_item_lens.size(), r.dst_state_dim_per_tensor.size(),
              r.state_mem_desc_counts.size()});
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < components; ++c) {
    std::size_t n = std::max({entries_of(r.dst_state_data_ptrs, c), entries_of(r.dst_state_item_lens, c)});
    if (c < r.state_mem_desc_counts.size()) {
      n = std::max(n, r.state_mem_desc_counts[c]);
    }
    // Dims can be longer than the entries (early-2026 spec-decoding bug), so they
    // count only when nothing else says how many entries there are.
    if (n == 0) {
      n = entries_of(r.dst_state_dim_per_tensor, c);
    }
    out.push_back(n);
  }
  return out;
}

std::uint64_t synthetic_state_ptr(std::size_t component, std::size_t entry)
{
  return k_state_base + component * k_component_stride + entry * k_entry_stride + k_low_bits;
}

std::uint64_t synthetic_kv_ptr(std::size_t entry)
{
  return k_kv_base + entry * k_entry_stride + k_low_bits;
}

std::uint64_t synthetic_aux_ptr(std::size_t entry)
{
  return k_aux_base + entry * k_entry_stride + k_low_bits;
}

bool is_synthetic_pointer(std::uint64_t value)
{
  const std::uint64_t top = value >> 40;
  return (top >= 0x7d && top <= 0x7f) && (value % k_entry_stride) == k_low_bits;
}

Registration registration_from_layout(const model::RankLayout& layout, const RegistrationParams& params)
{
  Registration r;
  r.backend = params.backend;
  r.generation = params.generation;
  r.generation_evidence.push_back(
    fmt::format("derived from the layout of attention-TP rank {}, PP rank {} ({} {})", layout.attn_tp_rank,
                layout.pp_rank, transfer_backend_name(params.backend), generation_name(params.generation)));
  r.generation_forced = true;
  r.synthetic_pointers = true;
  r.endpoint = params.endpoint;
  r.dst_port = params.dst_port;
  r.dst_tp_rank = params.dst_tp_rank;
  r.dst_attn_tp_size = params.dst_attn_tp_size;
  r.dst_kv_item_len = params.kv_item_lens.empty() ? 0 : static_cast<std::int64_t>(params.kv_item_lens[0]);
  r.gpu_id = params.gpu_id;

  const bool components =
    params.generation == Generation::components || params.generation == Generation::components_layouts;
  // Flat generations carry one state_type: the layout's first (MAMBA) component.
  // Pointers are counted from the layout's entries, not from state_item_lens:
  // pre-dims decodes register one pointer per entry but send no item lengths.
  const std::size_t layout_components = std::max(layout.state_item_lens.size(), layout.entries.empty() ? 0 : std::size_t{1});
  const std::size_t n_components = components ? layout_components : std::min<std::size_t>(1, layout_components);
  U64Lists ptrs;
  for (std::size_t c = 0; c < n_components; ++c) {
    const std::size_t entries = c == 0 ? layout.entries.size() : layout.state_item_lens[c].size();
    std::vector<std::uint64_t> component;
    for (std::size_t e = 0; e < entries; ++e) {
      component.push_back(synthetic_state_ptr(c, e));
    }
    ptrs.push_back(std::move(component));
  }
  auto first = [&](const U64Lists& lists) {
    return U64Lists(lists.begin(), lists.begin() + static_cast<std::ptrdiff_t>(std::min(n_components, lists.size())));
  };
  const bool has_dims = params.generation != Generation::pre_dims;
  std::vector<std::uint64_t> kv_ptrs;
  for (std::size_t e = 0; e < params.kv_item_lens.size(); ++e) {
    kv_ptrs.push_back(synthetic_kv_ptr(e));
  }
  std::vector<std::uint64_t> aux_ptrs;
  for (std::size_t e = 0; e < params.aux_entries; ++e) {
    aux_ptrs.push_back(synthetic_aux_ptr(e));
  }
  if (has_dims) {
    r.dst_state_item_lens = first(layout.state_item_lens);
    r.dst_state_dim_per_tensor = first(layout.state_dim_per_tensor);
  }

  switch (params.backend) {
  case TransferBackend::mooncake:
    r.mooncake_session_id = fmt::format("{}:{}", params.endpoint, params.dst_port + 1);
    r.dst_kv_ptrs = kv_ptrs;
    r.dst_aux_ptrs = aux_ptrs;
    r.dst_state_data_ptrs = ptrs;
    if (components) {
      r.dst_state_layer_ids = layout.state_layer_ids;
      r.dst_dcp_size = params.dcp_size;
      r.dst_dcp_rank = params.dcp_rank;
    }
    if (params.generation == Generation::components_layouts) {
      r.dst_kv_item_lens = params.kv_item_lens;
    }
    break;
  case TransferBackend::mori: {
    r.engine_desc = to_bytes(fmt::format("pdcheck synthetic EngineDesc {}:{}", params.endpoint, params.dst_port + 1));
    r.dst_kv_mem_descs = desc_list("kv", kv_ptrs);
    r.dst_aux_mem_descs = desc_list("aux", aux_ptrs);
    r.kv_mem_desc_count = kv_ptrs.size();
    r.aux_mem_desc_count = aux_ptrs.size();
    if (components) {
      r.dst_state_mem_descs = nested_desc_list(ptrs);
    } else {
      r.dst_state_mem_descs = desc_list("state", ptrs.empty() ? std::vector<std::uint64_t>{} : ptrs[0]);
    }
    for (const auto& component : ptrs) {
      r.state_mem_desc_counts.push_back(component.size());
    }
    if (!components && !ptrs.empty() && ptrs[0].empty()) {
      r.state_mem_desc_counts.clear();
    }
    break;
  }
  case TransferBackend::nixl:
    r.agent_name = fmt::format("pdcheck-synthetic-agent-tp{}", params.dst_tp_rank);
    r.agent_metadata = to_bytes("pdcheck synthetic NIXL agent metadata");
    r.dst_kv_ptrs = kv_ptrs;
    r.dst_aux_ptrs = aux_ptrs;
    r.dst_state_data_ptrs = ptrs;
    if (components) {
      r.dst_state_layer_ids = layout.state_layer_ids;
      r.dst_dcp_size = params.dcp_size;
      r.dst_dcp_rank = params.dcp_rank;
      r.dst_kv_item_lens = params.kv_item_lens;
      r.dst_kv_mem_kinds.assign(kv_ptrs.size(), "VRAM");
      // SGLang sends kv_data_lens[0] // kv_item_lens[0]; without a KV model the
      // slot count is unknown, so 0, as SGLang sends for no KV entries.
      r.dst_num_slots = 0;
    }
    break;
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: throw_not_wire_speaking(params.backend);
  }
  // Flat generations decode an empty state frame as no component at all.
  if (!components) {
    auto drop_empty = [](U64Lists& lists) {
      if (lists.size() == 1 && lists[0].empty()) {
        lists.clear();
      }
    };
    drop_empty(r.dst_state_data_ptrs);
    drop_empty(r.dst_state_item_lens);
    drop_empty(r.dst_state_dim_per_tensor);
  }
  return r;
}

std::vector<ComponentSummary> summarize_components(const Registration& r)
{
  std::vector<ComponentSummary> out;
  const std::vector<std::size_t> counts = state_entry_counts(r);
  for (std::size_t c = 0; c < counts.size(); ++c) {
    ComponentSummary summary;
    summary.index = c;
    summary.entries = counts[c];
    const std::vector<std::uint64_t> empty;
    const auto& lens = c < r.dst_state_item_lens.size() ? r.dst_state_item_lens[c] : empty;
    const auto& dims = c < r.dst_state_dim_per_tensor.size() ? r.dst_state_dim_per_tensor[c] : empty;
    const auto& ids = c < r.dst_state_layer_ids.size() ? r.dst_state_layer_ids[c] : empty;
    if (lens.size() == summary.entries && !lens.empty()) {
      std::uint64_t total = 0;
      for (std::uint64_t v : lens) {
        total += v;
      }
      summary.bytes_per_slot = total;
    }
    const bool use_ids = ids.size() == summary.entries && !ids.empty();
    const bool use_lens = lens.size() == summary.entries && !lens.empty();
    const bool use_dims = dims.size() >= summary.entries && !dims.empty();

    TensorGroup current;
    std::set<std::uint64_t> seen;
    auto close = [&](std::size_t next) {
      if (current.entries > 0) {
        summary.groups.push_back(current);
      }
      current = TensorGroup{};
      current.first_entry = next;
      seen.clear();
    };
    for (std::size_t e = 0; e < summary.entries; ++e) {
      bool starts_new = false;
      std::string why;
      if (use_ids) {
        starts_new = seen.count(ids[e]) > 0;
        why = "layer ids restart";
      } else if (use_lens) {
        const bool len_changes = current.entries > 0 && lens[e] != lens[e - 1];
        const bool dim_changes = use_dims && current.entries > 0 && dims[e] != dims[e - 1];
        starts_new = len_changes || dim_changes;
        why = "run of equal item_len and dim";
      }
      if (starts_new) {
        close(e);
      }
      if (current.entries == 0) {
        current.why = why.empty() ? "no item lens or layer ids to split by" : why;
        if (use_lens) {
          current.item_len = lens[e];
        }
        if (use_dims) {
          current.dim = dims[e];
        }
      }
      if (use_lens && current.item_len && *current.item_len != lens[e]) {
        current.item_len.reset();
      }
      if (use_dims && current.dim && *current.dim != dims[e]) {
        current.dim.reset();
      }
      if (use_ids) {
        current.layer_ids.push_back(ids[e]);
        seen.insert(ids[e]);
      }
      ++current.entries;
    }
    close(summary.entries);

    const std::size_t k = summary.groups.size();
    for (std::size_t g = 0; g < k; ++g) {
      TensorGroup& group = summary.groups[g];
      if (k == 1 && group.entries == 1 && dims.empty() && ids.empty() && !lens.empty()) {
        group.likely_tensor = "unified envelope (all layers of one slot)";
      } else if (k == 1) {
        group.likely_tensor = "state";
      } else if (g + 1 == k) {
        group.likely_tensor = "temporal";
      } else if (k == 2) {
        group.likely_tensor = "conv";
      } else {
        group.likely_tensor = fmt::format("conv[{}]", g);
      }
    }
    out.push_back(std::move(summary));
  }
  return out;
}

} // namespace pdcheck::wire
