#include "sglang/server_args.hpp"

#include "sglang/argparse.hpp"
#include "sglang/environ.hpp"

#include "sglang/launch_flags.hpp"
#include "util/error.hpp"
#include "util/python_int.hpp"

#include <charconv>
#include <climits>
#include <cstddef>
#include <string_view>

// SGLang facts used here (flag spellings, aliases, choices, defaults) were read
// from sgl-project/sglang python/sglang/srt/server_args.py at commit
// 001067fffe33427bee0ed2f007fb7551a1d76b44 (fields declared as annotated
// dataclass members; the CLI flag is the field name with dashes, `Arg(aliases=)`
// adds the long forms), cross-checked against the older add_argument form
// (`--tensor-parallel-size`, `--tp-size` ...) and the grouped ParallelArgs form.
// `--config` merging: python/sglang/srt/server_args_config_parser.py
// (ConfigArgumentMerger.merge_config_with_args) at commit
// 03bd2f167a3bc5a040d9cbb8343ac77adb3db53f and later copies: the file's words
// are put in front of the command line, so argparse's last-wins rule lets the
// command line override the file.

namespace pdcheck::sglang {

std::string_view disaggregation_mode_name(DisaggregationMode m)
{
  switch (m) {
  case DisaggregationMode::null: return "null";
  case DisaggregationMode::prefill: return "prefill";
  case DisaggregationMode::decode: return "decode";
  }
  return "?";
}

namespace {

// ---------------------------------------------------------------------------
// Shell-like splitting
// ---------------------------------------------------------------------------

bool is_blank(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// A backslash followed by a line end (LF or CRLF) joins the two lines, as in a
// shell script; returns how many characters the line end takes, 0 when none.
std::size_t line_end_at(const std::string& text, std::size_t i)
{
  if (i < text.size() && text[i] == '\n') {
    return 1;
  }
  if (i + 1 < text.size() && text[i] == '\r' && text[i + 1] == '\n') {
    return 2;
  }
  return 0;
}

// ---------------------------------------------------------------------------
// The flags pdcheck models
// ---------------------------------------------------------------------------

enum class Kind {
  flag,             ///< store_true switch, takes no value
  positive_int,     ///< int > 0
  non_negative_int, ///< int >= 0
  positive_size,    ///< long long > 0
  port,             ///< 1..65535
  text,             ///< any string
  choice,           ///< one of `choices`
};

struct FlagSpec
{
  std::string_view dest;
  std::vector<std::string_view> spellings; ///< SGLang's primary spelling first
  Kind kind;
  std::vector<std::string_view> choices;
  /// Stores an already validated value; `number` holds it for integer kinds.
  void (*apply)(ServerArgs& args, const std::string& text, long long number);
};

const std::vector<std::string_view> k_dtype_choices = {"float32", "bfloat16", "float16"};

const std::vector<FlagSpec>& flag_specs()
{
  // Spellings are SGLang's option strings only: abbreviations (`--tp`, `--dp`,
  // `--enable-unified-mem`) are resolved first, as argparse does, against the
  // whole flag list (launch_flags.hpp); `--pp` is ambiguous there.
  static const std::vector<FlagSpec> specs = {
    {"model_path", {"--model-path", "--model"}, Kind::text, {},
     [](ServerArgs& a, const std::string& v, long long) { a.model_path = v; }},
    {"tp_size", {"--tp-size", "--tensor-parallel-size"}, Kind::positive_int, {},
     [](ServerArgs& a, const std::string&, long long n) { a.tp_size = static_cast<int>(n); }},
    {"dp_size", {"--dp-size", "--data-parallel-size"}, Kind::positive_int, {},
     [](ServerArgs& a, const std::string&, long long n) { a.dp_size = static_cast<int>(n); }},
    {"pp_size", {"--pp-size", "--pipeline-parallel-size"}, Kind::positive_int, {},
     [](ServerArgs& a, const std::string&, long long n) { a.pp_size = static_cast<int>(n); }},
    {"enable_dp_attention", {"--enable-dp-attention"}, Kind::flag, {},
     [](ServerArgs& a, const std::string&, long long) { a.enable_dp_attention = true; }},
    {"attn_cp_size", {"--attn-cp-size", "--attention-context-parallel-size"}, Kind::positive_int, {},
     [](ServerArgs& a, const std::string&, long long n) { a.attn_cp_size = static_cast<int>(n); }},
    {"dcp_size", {"--dcp-size", "--decode-context-parallel-size"}, Kind::positive_int, {},
     [](ServerArgs& a, const std::string&, long long n) { a.dcp_size = static_cast<int>(n); }},
    {"enable_prefill_cp", {"--enable-prefill-cp"}, Kind::flag, {},
     [](ServerArgs& a, const std::string&, long long) { a.enable_prefill_cp = true; }},
    {"cp_strategy", {"--cp-strategy"}, Kind::choice, {"zigzag", "interleave"},
     [](ServerArgs& a, const std::string& v, long long) { a.cp_strategy = v; }},
    {"enable_prefill_context_parallel", {"--enable-prefill-context-parallel"}, Kind::flag, {},
     [](ServerArgs& a, const std::string&, long long) { a.enable_prefill_context_parallel = true; }},
    {"enable_dsa_prefill_context_parallel",
     {"--enable-dsa-prefill-context-parallel", "--enable-nsa-prefill-context-parallel"}, Kind::flag, {},
     [](ServerArgs& a, const std::string&, long long) { a.enable_dsa_prefill_context_parallel = true; }},
    {"prefill_cp_mode", {"--prefill-cp-mode"}, Kind::choice, {"in-seq-split"},
     [](ServerArgs& a, const std::string& v, long long) { a.prefill_cp_mode = v; }},
    {"dsa_prefill_cp_mode", {"--dsa-prefill-cp-mode", "--nsa-prefill-cp-mode"}, Kind::choice,
     {"in-seq-split", "round-robin-split"},
     [](ServerArgs& a, const std::string& v, long long) { a.dsa_prefill_cp_mode = v; }},
    // Early releases offered only float32/bfloat16; the union is accepted here
    // and the profile rules judge whether the version in use knows float16.
    {"mamba_ssm_dtype", {"--mamba-ssm-dtype"}, Kind::choice, k_dtype_choices,
     [](ServerArgs& a, const std::string& v, long long) { a.mamba_ssm_dtype = parse_dtype(v); }},
    {"enable_unified_memory", {"--enable-unified-memory"}, Kind::flag, {},
     [](ServerArgs& a, const std::string&, long long) { a.enable_unified_memory = true; }},
    {"enable_page_major_kv_layout", {"--enable-page-major-kv-layout"}, Kind::flag, {},
     [](ServerArgs& a, const std::string&, long long) { a.enable_page_major_kv_layout = true; }},
    {"disaggregation_mode", {"--disaggregation-mode"}, Kind::choice, {"null", "prefill", "decode"},
     [](ServerArgs& a, const std::string& v, long long) {
       a.disaggregation_mode = v == "prefill" ? DisaggregationMode::prefill
                               : v == "decode" ? DisaggregationMode::decode
                                               : DisaggregationMode::null;
     }},
    {"disaggregation_transfer_backend", {"--disaggregation-transfer-backend"}, Kind::choice,
     {"mooncake", "nixl", "ascend", "fake", "mori", "mooncake_tcp"},
     [](ServerArgs& a, const std::string& v, long long) {
       for (TransferBackend b : {TransferBackend::mooncake, TransferBackend::nixl, TransferBackend::mori,
                                 TransferBackend::ascend, TransferBackend::fake, TransferBackend::mooncake_tcp}) {
         if (transfer_backend_name(b) == v) {
           a.transfer_backend = b;
         }
       }
     }},
    // Recent SGLang leaves page_size unset (None) and resolves it per attention
    // backend; pdcheck keeps 1 as the default because Mamba state is per request.
    {"page_size", {"--page-size"}, Kind::positive_int, {},
     [](ServerArgs& a, const std::string&, long long n) { a.page_size = static_cast<int>(n); }},
    {"kv_cache_dtype", {"--kv-cache-dtype"}, Kind::choice,
     {"auto", "fp8_e5m2", "fp8_e4m3", "mxfp8", "bf16", "bfloat16", "nvfp4", "fp4_mx_block16", "fp4_e2m1"},
     [](ServerArgs& a, const std::string& v, long long) { a.kv_cache_dtype = v; }},
    {"disaggregation_bootstrap_port", {"--disaggregation-bootstrap-port"}, Kind::port, {},
     [](ServerArgs& a, const std::string&, long long n) { a.bootstrap_port = static_cast<int>(n); }},
    {"disaggregation_ib_device", {"--disaggregation-ib-device"}, Kind::text, {},
     [](ServerArgs& a, const std::string& v, long long) { a.ib_device = v; }},
    // Free text: recent SGLang accepts plugin-registered algorithm names.
    {"attention_backend", {"--attention-backend"}, Kind::text, {},
     [](ServerArgs& a, const std::string& v, long long) { a.attention_backend = v; }},
    {"prefill_attention_backend", {"--prefill-attention-backend"}, Kind::text, {},
     [](ServerArgs& a, const std::string& v, long long) { a.prefill_attention_backend = v; }},
    {"decode_attention_backend", {"--decode-attention-backend"}, Kind::text, {},
     [](ServerArgs& a, const std::string& v, long long) { a.decode_attention_backend = v; }},
    {"speculative_algorithm", {"--speculative-algorithm"}, Kind::text, {},
     [](ServerArgs& a, const std::string& v, long long) { a.speculative_algorithm = v; }},
    {"speculative_num_steps", {"--speculative-num-steps"}, Kind::non_negative_int, {},
     [](ServerArgs& a, const std::string&, long long n) { a.speculative_num_steps = static_cast<int>(n); }},
    {"speculative_eagle_topk", {"--speculative-eagle-topk"}, Kind::positive_int, {},
     [](ServerArgs& a, const std::string&, long long n) { a.speculative_eagle_topk = static_cast<int>(n); }},
    {"speculative_num_draft_tokens", {"--speculative-num-draft-tokens"}, Kind::positive_int, {},
     [](ServerArgs& a, const std::string&, long long n) {
       a.speculative_num_draft_tokens = static_cast<int>(n);
     }},
    {"enable_hisparse", {"--enable-hisparse"}, Kind::flag, {},
     [](ServerArgs& a, const std::string&, long long) { a.enable_hisparse = true; }},
    {"enable_hierarchical_cache", {"--enable-hierarchical-cache"}, Kind::flag, {},
     [](ServerArgs& a, const std::string&, long long) { a.enable_hierarchical_cache = true; }},
    {"max_mamba_cache_size", {"--max-mamba-cache-size"}, Kind::positive_size, {},
     [](ServerArgs& a, const std::string&, long long n) { a.max_mamba_cache_size = n; }},
    {"max_running_requests", {"--max-running-requests"}, Kind::positive_int, {},
     [](ServerArgs& a, const std::string&, long long n) { a.max_running_requests = static_cast<int>(n); }},
  };
  return specs;
}

const FlagSpec* find_flag(std::string_view spelling)
{
  for (const FlagSpec& spec : flag_specs()) {
    for (std::string_view s : spec.spellings) {
      if (s == spelling) {
        return &spec;
      }
    }
  }
  return nullptr;
}

} // namespace

PrefillCp resolve_prefill_cp(const ServerArgs& a)
{
  const auto strategy_of = [](const std::string& mode) -> std::string {
    return mode == "round-robin-split" ? "interleave" : "zigzag";
  };
  PrefillCp out{a.enable_prefill_cp, a.cp_strategy};
  if (a.enable_prefill_context_parallel || a.enable_dsa_prefill_context_parallel) {
    out.enabled = true;
  }
  if (a.enable_prefill_context_parallel && !out.strategy) {
    out.strategy = strategy_of(a.prefill_cp_mode);
  }
  if (a.enable_dsa_prefill_context_parallel && !out.strategy) {
    out.strategy = strategy_of(a.dsa_prefill_cp_mode);
  }
  return out;
}

std::optional<ModelledOption> modelled_option(std::string_view dest)
{
  for (const FlagSpec& spec : flag_specs()) {
    if (spec.dest == dest) {
      return ModelledOption{spec.spellings.front(), spec.kind == Kind::flag};
    }
  }
  return std::nullopt;
}

namespace {

std::string join(const std::vector<std::string_view>& items, std::string_view separator)
{
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) {
      out += separator;
    }
    out += items[i];
  }
  return out;
}

std::string expected_text(const FlagSpec& spec)
{
  switch (spec.kind) {
  case Kind::flag: return "no value";
  case Kind::positive_int:
  case Kind::positive_size: return "a positive integer";
  case Kind::non_negative_int: return "a non-negative integer";
  case Kind::port: return "a port number (1-65535)";
  case Kind::text: return "a value";
  case Kind::choice: return "one of " + join(spec.choices, ", ");
  }
  return "a value";
}

/// Validates `value` for `spec`; returns the number for integer kinds.
long long check_value(const FlagSpec& spec, std::string_view spelling, const std::string& value,
                      const std::string& where)
{
  auto fail = [&]() -> long long {
    throw InputError(where, std::string(spelling) + ": expected " + expected_text(spec) + ", got '" + value + "'");
  };
  switch (spec.kind) {
  case Kind::flag:
  case Kind::text: return 0;
  case Kind::choice:
    for (std::string_view c : spec.choices) {
      if (c == value) {
        return 0;
      }
    }
    return fail();
  case Kind::positive_int:
  case Kind::non_negative_int:
  case Kind::positive_size:
  case Kind::port: {
    const std::optional<long long> n = python_int(value); // argparse type=int is Python's int()
    if (!n) {
      return fail();
    }
    const long long low = spec.kind == Kind::non_negative_int ? 0 : 1;
    const long long high = spec.kind == Kind::positive_size ? LLONG_MAX : spec.kind == Kind::port ? 65535 : INT_MAX;
    if (*n < low || *n > high) {
      return fail();
    }
    return *n;
  }
  }
  return 0;
}

// ---------------------------------------------------------------------------
// Program prefix and environment
// ---------------------------------------------------------------------------

bool is_env_assignment(std::string_view word)
{
  const std::size_t eq = word.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return false;
  }
  for (std::size_t i = 0; i < eq; ++i) {
    const char c = word[i];
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) {
      return false;
    }
  }
  return true;
}

