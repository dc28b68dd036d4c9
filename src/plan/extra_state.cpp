#include "plan/extra_state.hpp"

#include <fmt/format.h>
#include <utility>

namespace pdcheck::plan {

namespace {

using sglang::ExtraStateType;
using sglang::extra_state_type_name;

std::string upper(std::string_view s)
{
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') {
      c = static_cast<char>(c - 'a' + 'A');
    }
  }
  return out;
}

/// The component's value string in the prefill's release: DSA was "nsa" until
/// PR #25821 renamed it (opened 2026-05-19).
std::string value_of(const ExtraStateInput& in)
{
  return in.type == ExtraStateType::dsa && in.dsa_named_nsa ? "nsa" : std::string(extra_state_type_name(in.type));
}

/// A bare {st} of a StateType member in an f-string. StateType is a str-mixin
/// Enum, so Python 3.10 and older print the value and 3.11 and newer
/// "StateType.X"; the log line PR #29756 quotes ("unknown state_type=
/// minimax_index_k") shows the value, so pdcheck renders that, for every backend
/// alike. explain LOG reads either form.
std::string bare_member(const ExtraStateInput& in)
{
  return value_of(in);
}

// The wording shared by Mooncake's maybe_send_extra and NIXL's (f-string with
// st.upper(), so the value string upper-cased: c128_state -> C128_STATE).
SglangError non_mla_tp_error(const ExtraStateInput& in, const char* function)
{
  return sglang_error(MessageId::extra_state_unequal_tp, {{"state_type", upper(value_of(in))}}, function);
}

// MiniMax state: PP is checked first, and on the prefill's own pp size. `what`
// is the backend's wording ("state" in Mooncake, "sparse index" elsewhere).
std::optional<SglangError> minimax_error(const ExtraStateInput& in, bool unequal_tp, std::string_view what,
                                         const char* function)
{
  if (in.prefill_pp_size > 1) {
    return sglang_error(MessageId::minimax_pp, {{"what", what}}, function);
  }
  if (unequal_tp) {
    return sglang_error(MessageId::minimax_tp, {{"what", what}}, function);
  }
  return std::nullopt;
}

// Page-indexed state in Mooncake's and NIXL's maybe_send_extra: refused across
// unequal attention TP unless the prefill's backend is MLA. `exempt` is what
// counts as MLA there: is_mla_backend alone (false for any hybrid pool) in NIXL
// and in Mooncake until its check also took is_hybrid_mla_backend (v0.5.20).
std::optional<SglangError> page_indexed_error(const ExtraStateInput& in, bool unequal_tp, bool exempt)
{
  if (unequal_tp && !exempt) {
    return non_mla_tp_error(in, "maybe_send_extra");
  }
  return std::nullopt;
}

std::optional<SglangError> mooncake_error(const ExtraStateInput& in, bool unequal_tp)
{
  switch (in.type) {
  case ExtraStateType::swa:
  case ExtraStateType::dsa:
  case ExtraStateType::swa_ring:
  case ExtraStateType::c128_state:
    return page_indexed_error(in, unequal_tp, in.hybrid_mla && in.mooncake_hybrid_mla_exempt);
  case ExtraStateType::minimax_index_k:
  case ExtraStateType::minimax_dense_kv:
    // "sparse index" at 0005973a (v0.5.20's generation), "state" at 6d8ea7e3.
    return minimax_error(in, unequal_tp, in.minimax_state_wording ? "state" : "sparse index", "maybe_send_extra");
  }
  return std::nullopt;
}

std::optional<SglangError> mori_error(const ExtraStateInput& in, bool unequal_tp)
{
  switch (in.type) {
  case ExtraStateType::swa:
    // Mori compares the decode's TP size with its own attention TP size, and
    // exempts is_mla_backend alone (never a hybrid pool).
    if (unequal_tp) {
      return sglang_error(MessageId::mori_swa_unequal_tp,
                          {{"prefill_attn_tp_size", in.prefill_attn_tp_size},
                           {"decode_attn_tp_size", in.decode_attn_tp_size}},
                          "_send_swa_dsa_state");
    }
    return std::nullopt;
  case ExtraStateType::dsa:
  case ExtraStateType::swa_ring:
  case ExtraStateType::c128_state:
    return std::nullopt; // page-indexed copies; only index counts are checked
  case ExtraStateType::minimax_index_k:
    if (!in.mori_minimax_index_k) {
      // The allow-list was ("swa", "dsa", "swa_ring") until PR #29756.
      return sglang_error(MessageId::unknown_state_type, {{"state_type", bare_member(in)}}, "send_state");
    }
    return minimax_error(in, unequal_tp, "sparse index", "_send_swa_dsa_state");
  case ExtraStateType::minimax_dense_kv:
    return sglang_error(MessageId::unknown_state_type, {{"state_type", bare_member(in)}}, "send_state");
  }
  return std::nullopt;
}

std::optional<SglangError> nixl_error(const ExtraStateInput& in, bool unequal_tp)
{
  switch (in.type) {
  case ExtraStateType::swa:
  case ExtraStateType::dsa:
  case ExtraStateType::swa_ring:
  case ExtraStateType::c128_state:
    return page_indexed_error(in, unequal_tp, false);
  case ExtraStateType::minimax_index_k:
    return minimax_error(in, unequal_tp, "sparse index", "maybe_send_extra");
  case ExtraStateType::minimax_dense_kv:
    return sglang_error(MessageId::nixl_state_type_unsupported, {{"state_type", bare_member(in)}}, "maybe_send_extra");
  }
  return std::nullopt;
}

} // namespace

void set_release_flags(ExtraStateInput& in, const Profile& prefill_profile)
{
  in.dsa_named_nsa = prefill_profile.dsa_named_nsa;
  in.mori_minimax_index_k = prefill_profile.mori_minimax_index_k;
  in.minimax_state_wording = prefill_profile.minimax_state_wording;
  in.mooncake_hybrid_mla_exempt = prefill_profile.mooncake_hybrid_mla_extra_state;
}

std::optional<SglangError> extra_state_error(const ExtraStateInput& in)
{
  const bool unequal_tp = in.prefill_attn_tp_size != in.decode_attn_tp_size;
  switch (in.backend) {
  case TransferBackend::mooncake:
  case TransferBackend::mooncake_tcp:
    return mooncake_error(in, unequal_tp);
  case TransferBackend::mori:
    return mori_error(in, unequal_tp);
  case TransferBackend::nixl:
    return nixl_error(in, unequal_tp);
  case TransferBackend::ascend:
  case TransferBackend::fake:
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace pdcheck::plan
