#pragma once

#include "core/dtype.hpp"
#include "core/sglang_messages.hpp"
#include "core/transfer_backend.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pdcheck::sglang {

class FlagTable; // sglang/launch_flags.hpp

enum class DisaggregationMode { null, prefill, decode };

std::string_view disaggregation_mode_name(DisaggregationMode m);

/// A launch argument that pdcheck understood, with where it came from, so that a
/// finding can point at it.
struct ArgOrigin
{
  std::string flag;   ///< the spelling used, e.g. "--tensor-parallel-size"
  std::string value;  ///< the raw value ("" for switches)
  std::string origin; ///< "argv[3]" or "<config.yaml>:4:1"
};

/// One launch word as argparse sees it, after `--config` expansion.
struct ArgWord
{
  std::string text;
  std::string origin;     ///< "argv[3]" or "file:line:col"
  bool from_file = false; ///< errors then point into the config file
};

/// How argparse ends with the words (sglang/argparse.hpp).
struct ArgparseOutcome
{
  /// The first word argparse stops at before anything else (an ambiguous
  /// abbreviation, a flag missing its value): its exact message.
  std::optional<ArgOrigin> stop;
  std::string message;
  MessageId message_id = MessageId::argparse_unrecognized; ///< the catalog row of `message`
  /// Words argparse would not accept, in order ("unrecognized arguments:
  /// ..."): unknown flags with the values that follow them, stray words.
  std::vector<ArgOrigin> unrecognized;
};

/// What pdcheck needs of SGLang's ServerArgs: everything that shapes state layout
/// and PD transfer. Defaults are SGLang's.
struct ServerArgs
{
  std::optional<std::string> model_path;
  int tp_size = 1;
  int dp_size = 1;
  int pp_size = 1;
  bool enable_dp_attention = false;
  int attn_cp_size = 1; ///< attention context parallelism
  int dcp_size = 1;     ///< decode context parallelism
  /// --enable-prefill-cp and the --cp-strategy it needs (zigzag, interleave);
  /// resolve_prefill_cp adds what the deprecated flags below imply.
  bool enable_prefill_cp = false;
  std::optional<std::string> cp_strategy;
  bool enable_prefill_context_parallel = false;          ///< deprecated --enable-prefill-context-parallel
  bool enable_dsa_prefill_context_parallel = false;      ///< deprecated --enable-{dsa,nsa}-prefill-context-parallel
  std::string prefill_cp_mode = "in-seq-split";          ///< deprecated --prefill-cp-mode
  std::string dsa_prefill_cp_mode = "round-robin-split"; ///< deprecated --{dsa,nsa}-prefill-cp-mode
  std::optional<Dtype> mamba_ssm_dtype; ///< --mamba-ssm-dtype
  bool enable_unified_memory = false;
  /// --enable-page-major-kv-layout (implied by --enable-unified-memory in SGLang):
  /// Mamba state and KV laid out page-major instead of layer-major.
  bool enable_page_major_kv_layout = false;
  DisaggregationMode disaggregation_mode = DisaggregationMode::null;
  TransferBackend transfer_backend = TransferBackend::mooncake;
  int page_size = 1;
  std::string kv_cache_dtype = "auto";
  int bootstrap_port = 8998;
  std::optional<std::string> ib_device;
  std::optional<std::string> speculative_algorithm;
  std::optional<int> speculative_num_steps;
  std::optional<int> speculative_eagle_topk;
  std::optional<int> speculative_num_draft_tokens;
  bool enable_hisparse = false;
  /// --attention-backend and its per-phase overrides, as given (MiniCPM's
  /// launch overrides read them).
  std::optional<std::string> attention_backend;
  std::optional<std::string> prefill_attention_backend;
  std::optional<std::string> decode_attention_backend;
  bool enable_hierarchical_cache = false;
  std::optional<long long> max_mamba_cache_size;
  std::optional<int> max_running_requests;