std::string_view basename_of(std::string_view word)
{
  const std::size_t slash = word.rfind('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

bool is_python(std::string_view word)
{
  std::string_view base = basename_of(word);
  if (base.substr(0, 6) != "python") {
    return false;
  }
  base.remove_prefix(6);
  for (char c : base) {
    if (!((c >= '0' && c <= '9') || c == '.')) {
      return false;
    }
  }
  return true;
}

/// Index of the first SGLang argument: skips `VAR=value` assignments (into
/// `env`), `env`, a python interpreter with its options and `-m module`, or
/// `sglang serve`.
std::size_t skip_program_prefix(const std::vector<std::string>& words, std::map<std::string, std::string>& env)
{
  std::size_t i = 0;
  while (i < words.size()) {
    if (words[i] == "env") {
      ++i;
    } else if (is_env_assignment(words[i])) {
      const std::size_t eq = words[i].find('=');
      env[words[i].substr(0, eq)] = words[i].substr(eq + 1);
      ++i;
    } else {
      break;
    }
  }
  if (i < words.size() && is_python(words[i])) {
    ++i;
    // Interpreter options such as -u or -X importtime come before -m.
    while (i < words.size() && words[i] != "-m" && words[i].size() > 1 && words[i][0] == '-' && words[i][1] != '-') {
      const bool takes_value = words[i] == "-X" || words[i] == "-W";
      i += takes_value ? 2 : 1;
    }
  } else if (i < words.size() && basename_of(words[i]) == "sglang") {
    ++i;
    if (i < words.size() && words[i] == "serve") {
      ++i;
    }
    return i;
  } else if (i < words.size() && words[i] == "sglang.launch_server") {
    return i + 1;
  }
  if (i + 1 < words.size() && words[i] == "-m") {
    i += 2;
  }
  return std::min(i, words.size());
}

const std::vector<std::string_view> k_dtype_env = {"SGLANG_MAMBA_SSM_DTYPE", "SGLANG_MAMBA_CONV_DTYPE"};

void check_env(const std::map<std::string, std::string>& env, const std::string& origin)
{
  for (std::string_view name : k_dtype_env) {
    const std::optional<EnvSetting> set = find_env(env, name); // SGL_* spelling included
    if (!set) {
      continue;
    }
    bool ok = false;
    for (std::string_view c : k_dtype_choices) {
      ok = ok || c == set->value;
    }
    if (!ok) {
      throw InputError(origin, set->name + ": expected one of " + join(k_dtype_choices, ", ") + ", got '" +
                                   set->value + "'");
    }
  }
}

// ---------------------------------------------------------------------------
// Argument words with their origins
// ---------------------------------------------------------------------------

/// Replaces `--config PATH` (or `--config=PATH`) by the file's words, in front of
/// the remaining command line as SGLang's ConfigArgumentMerger does.
std::vector<ArgWord> expand_config(std::vector<ArgWord> words, ServerArgs& result, const std::string& origin,
                                ConfigFileReader read_config, const std::string& base_dir)
{
  std::optional<std::size_t> at;
  std::size_t width = 0;
  std::string path;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i].text;
    const bool spaced = w == "--config";
    const bool joined = w.rfind("--config=", 0) == 0;
    if (!spaced && !joined) {
      continue;
    }
    if (at) {
      throw InputError(origin, "--config: given twice (" + words[*at].origin + " and " + words[i].origin +
                                   "); SGLang accepts one config file");
    }
    at = i;
    if (joined) {
      path = w.substr(9);
      width = 1;
    } else if (i + 1 < words.size() && !looks_like_flag(words[i + 1].text)) {
      path = words[i + 1].text;
      width = 2;
    } else {
      throw InputError(origin, "--config: expected a file path, got nothing");
    }
  }
  if (!at) {
    return words;
  }
  if (path.empty()) {
    throw InputError(origin, "--config: expected a file path, got nothing");
  }
  result.given["config"] = ArgOrigin{"--config", path, words[*at].origin};
  if (read_config == nullptr) {
    // A caller without file access (a quick look at the command line) still
    // learns that a config file is involved, from `given`.
    words.erase(words.begin() + static_cast<std::ptrdiff_t>(*at),
                words.begin() + static_cast<std::ptrdiff_t>(*at + width));
    return words;
  }

  std::vector<ArgWord> merged;
  for (ConfigWord& cw : read_config(path, base_dir)) {
    merged.push_back(ArgWord{std::move(cw.text), std::move(cw.origin), true});
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i < *at || i >= *at + width) {
      merged.push_back(std::move(words[i]));
    }
  }
  return merged;
}

} // namespace

