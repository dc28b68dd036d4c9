#include "sglang/profile.hpp"

#include <algorithm>
#include <cctype>

namespace pdcheck::sglang {

namespace {

// Each helper returns the feature set of one SGLang generation; release rows
// below start from one of them and adjust what the evidence says. Evidence and
// confidence are from ../shared/reference/sglang-versions.md (see also
// docs/profiles.md).

Profile no_state()
{
  Profile p;
  p.base = "pre-dims";
  p.state_transfer = false;
  p.mooncake_format = RegistrationFormat::no_state_lens;
  p.aggregation_writer_fix = false;
  p.mooncake_slot_size_check = false;
  p.mooncake_layout_check = false;
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
  return p;
}

Profile v0_5_20()
{
  Profile p = components();
  p.base = "v0.5.20";
  p.dim_rule = DimRule::slice_axis;
  p.drop_zero_size_entries = true;
  p.kda_single_conv = true;
  p.unified_unequal_tp = true;
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
  const char* pre_dims_versions[][2] = {
    {"0.5.3.post3", "2025-10-16"}, {"0.5.4", "2025-10-23"}, {"0.5.4.post1", "2025-10-27"},
    {"0.5.4.post2", "2025-10-31"}, {"0.5.4.post3", "2025-11-04"}, {"0.5.5", "2025-11-06"},
    {"0.5.5.post1", "2025-11-10"}, {"0.5.5.post2", "2025-11-12"}, {"0.5.5.post3", "2025-11-16"},
    {"0.5.6", "2025-12-02"}, {"0.5.6.post1", "2025-12-08"}, {"0.5.6.post2", "2025-12-11"},
    {"0.5.7", "2026-01-01"}, {"0.5.8", "2026-01-23"}, {"0.5.8.post1", "2026-02-05"},
  };
  for (const auto& [v, d] : pre_dims_versions) {
    t.push_back(release(pre_dims(), v, d, "high", "release index: PR #10912 present, PR #16056 (state dims) absent"));
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
  t.push_back(release(flat(), "0.5.11", "2026-05-06", "high", "#22240 (NIXL dims) merged 2026-04-07; #24932 opened after the tag; Mori state (#22665) medium"));

  Profile v0512 = components();
  v0512.conv_subgroup_slicing = false;
  v0512.state_layer_ids = false;
  v0512.unified_memory = false;
  v0512.unified_memory_pd = false;
  v0512.mori_broken_pack = true;
  v0512.mooncake_slot_size_check = false;
  v0512.mooncake_layout_check = false;
  t.push_back(release(v0512, "0.5.12", "2026-05-16", "high", "issue #25698 / PR #25699 name v0.5.12 and #24932; Mori half-migrated (#26525)"));
  t.push_back(release(v0512, "0.5.12.post1", "2026-05-26", "high", "#26525 reproduced on v0.5.12.post1"));
  Profile v0513 = v0512;
  v0513.mori_broken_pack = false;
  t.push_back(release(v0513, "0.5.13", "2026-06-13", "high", "components by date; Mori fix #26539 (opened 05-28) probably included (low)"));
  t.push_back(release(v0513, "0.5.14", "2026-06-26", "high", "components by date"));
  t.push_back(release(v0513, "0.5.15", "2026-07-09", "medium", "tag f63458b5 predates #30997 (~07-16) and #32270 (~07-24)"));
  t.push_back(release(v0513, "0.5.15.post1", "2026-07-15", "medium", "as v0.5.15 unless #30997 was cherry-picked"));
  Profile v0516 = v0513;
  v0516.conv_subgroup_slicing = true;
  t.push_back(release(v0516, "0.5.16", "2026-07-25", "medium", "#30997 likely; #32270 (PP layer ids) probably not"));
  Profile v0517 = v0516;
  v0517.state_layer_ids = true;
  t.push_back(release(v0517, "0.5.17", "2026-08-08", "medium", "#32270 (~07-24) likely; #33362 (unified memory PD, ~08-10) not yet"));
  Profile v0518 = v0517;
  v0518.unified_memory = true;
  v0518.unified_memory_pd = true;
  v0518.mooncake_layout_check = true; // M9's text names --enable-unified-memory (#33362)
  t.push_back(release(v0518, "0.5.18", "2026-08-25", "medium", "PR #28229 comment: v0.5.18 exchanges layer ids; #33362 likely"));
  t.push_back(release(components(), "0.5.19", "2026-09-07", "low", "components + PP + unified memory; v0.5.20 behaviours probably not yet"));
  t.push_back(release(v0_5_20(), "0.5.20", "2026-09-18", "high", "definition: memory_pool.py at v0.5.20"));
  t.push_back(release(v0_5_20(), "0.5.21", "2026-10-02", "low", "v0.5.20 profile assumed, no contrary evidence"));
  t.push_back(release(v0_5_20(), "0.5.22", "2026-10", "low", "v0.5.20 profile assumed (nightly 0.5.22.dev20261009)"));
  t.push_back(release(v0_5_20(), "0.5.23", "2026-10", "low", "v0.5.20 profile assumed"));
  return t;
}

std::string normalise(std::string_view text)
{
  std::string s;
  for (char c : text) {
    s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (!s.empty() && s[0] == 'v' && s.size() > 1 && std::isdigit(static_cast<unsigned char>(s[1]))) {
    s.erase(0, 1);
  }
  return s;
}

} // namespace

const std::vector<Profile>& profiles()
{
  static const std::vector<Profile> table = build_table();
  return table;
}

const Profile* find_profile(std::string_view name_or_version)
{
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

const Profile& default_profile()
{
  return *find_profile("v0.5.20");
}

} // namespace pdcheck::sglang
