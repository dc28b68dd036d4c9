#include "core/rules.hpp"

#include <stdexcept>

namespace pdcheck {

namespace {

// The rule table. Append only: ids are an interface (SARIF ruleId, CI
// suppressions, `pdcheck explain`).
const std::vector<Rule> k_rules = {
  {"startup-parallel-sizes", FindingKind::startup, Severity::error,
   "parallel sizes do not divide as SGLang requires",
   "SGLang derives the attention tensor-parallel width as tp / (dp when --enable-dp-attention) / "
   "attention context-parallel size, and refuses to start when a division is not exact.",
   "Choose --tp-size divisible by --dp-size (with --enable-dp-attention) and by the attention "
   "context-parallel size."},
  {"startup-divisibility", FindingKind::startup, Severity::error,
   "a state dimension is not divisible by the attention TP size",
   "SGLang shards every Mamba / linear-attention state tensor over attention TP with divide(a, b), "
   "which asserts that b divides a exactly. A failing division stops the server at startup while "
   "the state pool is being sized.",
   "Pick an attention TP size that divides the model's state heads and conv channels (see "
   "`pdcheck layout` at other --tp values)."},
  {"startup-mamba-groups", FindingKind::startup, Severity::error,
   "Mamba2 n_groups is neither divisible by attention TP nor 1",
   "The Mamba2 mixer accepts an attention TP size that does not divide n_groups only when the model "
   "has a single group (then the group is replicated on every rank).",
   "Use an attention TP size that divides n_groups."},
  {"startup-attention-heads", FindingKind::startup, Severity::error,
   "attention heads are not divisible by the attention TP size",
   "Hybrid models also have attention layers, which SGLang shards over attention TP: the query heads "
   "must divide exactly, and KV heads must either divide or be replicated (TP a multiple of the KV "
   "head count).",
   "Pick an attention TP size that divides the attention head count."},
  {"startup-pp-layers", FindingKind::startup, Severity::error,
   "pipeline parallel size exceeds the layer count",
   "Each pipeline stage needs at least one layer.",
   "Use a --pp-size no larger than the model's layer count."},

  // --- pair and side consistency -------------------------------------------
  {"model-mismatch", FindingKind::startup, Severity::error,
   "prefill and decode serve different models",
   "PD disaggregation moves one model's state between the two servers; when the state layouts come from different "
   "architectures or sizes, no transfer can be correct.",
   "Point both sides at the same model (same config.json)."},
  {"side-role", FindingKind::startup, Severity::error,
   "a side file has the wrong role or disaggregation mode",
   "The prefill side must run with --disaggregation-mode prefill and the decode side with --disaggregation-mode "
   "decode; a server without a disaggregation mode takes no part in PD.",
   "Set role: and --disaggregation-mode consistently on both sides."},
  {"backend-mismatch", FindingKind::startup, Severity::error,
   "prefill and decode use different transfer backends",
   "The registration and per-request frames differ between Mooncake, NIXL and Mori; a decode of one backend cannot "
   "register with a prefill of another.",
   "Use the same --disaggregation-transfer-backend on both sides."},
  {"startup-backend-state", FindingKind::silent_corruption, Severity::error,
   "this SGLang version's transfer backend does not transfer Mamba state",
   "Hybrid-model state transfer arrived per backend: Mooncake with PR #10912 (v0.5.3.post3), NIXL with PR #16229 "
   "(v0.5.9), Mori with PR #22665 (about v0.5.11). SGLang starts both sides all the same and moves KV and aux: "
   "without state transfer the decode starts every request from an unwritten recurrent state, and a prefill that "
   "does send state meets a decode that registered none.",
   "Upgrade SGLang on both sides, or use the Mooncake backend."},
  {"startup-unified-memory", FindingKind::startup, Severity::error,
   "--enable-unified-memory is refused with PD disaggregation",
   "With PD disaggregation the unified memory pool is accepted only over Mooncake, with pp 1, lazy compaction on, no "
   "--enable-hisparse, no hierarchical cache, dcp 1 and no speculative decoding other than DSPARK; versions before "
   "PR #33362 refuse it with PD altogether.",
   "Drop --enable-unified-memory on both sides, or meet its PD requirements on both sides."},
  {"mori-registration-pack", FindingKind::transfer, Severity::error,
   "the decode's Mori registration cannot be packed",
   "SGLang v0.5.12 and v0.5.12.post1 migrated Mooncake and NIXL to per-component state lists but left Mori packing "
   "them as flat integers (issue #26525), so a Mori decode of a hybrid model fails to register.",
   "Upgrade the decode side past v0.5.12.post1 (PR #26539), or use Mooncake."},
  // --- decode-side bootstrap checks ----------------------------------------
  {"bootstrap-page-size", FindingKind::bootstrap, Severity::error,
   "page sizes differ",
   "The decode compares its --page-size with the one the prefill registered at its bootstrap server and refuses "
   "to pair when they differ.",
   "Use the same --page-size on both sides."},
  {"bootstrap-kv-cache-dtype", FindingKind::bootstrap, Severity::error,
   "KV cache dtypes differ",
   "The decode compares its --kv-cache-dtype with the prefill's and refuses to pair when they differ.",
   "Use the same --kv-cache-dtype on both sides."},
  {"bootstrap-pp-size", FindingKind::bootstrap, Severity::error,
   "decode pipeline size is neither the prefill's nor 1",
   "A decode may run the prefill's pipeline size, or pp 1 (then it pulls every stage's layers from every prefill "
   "stage); anything else fails an assertion when the decode resolves its prefill peers.",
   "Run the decode with the prefill's --pp-size or with --pp-size 1."},
  {"bootstrap-cp-size", FindingKind::bootstrap, Severity::error,
   "attention context parallelism is not supported on the decode",
   "The decode asserts that its context-parallel size is 1, and that its attention CP size is 1 when the prefill's "
   "is.",
   "Run the decode without attention context parallelism."},
  {"bootstrap-tp-performance", FindingKind::advice, Severity::info,
   "different attention TP sizes on a non-MLA model",
   "SGLang logs that performance is not guaranteed when prefill and decode use different TP sizes for non-MLA "
   "models: the KV cache is then sent head-sliced.",
   "Equal attention TP sizes avoid head slicing of the KV cache and of Mamba state."},
  {"rank-mapping", FindingKind::bootstrap, Severity::error,
   "attention TP sizes do not divide each other",
   "SGLang maps decode ranks to prefill ranks by integer ratios (equal TP, scatter when the decode is wider, "
   "aggregation when the prefill is wider); with sizes that do not divide each other some decode ranks are mapped "
   "to prefill ranks that do not exist.",
   "Use attention TP sizes where one divides the other."},
  {"registration-generation", FindingKind::transfer, Severity::error,
   "the prefill parses the decode's registration in another generation's frame format",
   "The registration frames changed between SGLang generations (flat native arrays, then pack_int_lists per "
   "component). A prefill reading a decode of another generation reads pointers as counts and lengths, raises "
   "while parsing, or works on garbage.",
   "Run the same SGLang version on both sides."},
  // --- prefill-side state-transfer validations -------------------------------
  {"mooncake-layout-no-dims", FindingKind::transfer, Severity::error,
   "Mooncake: Mamba state layouts differ and no per-tensor dims to reslice",
   "Before sending Mamba state, Mooncake's prefill compares its state item lengths with the decode's. When they "
   "differ and either side registered no state_dim_per_tensor (an older decode, or --enable-unified-memory, which "
   "registers one envelope without dims), it cannot reslice and raises; the transfer thread dies and the prefill "
   "instance is dead. This fires at any TP ratio.",
   "Equalize attention TP sizes; enable --enable-unified-memory on both sides or on neither; run the same SGLang "
   "version on both sides so the registration carries per-tensor dims."},
  {"mooncake-slot-size", FindingKind::transfer, Severity::error,
   "Mooncake: Mamba slot sizes differ on the whole-item path",
   "On the whole-item path (equal attention TP, or dims missing) each paired entry must have the same slot size; a "
   "different SSM or conv dtype on one side gives equal shapes with different byte sizes.",
   "Use the same --mamba-ssm-dtype, SGLANG_MAMBA_SSM_DTYPE and SGLANG_MAMBA_CONV_DTYPE on both sides."},
  {"layer-pairing", FindingKind::transfer, Severity::error,
   "state entries cannot be paired between prefill and decode",
   "State entries are paired by global layer id (from PR #32270) or by position. Layer ids on one side only, lists "
   "of different lengths, a layer the decode does not hold, or pipeline stages that differ without layer ids make "
   "the pairing fail.",
   "Run the same SGLang version on both sides; with pipeline parallelism use a version that exchanges layer ids."},
  {"state-slice", FindingKind::transfer, Severity::error,
   "Mamba state cannot be sliced between the two TP sizes",
   "Unequal attention TP slices each state entry by its sharded dimension; replicated (dim 0) metadata on one side "
   "only, different replicated sizes, or TP sizes that do not divide make the slice fail.",
   "Equalize attention TP sizes, or run the same SGLang version on both sides."},
  {"state-index-count", FindingKind::transfer, Severity::error,
   "Mamba state needs exactly one state index per request",
   "A recurrent state is one slot per request; the send path asserts a single state index.",
   "Send Mamba state per sequence: one state index per Mamba component and request."},
  {"state-index-empty", FindingKind::transfer, Severity::error,
   "empty Mamba state indices reach the send path",
   "A cancelled or finished request can leave an empty dst_state_indices list; Mooncake indexes it without a check "
   "and the transfer thread fails.",
   "Filter out empty state index lists before sending; send Mamba state per sequence."},
  {"mori-single-state-index", FindingKind::transfer, Severity::error,
   "Mori: mamba requires a single state index",
   "Mori's _send_mamba_state raises unless both the prefill and the decode give exactly one state index for the "
   "Mamba component: a scheduler that batches several requests' indices into one call triggers it.",
   "Issue Mamba state sends per sequence, never batched; filter out empty state index lists."},
  {"mori-component-count", FindingKind::transfer, Severity::error,
   "Mori: state component counts differ",
   "Mori compares the number of state components the two sides registered.",
   "Run the same SGLang version, model and flags on both sides."},
  {"mori-empty-index-skipped", FindingKind::silent_corruption, Severity::error,
   "Mori: empty state indices silently skip the Mamba state",
   "Mori skips a state component whose index list is empty before dispatching it, so the request's recurrent state "
   "never reaches the decode, and nothing is reported.",
   "Filter out empty state index lists in the scheduler; send Mamba state per sequence."},
  {"nixl-unequal-tp", FindingKind::transfer, Severity::error,
   "NIXL: different TP sizes are not supported for hybrid Mamba models in this version",
   "NIXL sliced Mamba state across unequal TP only from PR #22240 (after v0.5.10).",
   "Equalize attention TP sizes, or upgrade both sides."},
  {"unified-one-side", FindingKind::transfer, Severity::error,
   "unified memory is enabled on one side only",
   "With --enable-unified-memory a side registers one whole-slot envelope (no dims, no layer ids); a non-unified "
   "peer registers per-layer entries. The layouts cannot be matched.",
   "Enable --enable-unified-memory on both sides or on neither."},
  {"unified-unequal-tp", FindingKind::transfer, Severity::error,
   "unified memory at unequal attention TP",
   "The whole-envelope state cannot be TP-resliced; only hybrid MLA with transfer layouts from both peers (newest "
   "versions) may differ in TP.",
   "Use equal attention TP sizes with --enable-unified-memory."},
  // --- what the Simulation of the transfer plan finds ------------------------
  {"silent-wrong-bytes", FindingKind::silent_corruption, Severity::error,
   "decode state bytes are written from the wrong logical element",
   "The copy plan SGLang executes puts source bytes where other channels, heads, layers or element types belong: "
   "the decode runs on corrupted recurrent state and nothing fails (accuracy loss, repetition from the first "
   "decoded token).",
   "Equalize attention TP sizes and dtypes, or run the same (fixed) SGLang version on both sides."},
  {"silent-unwritten", FindingKind::silent_corruption, Severity::error,
   "decode state bytes are never written",
   "Part of the request's decode slot is never written by any prefill rank: the decode starts from stale state of "
   "whichever request used the slot before.",
   "Equalize attention TP sizes, or run the same SGLang version on both sides."},
  {"silent-written-twice", FindingKind::silent_corruption, Severity::warning,
   "decode state bytes are written more than once",
   "Several copies land on the same decode bytes; unless they carry identical replicated data, the last writer "
   "wins at random.",
   "Equalize attention TP sizes."},
  {"silent-outside-slot", FindingKind::silent_corruption, Severity::error,
   "writes land outside the request's decode slot",
   "Some copies are addressed with the wrong item length or offset and overwrite other requests' state (or memory "
   "past the pool).",
   "Equalize attention TP sizes and dtypes, or run the same SGLang version on both sides."},
  {"scheduler-state-indices", FindingKind::advice, Severity::info,
   "what this backend does with batched or empty Mamba state indices",
   "SGLang sends one state index per Mamba component and request. A scheduler that batches several requests' "
   "indices into one send, or forwards the empty index list of a cancelled or finished request, meets the backend's "
   "single-index rule; this advice shows the exact outcome for this pair.",
   "Issue Mamba state sends per sequence and filter out empty state index lists."},
  // --- state components other than Mamba (side field extra_state_types) -----
  {"extra-state-unequal-tp", FindingKind::transfer, Severity::error,
   "a sliding-window / DSA state component cannot cross unequal attention TP",
   "Besides the Mamba component a hybrid server may register page-indexed state (SWA, DSA, SWA ring, DeepSeek-V4 "
   "C128 request state). Mooncake and NIXL copy it page by page and refuse unequal attention TP unless the model "
   "uses an MLA attention backend; Mori refuses it for SWA only. The prefill's transfer thread raises, so every "
   "request routed through that pair fails.",
   "Equalize attention TP sizes on the two sides."},
  {"extra-state-minimax", FindingKind::transfer, Severity::error,
   "MiniMax sparse-index state needs equal attention TP and pp 1",
   "MiniMax's index-K (and, in Mooncake, dense-KV) state is kept in compacted sparse-layer lists: PP>1 would "
   "mis-slice them and unequal TP is not implemented, so the prefill backend raises (PP is checked first, on the "
   "prefill's own pp size). SGLang before the dense-KV component words the Mooncake text '...for MiniMax sparse "
   "index yet.'.",
   "Run the prefill with --pp-size 1 and equal attention TP sizes on both sides."},
  {"extra-state-unsupported", FindingKind::transfer, Severity::error,
   "the transfer backend does not know this state component",
   "Mori dispatches only mamba, swa, dsa, swa_ring, c128_state and minimax_index_k; NIXL refuses any state type "
   "it has no path for with an f-string of the bare enum, which Python 3.12+ renders as StateType.NAME (3.11 and "
   "older print the value, e.g. minimax_dense_kv).",
   "Use the Mooncake backend for this model."},
  // --- live bootstrap server (pdcheck bootstrap) -----------------------------
  {"bootstrap-rank-missing", FindingKind::bootstrap, Severity::error,
   "a prefill rank never registered its endpoint with the bootstrap server",
   "Every prefill rank registers its ZMQ address (rank_ip, rank_port) with the bootstrap server at start-up "
   "(PUT /route); the server info announced this rank, but its endpoint was still missing when pdcheck's --timeout "
   "ran out. Decode ranks that pair with it cannot learn where to send their registration, so requests routed to "
   "it never transfer. The prefill rank is still starting, crashed, or cannot reach the bootstrap server.",
   "Look at that prefill rank's log (start-up errors, the bootstrap address it registers with), or rerun with a "
   "longer --timeout while the prefill is still starting."},
  // --- decode context parallelism ---------------------------------------------
  {"startup-dcp-transfer", FindingKind::startup, Severity::error,
   "the transfer backend is not DCP-aware but --dcp-size > 1",
   "Under decode context parallelism token i of a request lives on DCP rank i % dcp_size at local offset "
   "i // dcp_size. A KV manager whose backend does not remap logical token locations to per-rank offsets would "
   "corrupt the transferred KV cache, so CommonKVManager._check_dcp_compat refuses to start it (on either side).",
   "Use --dcp-size 1 on the disaggregated servers, or a backend with a DCP-aware transfer path (Mooncake, NIXL)."},
  {"dcp-topology", FindingKind::transfer, Severity::error,
   "the DCP sizes of the two sides cannot be relaid out",
   "DCP-aware PD transfer (SGLang PR #32837) supports prefill DCP 1 -> decode DCP N and equal DCP sizes on both "
   "sides; prefill DCP N -> decode DCP 1, or two different sizes above 1, have no relayout and the transfer fails.",
   "Use --dcp-size 1 on the prefill, or the same --dcp-size on both sides."},
  // --- what pdcheck had to assume or could not read ------------------------------
  {"profile-assumed", FindingKind::startup, Severity::warning,
   "the SGLang release is not in pdcheck's table: a neighbouring release's behaviour is assumed",
   "pdcheck models SGLang release by release (`pdcheck profiles`). A release it has no row for (a newer release, a "
   "release candidate, a nightly build) is checked with the nearest known release's behaviour: the same release for "
   "a pre-release, else the newest known release not after it. The verdict holds only as far as that release "
   "behaves the same.",
   "Name a release pdcheck knows in `sglang:` when you can, or read the PD changes between the two releases in "
   "SGLang's history before trusting the verdict."},
  {"side-model-path", FindingKind::startup, Severity::warning,
   "a side's model: and its --model-path name different models",
   "pdcheck derives the state layout from the side file's model:, but SGLang serves what --model-path names. When "
   "the two disagree, the check is about a model the server does not run.",
   "Make model: name the same model as --model-path (a catalog name, HF repo id or a copy of its config.json), or "
   "drop model: so pdcheck reads --model-path."},
  {"startup-argparse", FindingKind::startup, Severity::error,
   "SGLang's argument parser rejects the launch arguments",
   "SGLang parses its command line with Python's argparse (abbreviations allowed). A unique prefix of a flag is "
   "that flag, an ambiguous prefix and an unknown flag make the server exit at launch with status 2 and argparse's "
   "message. pdcheck runs the same rules over the flag list of SGLang's server_args.py.",
   "Spell the flag out in full (see the did-you-mean), or remove it when this SGLang release has no such flag."},
  {"unknown-env", FindingKind::startup, Severity::warning,
   "an SGLANG_* environment variable SGLang does not read",
   "SGLang ignores environment variables it does not know, so a misspelt SGLANG_* variable silently leaves the "
   "default in force.",
   "Check the spelling against the did-you-mean, or remove the variable."},
  {"mooncake-unequal-tp-hybrid", FindingKind::transfer, Severity::error,
   "this SGLang's Mooncake backend refuses unequal attention TP for non-MLA hybrid models",
   "Before per-tensor state dims (PR #16056) Mooncake could not reslice Mamba state: at unequal attention TP on a "
   "non-MLA hybrid model transfer_worker raises after the last KV chunk, before the state send, and the transfer "
   "thread dies with it: every request fails.",
   "Use equal attention TP on both sides, or upgrade both sides to a release with state dims (0.5.9 or later)."},
  {"registration-misread", FindingKind::silent_corruption, Severity::error,
   "the prefill parses the decode's registration into pointers the decode never registered",
   "When the two sides run SGLang releases whose registration frames differ, the prefill's parser can take another "
   "frame's bytes (a pack_int_lists header, item lengths) for state pointers without raising. The prefill then "
   "writes each request's state to those addresses: RDMA errors at best, other memory overwritten at worst.",
   "Run the same SGLang release on both sides (`pdcheck decode` on a captured registration shows what each side "
   "speaks)."},
  {"mori-descriptor-count", FindingKind::transfer, Severity::error,
   "Mori: the two sides registered different numbers of state descriptors",
   "Mori pairs the prefill's and the decode's state descriptors by position and refuses to send when their counts "
   "differ, which happens when the PP stages of the two sides hold different numbers of state layers.",
   "Give both sides the same --pp-size (and SGLANG_PP_LAYER_PARTITION), or use pp 1 on the decode."},
};

} // namespace

const std::vector<Rule>& rules()
{
  return k_rules;
}

const Rule* find_rule(std::string_view id)
{
  for (const Rule& r : k_rules) {
    if (r.id == id) {
      return &r;
    }
  }
  return nullptr;
}

Finding make_finding(std::string_view rule_id, std::string message)
{
  const Rule* rule = find_rule(rule_id);
  if (rule == nullptr) {
    throw std::logic_error("unknown rule id " + std::string(rule_id));
  }
  Finding f;
  f.rule = std::string(rule->id);
  f.kind = rule->kind;
  f.severity = rule->severity;
  f.message = std::move(message);
  f.fix = std::string(rule->fix);
  return f;
}

} // namespace pdcheck
