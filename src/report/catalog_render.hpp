#pragma once

// `pdcheck rules`, `pdcheck explain RULE` and `pdcheck profiles`: pdcheck's
// own tables (core/rules.def, core/profile.cpp) as text or as JSON
// (schemas/rules.schema.json, rule.schema.json, profiles.schema.json).

#include "core/profile.hpp"
#include "core/rules.hpp"

#include <nlohmann/json.hpp>

#include <span>
#include <string>

namespace pdcheck::report {

/// One rule with its long texts.
nlohmann::ordered_json rule_to_json(const Rule& rule);
/// `explain RULE`: id, kind, severity, title, explanation and fix.
std::string rule_to_text(const Rule& rule);

/// `rules`: every rule, in table order.
nlohmann::ordered_json rules_to_json(std::span<const Rule> rules);
/// One aligned line per rule: id, kind, severity, title.
std::string rules_to_text(std::span<const Rule> rules);

/// One profile with every behaviour field.
nlohmann::ordered_json profile_to_json(const Profile& profile);
/// `profiles`: every profile and release row, in table order.
nlohmann::ordered_json profiles_to_json(std::span<const Profile> profiles);
/// One aligned line per profile: name, base, release, confidence, evidence.
std::string profiles_to_text(std::span<const Profile> profiles);

} // namespace pdcheck::report
