#include "check/log_causes.hpp"

#include <stdexcept>
#include <string>

namespace pdcheck::check {

namespace {

struct Cause
{
  std::string_view name;
  std::string_view fix;
};

const std::vector<Cause> k_causes = {
  {"attn_tp_mismatch", "Use the same attention TP size on both sides (--tp-size, --dp-size with "
                       "--enable-dp-attention, attention CP), or a version that reslices state across TP."},
  {"ssm_dtype_mismatch", "Use the same --mamba-ssm-dtype / SGLANG_MAMBA_SSM_DTYPE on both sides."},
  {"conv_dtype_mismatch", "Use the same SGLANG_MAMBA_CONV_DTYPE on both sides."},
  {"unified_memory_one_side", "Enable --enable-unified-memory on both sides or on neither."},
  {"unified_memory_unequal_tp", "With --enable-unified-memory use equal attention TP sizes on both sides."},
  {"unified_memory_requirements", "Meet --enable-unified-memory's PD requirements (Mooncake, pp 1, lazy compaction, "
                                  "no --enable-hisparse) or drop the flag."},
  {"missing_dim_metadata", "Run an SGLang that registers state_dim_per_tensor on both sides (PR #22240 or later, the "
                           "same version on both sides)."},
  {"mixed_sglang_versions", "Run the same SGLang version on both sides."},
  {"batched_state_indices", "Send Mamba state per sequence: one state index per Mamba component and request."},
  {"empty_state_indices", "Filter out empty state index lists (cancelled or finished requests) before sending."},
  {"page_size_mismatch", "Use the same --page-size on both sides."},
  {"kv_cache_dtype_mismatch", "Use the same --kv-cache-dtype on both sides."},
  {"pp_mismatch", "Run the decode with the prefill's --pp-size or with --pp-size 1, on a version that exchanges "
                  "layer ids."},
  {"decode_context_parallel", "Run the decode without attention context parallelism."},
  {"tp_not_divisible", "Pick an attention TP size that divides the model's state heads and channels (see "
                       "`pdcheck layout`)."},
  {"model_mismatch", "Point both sides at the same model (same config.json)."},
  {"backend_version_too_old", "Upgrade SGLang on both sides, or use the Mooncake backend."},
  {"mori_registration_bug", "Upgrade the decode past v0.5.12.post1 (PR #26539), or use Mooncake."},
  {"state_layout_mismatch", "Run the same SGLang version, model, TP sizes and state dtypes on both sides."},
  {"pipeline_parallel_unsupported", "Run the prefill with --pp-size 1: this state component cannot be split over "
                                    "pipeline stages."},
  {"state_type_unsupported", "Use a transfer backend that has a path for this state component (Mooncake)."},
  {"dcp_kv_pool", "Run the decode with --dcp-size 1: decode DCP under PD needs a model whose full attention is MLA "
                  "(Kimi-Linear)."},
  {"dcp_prefill_cp", "Run the prefill without attention context parallelism, or the decode with --dcp-size 1."},
  {"dcp_topology", "Use --dcp-size 1 on the prefill, or the same --dcp-size on both sides."},
  {"dcp_prefill_overhead", "Run the prefill with --dcp-size 1 unless it must match the decode's DCP layout."},
  {"dcp_ranks", "Use the same attention TP size on both sides when both run the same --dcp-size, or the prefill "
                "with --dcp-size 1."},
  {"dcp_backend_unsupported", "Run with --dcp-size 1, or use a backend with DCP-aware transfer (Mooncake, NIXL)."},
  {"transfer_failed", "Check the RDMA path between the two hosts (`pdcheck probe`, ibv_devinfo) and the peer's log."},
  {"pp_partition_invalid", "Give SGLANG_PP_LAYER_PARTITION one integer per pipeline stage (--pp-size of them) that "
                           "sum to the model's layer count, or unset it."},
  {"launch_arguments", "Spell every flag as this SGLang release lists it (`python -m sglang.launch_server --help`), "
                       "each with its value."},
  {"transfer_backend_mismatch", "Use the same --disaggregation-transfer-backend on both sides, and let only that "
                                "backend's decodes reach the prefill's bootstrap ports."},
  {"peer_failed", "Find the first failure in the other server's log for the same bootstrap room (give both logs to "
                  "`pdcheck explain` to link them), fix it, and restart the server that failed."},
  {"bootstrap_unreachable", "Make the prefill's bootstrap server answer the decode: start the prefill first and "
                            "wait until it is ready, give the router the prefill's --disaggregation-bootstrap-port, "
                            "open that port between the hosts (`pdcheck bootstrap http://PREFILL:PORT DECODE.yaml` "
                            "checks it)."},
  {"prefill_cp_launch", "Give --cp-strategy (zigzag, or interleave where the model supports it) with "
                        "--enable-prefill-cp, or drop --enable-prefill-cp."},
  {"prefill_cp_with_pd", "Run the disaggregated prefill without --enable-prefill-cp (this SGLang build resolves "
                         "prefill CP for linear-attention models only outside PD)."},
  {"mamba_pool_exhausted", "Give the Mamba state pool more slots (a larger --mamba-full-memory-ratio or "
                           "--max-mamba-cache-size), or admit fewer requests at once (--max-running-requests)."},
  {"minicpm_sparse_pd", "Run MiniCPM-SALA dense under PD: set SGLANG_MINICPM_FORCE_DENSE=1, or give "
                        "--attention-backend a non-sparse backend (fa3, flashinfer) on both sides."},
  {"minicpm_launch_flags", "Launch MiniCPM without --enable-dp-attention and without --enable-hierarchical-cache."},
};

} // namespace

const std::vector<std::string_view>& log_cause_names()
{
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> n;
    for (const Cause& c : k_causes) {
      n.push_back(c.name);
    }
    return n;
  }();
  return names;
}

std::string_view cause_fix(std::string_view name)
{
  for (const Cause& c : k_causes) {
    if (c.name == name) {
      return c.fix;
    }
  }
  throw std::logic_error("unknown log cause " + std::string(name));
}

std::vector<std::string_view> split_causes(std::string_view causes)
{
  std::vector<std::string_view> out;
  while (!causes.empty()) {
    const std::size_t space = causes.find(' ');
    out.push_back(causes.substr(0, space));
    if (space == std::string_view::npos) {
      break;
    }
    causes.remove_prefix(space + 1);
  }
  return out;
}

} // namespace pdcheck::check