std::vector<std::string> split_command_line(const std::string& text, const std::string& origin)
{
  std::vector<std::string> words;
  std::string current;
  bool in_word = false; // distinguishes '' (an empty word) from no word at all
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (is_blank(c)) {
      if (in_word) {
        words.push_back(std::move(current));
        current.clear();
        in_word = false;
      }
      ++i;
    } else if (c == '#' && !in_word) {
      // A comment runs to the end of the line, as in a pasted launch script.
      while (i < text.size() && text[i] != '\n') {
        ++i;
      }
    } else if (c == '\\') {
      if (const std::size_t eol = line_end_at(text, i + 1); eol > 0) {
        i += 1 + eol;
      } else if (i + 1 < text.size()) {
        current += text[i + 1];
        in_word = true;
        i += 2;
      } else {
        current += c;
        in_word = true;
        ++i;
      }
    } else if (c == '\'') {
      const std::size_t close = text.find('\'', i + 1);
      if (close == std::string::npos) {
        throw InputError(origin, "unterminated quote in launch arguments");
      }
      current.append(text, i + 1, close - i - 1);
      in_word = true;
      i = close + 1;
    } else if (c == '"') {
      in_word = true;
      ++i;
      bool closed = false;
      while (i < text.size()) {
        const char d = text[i];
        if (d == '"') {
          closed = true;
          ++i;
          break;
        }
        if (d == '\\' && i + 1 < text.size()) {
          const char e = text[i + 1];
          if (const std::size_t eol = line_end_at(text, i + 1); eol > 0) {
            i += 1 + eol;
            continue;
          }
          // Inside double quotes a backslash only escapes these, as in sh.
          if (e == '"' || e == '\\' || e == '$' || e == '`') {
            current += e;
            i += 2;
            continue;
          }
        }
        current += d;
        ++i;
      }
      if (!closed) {
        throw InputError(origin, "unterminated quote in launch arguments");
      }
    } else {
      current += c;
      in_word = true;
      ++i;
    }
  }
  if (in_word) {
    words.push_back(std::move(current));
  }
  return words;
}