  /// Environment that SGLang reads for state layout (SGLANG_MAMBA_SSM_DTYPE,
  /// SGLANG_MAMBA_CONV_DTYPE, SGLANG_DISABLE_LAZY_COMPACTION, SGLANG_PP_LAYER_PARTITION).
  std::map<std::string, std::string> env;

  /// Every known argument as given, keyed by SGLang's dest name (e.g. "tp_size").
  std::map<std::string, ArgOrigin> given;
  /// SGLang flags pdcheck does not model (valid for SGLang): kept verbatim.
  std::vector<ArgOrigin> unknown;
  /// argparse's end with these words and `flag_table`'s option strings.
  ArgparseOutcome argparse;
  /// The words argparse read (after the program prefix and `--config`), so
  /// that other releases' flag tables can be tried on them.
  std::vector<ArgWord> words;
  /// The flag table the words were read with (FlagTable::name()).
  std::string flag_table;
};

/// Prefill context parallelism as ServerArgs._handle_legacy_cp_arguments
/// resolves it (server_args.py @ 001067ff): a deprecated enable flag turns
/// --enable-prefill-cp on and, without an explicit --cp-strategy, gives the
/// strategy of its mode ("in-seq-split" -> zigzag, "round-robin-split" ->
/// interleave), --enable-prefill-context-parallel's before the DSA flag's.
struct PrefillCp
{
  bool enabled = false;
  std::optional<std::string> strategy;
};
PrefillCp resolve_prefill_cp(const ServerArgs& args);

/// A launch option pdcheck models, found by SGLang's dest name ("tp_size"):
/// its primary option string and whether it is a switch. nullopt for dests
/// pdcheck does not model.
struct ModelledOption
{
  std::string_view option;
  bool is_switch = false;
};
std::optional<ModelledOption> modelled_option(std::string_view dest);

/// Splits one shell-like command line (quotes, backslashes) into words.
/// Throws InputError(origin, ...) on an unterminated quote.
std::vector<std::string> split_command_line(const std::string& text, const std::string& origin);

/// One launch-argument word read from an SGLang `--config` file, with where it
/// was written ("<file>:<line>:<col>", 1-based), so findings can point into the file.
struct ConfigWord
{
  std::string text;
  std::string origin;
};

/// Reads an SGLang `--config` file into launch-argument words, e.g.
/// {"--tp-size", "4"}, the way SGLang's ConfigArgumentMerger does. Supplied by
/// the I/O layer (io::read_sglang_config) so this parser stays pure.
using ConfigFileReader = std::function<std::vector<ConfigWord>(const std::string& path, const std::string& base_dir)>;

/// Parses `python -m sglang.launch_server ...` words (the program prefix, if any,
/// is skipped; `VAR=value` words before it join `env`). Unknown arguments are
/// kept; a bad value for a known argument throws InputError naming `origin` (or
/// "<file>:<line>:<col>" for a value read through `--config`) and the flag.
/// `--config PATH` is read with `read_config` (relative to `base_dir`); flags on
/// the command line win over the file. Without `read_config` the file is not
/// read, only recorded in `given["config"]`. Each known flag is recorded in `given`
/// with origin "argv[i]" (index into `words`) or the config file position.
/// Options and abbreviations are resolved against `flag_table`, the launch
/// parser of the side's release (sglang::flag_tables_for); nullptr: the newest.
/// `word_places`, when given, holds one "file:line:col" per word ("" where not
/// known): it becomes the word's origin (ArgOrigin::origin) in place of
/// "argv[N]", so findings can name the line a flag is on. Errors still point at `origin`.
ServerArgs parse_launch_args(const std::vector<std::string>& words,
                             const std::string& origin,
                             const std::map<std::string, std::string>& env = {},
                             ConfigFileReader read_config = nullptr,
                             const std::string& base_dir = ".",
                             const FlagTable* flag_table = nullptr,
                             const std::vector<std::string>& word_places = {});

} // namespace pdcheck::sglang
