#pragma once

// The concrete change behind a pair finding: which launch settings differ
// between the two sides, where each side sets them (file:line, or the
// --prefill-args string), and what to change ("decode.yaml:4 sets
// --enable-unified-memory, the prefill does not: add it to prefill.yaml:4 or
// remove it from decode.yaml:4"). A finding's rule names the settings that can
// cause it; only those that differ on this pair are named.

#include "check/checker.hpp"

#include <string>
#include <vector>

namespace pdcheck::check {

/// A launch setting as both sides have it.
struct SettingDiff
{
  std::string setting;    ///< "--enable-unified-memory", "SGLang release", "SSM state dtype", ...
  std::string prefill;    ///< value as text ("on" / "off" for switches)
  std::string decode;
  std::string prefill_at; ///< where the prefill sets it ("prefill.yaml:4"), or where it would go
  std::string decode_at;
  bool prefill_given = false; ///< false: SGLang's default
  bool decode_given = false;
  std::string change;     ///< the sentence an operator acts on
};

/// Every setting pdcheck compares whose values differ between the sides.
std::vector<SettingDiff> setting_diffs(const CheckInput& in);

/// The settings of `diffs` that can cause findings of `rule` (a table in
/// remedy.cpp); empty for rules no launch setting causes.
std::vector<SettingDiff> diffs_for_rule(const std::string& rule, const std::vector<SettingDiff>& diffs);

/// Fills each finding's `change`: for a finding about one side, where that side
/// sets the flag behind it (and, for a TP refusal, the attention TP sizes at
/// which the model starts); otherwise the settings its rule depends on that
/// differ on this pair, also as evidence.settings.
void add_remedies(std::vector<Finding>& findings, const CheckInput& in);

} // namespace pdcheck::check
