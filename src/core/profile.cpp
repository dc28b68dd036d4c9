#include "core/profile.hpp"
#include "core/version.hpp"
#include "util/spellcheck.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

namespace pdcheck {

namespace {

// Each helper returns the feature set of one SGLang generation; release rows
// below start from one of them and adjust what the evidence says. The
// generations are cut at SGLang PRs #10912 (first hybrid state transfer),
// #16056 (state item lens and dims), #24932 (per-component lists) and v0.5.20;
// docs/profiles.md gives each row's confidence and evidence (SGLang's release
// index docs/release_lookup/release_index.json@90aba0db, issue and PR threads),
// and each row's `evidence` field names the PRs it rests on.

Profile no_state()
{
  Profile p;
  p.base = "pre-dims";
  p.state_transfer = false;
  p.mooncake_format = RegistrationFormat::no_state_lens;
  p.aggregation_writer_fix = false;
  p.mooncake_slot_size_check = false;
  p.mooncake_layout_check = false;
  p.pp_split = PpSplit::last_takes_remainder;
  p.mamba_dtype_env = false;
  p.dsa_named_nsa = true;
  p.mori_minimax_index_k = false;
  return p;
}

Profile pre_dims()
{
  Profile p = no_state();
  p.state_transfer = true;
  return p;
}

Profile flat()
{
  Profile p;
  p.base = "flat";
  p.mooncake_format = RegistrationFormat::flat;
  p.dims_include_spec_intermediates = true;
  p.aggregation_writer_fix = true;
  p.nixl_state = true;
  p.nixl_dims = true;
  p.mori_state = true;
  p.mooncake_slot_size_check = false;
  p.mooncake_layout_check = false;
  p.dsa_named_nsa = true;           // mooncake/conn.py flat era: state_type in ["swa", "nsa"]
  p.mori_minimax_index_k = false;
  return p;
}

Profile components()
{
  Profile p;
  p.base = "components";
  p.mooncake_format = RegistrationFormat::components;
  p.conv_subgroup_slicing = true;
  p.state_layer_ids = true;
  p.unified_memory = true;
  p.unified_memory_pd = true;
  p.nixl_state = true;
  p.nixl_dims = true;
  p.mori_state = true;
  p.mooncake_slot_size_check = true;
  p.pd_decode_dcp = true; // #32837 (opened 2026-07-30) comes before #33362 (~08-10), which this profile has
  return p;
}

Profile v0_5_20()
{
  Profile p = components();
  p.base = "v0.5.20";
  p.dim_rule = DimRule::slice_axis;
  p.drop_zero_size_entries = true;
  p.kda_single_conv = true;
  // mooncake/conn.py @ 0005973a tests `not is_mla_backend and not
  // is_hybrid_mla_backend`; PR #32837's 1024c1db tests is_mla_backend alone.
  p.mooncake_hybrid_mla_extra_state = true;
  // _validate_unified_peer_layout and registration frames 19-20 (PR #40500,
  // opened two days after the tag) are not in v0.5.20's mooncake/conn.py.
  p.unified_unequal_tp = false;
  return p;
}

Profile after_v0_5_20()
{
  Profile p = v0_5_20();
  p.unified_unequal_tp = true; // PR #40500, probably first released in 0.5.21
  p.minimax_state_wording = true; // mooncake/conn.py @ 6d8ea7e3 (PR #39973's generation)
  return p;
}

Profile named(Profile p, std::string name, std::string evidence)
{
  p.name = std::move(name);
  p.confidence = "definition";
  p.evidence = std::move(evidence);
  return p;
}

Profile release(Profile p, std::string version, std::string date, std::string confidence, std::string evidence)
{
  p.name = std::move(version);
  p.released = std::move(date);
  p.confidence = std::move(confidence);
  p.evidence = std::move(evidence);
  return p;
}

std::vector<Profile> build_table()
{
  std::vector<Profile> t;
  t.push_back(named(pre_dims(), "pre-dims", "registration carries no state_item_lens / state_dim_per_tensor (before PR #16056)"));
  t.push_back(named(flat(), "flat", "one state_type, flat native arrays with item_lens and dims (PR #16056 .. before PR #24932)"));
  t.push_back(named(components(), "components", "per-component lists packed with pack_int_lists (PR #24932 on), with PP layer ids (#32270), unified memory with PD (#33362) and GDN conv sub-group slicing (#30997)"));
  t.push_back(named(v0_5_20(), "v0.5.20", "dims are the size of the slice axis, zero-size tensors dropped, Kimi-Linear single conv tensor (memory_pool.py at v0.5.20)"));

  const char* no_state_versions[][2] = {
    {"0.5.1", "2025-08-23"}, {"0.5.1.post1", "2025-08-24"}, {"0.5.1.post2", "2025-08-25"},
    {"0.5.1.post3", "2025-08-27"}, {"0.5.2", "2025-09-11"}, {"0.5.3", "2025-10-06"},
    {"0.5.3.post1", "2025-10-09"}, {"0.5.3.post2", "2025-10-15"},
  };
  for (const auto& [v, d] : no_state_versions) {
    t.push_back(release(no_state(), v, d, "high", "release index: PR #10912 (first hybrid state transfer) first in v0.5.3.post3"));
  }
  // get_pp_indices gave the last stages one extra layer each from PR #13977,
  // first released in v0.5.6 (before: the last stage took the whole remainder).
  struct PreDimsRow
  {
    const char* version;
    const char* date;
    PpSplit pp_split;
  };
  constexpr PpSplit k_old_split = PpSplit::last_takes_remainder;
  constexpr PpSplit k_new_split = PpSplit::last_stages_one_extra;
  const PreDimsRow pre_dims_versions[] = {
    {"0.5.3.post3", "2025-10-16", k_old_split}, {"0.5.4", "2025-10-23", k_old_split},
    {"0.5.4.post1", "2025-10-27", k_old_split}, {"0.5.4.post2", "2025-10-31", k_old_split},
    {"0.5.4.post3", "2025-11-04", k_old_split}, {"0.5.5", "2025-11-06", k_old_split},
    {"0.5.5.post1", "2025-11-10", k_old_split}, {"0.5.5.post2", "2025-11-12", k_old_split},
    {"0.5.5.post3", "2025-11-16", k_old_split}, {"0.5.6", "2025-12-02", k_new_split},
    {"0.5.6.post1", "2025-12-08", k_new_split}, {"0.5.6.post2", "2025-12-11", k_new_split},
    {"0.5.7", "2026-01-01", k_new_split},       {"0.5.8", "2026-01-23", k_new_split},
    {"0.5.8.post1", "2026-02-05", k_new_split},
  };
  for (const PreDimsRow& row : pre_dims_versions) {
    Profile p = pre_dims();
    p.pp_split = row.pp_split;
    t.push_back(release(p, row.version, row.date, "high", "release index: PR #10912 present, PR #16056 (state dims) absent"));
  }

  Profile v059 = flat();
  v059.aggregation_writer_fix = false; // #20655 opened 2026-03-16, after the tag
  v059.nixl_dims = false;              // #22240 merged 2026-04-07
  v059.mori_state = false;             // #22665 opened 2026-04-13
  t.push_back(release(v059, "0.5.9", "2026-02-25", "medium", "slime v0.5.9 patch line offsets match the post-#16056 mooncake/conn.py"));
  Profile v0510 = v059;
  v0510.aggregation_writer_fix = true;
  t.push_back(release(v0510, "0.5.10", "2026-04-05", "high", "#16056 merged before 2026-03-16; #22240 merged after the tag"));
  t.push_back(release(v0510, "0.5.10.post1", "2026-04-11", "medium", "release notes: only a flashinfer bump over v0.5.10"));
  // Mori state stays on: #22665 merged 2026-05-08T23:07Z, two days after the
  // tag, and no source says whether it was cherry-picked; the row says so.
  t.push_back(release(flat(), "0.5.11", "2026-05-06", "medium",
                      "#22240 (NIXL dims) merged 2026-04-07; #24932 opened after the tag; Mori state (#22665) merged "
                      "2026-05-08, two days after the tag: included only if cherry-picked (not confirmed)"));

  Profile v0512 = components();
  v0512.conv_subgroup_slicing = false;
  v0512.state_layer_ids = false;
  v0512.unified_memory = false;
  v0512.unified_memory_pd = false;
  v0512.mori_broken_pack = true;
  v0512.mooncake_slot_size_check = false;
  v0512.mooncake_layout_check = false;
  v0512.dsa_named_nsa = true;          // #25821 (NSA -> DSA) opened 2026-05-19, after the tag
  v0512.mori_minimax_index_k = false;  // #29756 merged 2026-07-02
  v0512.pd_decode_dcp = false;         // #32837 opened 2026-07-30
  t.push_back(release(v0512, "0.5.12", "2026-05-16", "high", "issue #25698 / PR #25699 name v0.5.12 and #24932; Mori half-migrated (#26525)"));
  t.push_back(release(v0512, "0.5.12.post1", "2026-05-26", "high", "#26525 reproduced on v0.5.12.post1"));
  Profile v0513 = v0512;
  v0513.mori_broken_pack = false;
  v0513.dsa_named_nsa = false; // #25821 (opened 05-19) assumed merged by the tag
  t.push_back(release(v0513, "0.5.13", "2026-06-13", "high",
                      "components by date; Mori fix #26539 (opened 05-28) probably included (low); NSA -> DSA "
                      "rename #25821 (opened 05-19) assumed included (not confirmed)"));
  t.push_back(release(v0513, "0.5.14", "2026-06-26", "high", "components by date"));
  Profile v0515 = v0513;
  v0515.mori_minimax_index_k = true; // #29756 merged 2026-07-02
  t.push_back(release(v0515, "0.5.15", "2026-07-09", "medium", "tag f63458b5 predates #30997 (~07-16) and #32270 (~07-24)"));
  t.push_back(release(v0515, "0.5.15.post1", "2026-07-15", "medium", "as v0.5.15 unless #30997 was cherry-picked"));
  Profile v0516 = v0515;
  v0516.conv_subgroup_slicing = true;
  t.push_back(release(v0516, "0.5.16", "2026-07-25", "medium", "#30997 likely; #32270 (PP layer ids) probably not"));
  Profile v0517 = v0516;
  v0517.state_layer_ids = true;
  v0517.pd_decode_dcp = true;
  t.push_back(release(v0517, "0.5.17", "2026-08-08", "medium",
                      "#32270 (~07-24) and #32837 (PD decode DCP, opened 07-30) likely; #33362 (unified memory PD, ~08-10) not yet"));
  Profile v0518 = v0517;
  v0518.unified_memory = true;
  v0518.unified_memory_pd = true;
  v0518.mooncake_layout_check = true; // M9's text names --enable-unified-memory (#33362)
  t.push_back(release(v0518, "0.5.18", "2026-08-25", "medium", "PR #28229 comment: v0.5.18 exchanges layer ids; #33362 likely"));
  t.push_back(release(components(), "0.5.19", "2026-09-07", "low",
                      "components + PP + unified memory + PD decode DCP (#32837); v0.5.20 behaviours probably not yet"));
  t.push_back(release(v0_5_20(), "0.5.20", "2026-09-18", "high", "definition: memory_pool.py at v0.5.20"));
  t.push_back(release(after_v0_5_20(), "0.5.21", "2026-10-02", "low",
                      "v0.5.20 profile plus PR #40500 (unified unequal-TP layouts, frames 19-20), by date"));
  t.push_back(release(after_v0_5_20(), "0.5.22", "2026-10", "low",
                      "as 0.5.21 (nightly 0.5.22.dev20261009)"));
  t.push_back(release(after_v0_5_20(), "0.5.23", "2026-10", "low", "as 0.5.21"));
  return t;
}

std::string lower_case(std::string_view text)
{
  std::string s;
  for (char c : text) {
    s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

std::string normalise(std::string_view text)
{
  return normalise_version(text);
}

/// An image reference or a suffixed tag reduced to the version it names:
/// "lmsysorg/sglang:v0.5.21-cu129" -> "0.5.21". Returns the text unchanged when
/// it carries no image name or suffix.
std::string version_text_of(std::string_view text)
{
  if (const std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    text.remove_prefix(colon + 1);
  }
  if (text.size() > 1 && (text[0] == 'v' || text[0] == 'V') && std::isdigit(static_cast<unsigned char>(text[1]))) {
    text.remove_prefix(1);
  }
  if (const std::size_t dash = text.find('-'); dash != std::string_view::npos) {
    text = text.substr(0, dash); // -cu129, -rocm700, -runtime: image variants of one release
  }
  return normalise(text);
}

/// Release rows in version order (the table is oldest first by date, which is
/// the same order; sorted anyway so a misplaced row cannot mislead).
std::vector<std::pair<Version, const Profile*>> known_releases()
{
  std::vector<std::pair<Version, const Profile*>> rows;
  for (const Profile& p : profiles()) {
    if (p.released.empty()) {
      continue;
    }
    if (auto v = parse_version(p.name)) {
      rows.emplace_back(*v, &p);
    }
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return release_before(a.first, b.first); });
  return rows;
}

} // namespace

ProfileMatch resolve_profile(std::string_view name_or_version)
{
  ProfileMatch m;
  if ((m.profile = find_profile(name_or_version)) != nullptr) {
    return m;
  }
  const std::string text = version_text_of(name_or_version);
  const std::optional<Version> v = parse_version(text);
  if (!v) {
    return m;
  }
  if (text != normalise(name_or_version)) {
    m.read_as = text;
  }
  if ((m.profile = find_profile(text)) != nullptr) {
    return m; // an image tag of a known release: no behaviour is assumed
  }
  const auto rows = known_releases();
  // A pre-release (rc, dev nightly) of X behaves as X when pdcheck knows X; any
  // other unknown version takes the newest known release not after it (post
  // releases only carry cherry-picked fixes of their base).
  const Profile* same_row = nullptr;
  const Profile* not_after = nullptr;
  for (const auto& [known, profile] : rows) {
    if (same_release(known, *v)) {
      same_row = profile;
    }
    const bool after = release_before(*v, known);
    if (!after) {
      not_after = profile;
    }
  }
  const std::string written(name_or_version);
  if (v->pre_release() && same_row != nullptr) {
    m.profile = same_row;
    m.assumption = fmt::format("SGLang {} is a pre-release pdcheck has no row for; checked as {} ({} profile)", written,
                               same_row->name, same_row->base);
  } else if (not_after != nullptr) {
    m.profile = not_after;
    const bool newest = not_after == rows.back().second;
    m.assumption = fmt::format("SGLang {} is {} pdcheck knows; checked as {}, the nearest earlier release ({} profile)",
                               written, newest ? "newer than every release" : "not a release", not_after->name,
                               not_after->base);
  } else {
    // Older than the table (before any hybrid PD state): nothing to assume from.
    m.read_as.clear();
  }
  return m;
}

std::string_view mapping_confidence(const ProfileMatch& m)
{
  if (m.profile == nullptr) {
    return "none";
  }
  return m.assumption.empty() ? std::string_view(m.profile->confidence) : std::string_view("low");
}

const std::vector<Profile>& profiles()
{
  static const std::vector<Profile> table = build_table();
  return table;
}

bool moves_mamba_state(const Profile& p, TransferBackend backend)
{
  switch (backend) {
  case TransferBackend::mooncake: return p.state_transfer;
  case TransferBackend::nixl: return p.nixl_state;
  case TransferBackend::mori: return p.mori_state;
  case TransferBackend::mooncake_tcp:
  case TransferBackend::ascend:
  case TransferBackend::fake: return true; // not modelled
  }
  return true;
}

std::vector<const Profile*> release_profiles()
{
  std::vector<const Profile*> out;
  for (const Profile& p : profiles()) {
    if (!p.released.empty()) {
      out.push_back(&p);
    }
  }
  return out;
}

const Profile* find_profile(std::string_view name_or_version)
{
  // The name as written first: "0.5.20" is the release row, "v0.5.20" the named
  // profile, though both normalise to the same text.
  const std::string written = lower_case(name_or_version);
  for (const Profile& p : profiles()) {
    if (lower_case(p.name) == written) {
      return &p;
    }
  }
  const std::string wanted = normalise(name_or_version);
  for (const Profile& p : profiles()) {
    if (normalise(p.name) == wanted) {
      return &p;
    }
  }
  return nullptr;
}

std::vector<std::string> profile_names()
{
  std::vector<std::string> names;
  for (const Profile& p : profiles()) {
    names.push_back(p.name);
  }
  return names;
}

std::string unknown_profile_text(std::string_view word)
{
  std::vector<std::string> named;
  std::vector<std::string> releases;
  for (const Profile& p : profiles()) {
    (p.released.empty() ? named : releases).push_back(p.name);
  }
  // Neighbouring release numbers are not typos of each other: suggest only for names.
  const bool version_like = !word.empty() && (std::isdigit(static_cast<unsigned char>(word[0])) ||
                                              (word.size() > 1 && (word[0] == 'v' || word[0] == 'V') &&
                                               std::isdigit(static_cast<unsigned char>(word[1]))));
  std::string hint;
  if (!version_like) {
    if (auto close = closest_match(word, named)) {
      hint = fmt::format(" (did you mean '{}'?)", *close);
    }
  }
  return fmt::format("unknown profile or version '{}'{}; expected an SGLang release from {} on (releases after {} "
                     "are checked as {}, with a warning), an image tag such as lmsysorg/sglang:v{}-cu129, or a "
                     "profile: {} (pdcheck profiles lists them)",
                     word, hint, releases.front(), releases.back(), releases.back(), releases.back(),
                     fmt::join(named, ", "));
}

const Profile& default_profile()
{
  return *find_profile("v0.5.20");
}

} // namespace pdcheck