ServerArgs parse_launch_args(const std::vector<std::string>& words,
                             const std::string& origin,
                             const std::map<std::string, std::string>& env,
                             ConfigFileReader read_config,
                             const std::string& base_dir,
                             const FlagTable* flag_table,
                             const std::vector<std::string>& word_places)
{
  const FlagTable& table = flag_table != nullptr ? *flag_table : newest_flag_table();
  ServerArgs result;
  result.env = env;
  result.flag_table = table.name();
  // Assignments in front of the command apply to that command only, so they
  // override the environment given separately.
  const std::size_t start = skip_program_prefix(words, result.env);
  check_env(result.env, origin);

  std::vector<ArgWord> items;
  for (std::size_t i = start; i < words.size(); ++i) {
    const bool placed = i < word_places.size() && !word_places[i].empty();
    items.push_back(ArgWord{words[i], placed ? word_places[i] : "argv[" + std::to_string(i) + "]", false});
  }
  items = expand_config(std::move(items), result, origin, read_config, base_dir);
  result.argparse = argparse_outcome(table, items);
  // An ambiguous word ends the launch before any value is read.
  const bool stopped_early = result.argparse.message_id == MessageId::argparse_ambiguous && result.argparse.stop;

  // The values of the options pdcheck models; what argparse rejects is in
  // result.argparse already.
  std::size_t i = 0;
  while (i < items.size()) {
    const ArgWord& word = items[i];
    const std::string where = word.from_file ? word.origin : origin;
    if (word.text == "--") {
      break;
    }
    if (!looks_like_flag(word.text)) {
      ++i;
      continue;
    }
    const auto [spelling, inline_value] = split_inline_value(word.text);

    // argparse first resolves the word (exact, or a unique abbreviation of a
    // long option), then looks at its values.
    const OptionMatch match = table.match(spelling);
    if (match.kind == OptionMatch::Kind::ambiguous) {
      i = skip_values(items, i + 1, inline_value.has_value(), "*");
      continue;
    }
    if (match.kind == OptionMatch::Kind::unknown) {
      ++i;
      while (i < items.size() && !looks_like_flag(items[i].text)) {
        ++i;
      }
      continue;
    }
    const FlagSpec* spec = find_flag(match.flag->option);
    if (spec == nullptr) {
      // An SGLang flag pdcheck does not model: its values as argparse takes them.
      ArgOrigin unmodelled{spelling, inline_value.value_or(""), word.origin};
      const std::size_t first = i + 1;
      i = skip_values(items, first, inline_value.has_value(), match.flag->nargs);
      for (std::size_t k = first; k < i; ++k) {
        unmodelled.value += (unmodelled.value.empty() ? "" : " ") + items[k].text;
      }
      result.unknown.push_back(std::move(unmodelled));
      continue;
    }

    if (spec->kind == Kind::flag) {
      if (inline_value) {
        throw InputError(where, spelling + ": is a switch and takes no value, got '" + *inline_value + "'");
      }
      spec->apply(result, "", 0);
      result.given[std::string(spec->dest)] = ArgOrigin{spelling, "", word.origin};
      ++i;
      continue;
    }

    std::string value;
    if (inline_value) {
      value = *inline_value;
      ++i;
    } else if (i + 1 < items.size() && !looks_like_flag(items[i + 1].text)) {
      value = items[i + 1].text;
      i += 2;
    } else {
      throw InputError(where, spelling + ": expected " + expected_text(*spec) + ", got nothing");
    }
    long long number = 0;
    try {
      number = check_value(*spec, spelling, value, where);
    } catch (const InputError&) {
      if (!stopped_early) {
        throw;
      }
      continue; // SGLang stops at the ambiguous word first and never reads this value
    }
    spec->apply(result, value, number);
    result.given[std::string(spec->dest)] = ArgOrigin{spelling, value, word.origin};
  }
  result.words = std::move(items);
  return result;
}

} // namespace pdcheck::sglang
