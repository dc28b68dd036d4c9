#include "core/rules.hpp"

namespace pdcheck {

namespace {

const std::vector<Rule> k_rules = {
#define PDCHECK_RULE(handle, id, kind, severity, scope, key, title, explanation, fix)                                  \
  Rule{RuleId::handle, id, FindingKind::kind, Severity::severity, RuleScope::scope, SideKey::key, title, explanation,  \
       fix},
#include "core/rules.def"
#undef PDCHECK_RULE
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

const Rule& rule(RuleId handle)
{
  // The rows are in handle order: both come from the same file.
  return k_rules[static_cast<std::size_t>(handle)];
}

std::string_view rule_id(RuleId handle)
{
  return rule(handle).id;
}

std::string_view side_key_name(SideKey k)
{
  switch (k) {
  case SideKey::args: return "args";
  case SideKey::model: return "model";
  case SideKey::role: return "role";
  case SideKey::sglang: return "sglang";
  case SideKey::env: return "env";
  }
  return "args";
}

Finding make_finding(RuleId handle, std::string message)
{
  const Rule& r = rule(handle);
  Finding f;
  f.rule = std::string(r.id);
  f.kind = r.kind;
  f.severity = r.severity;
  f.message = std::move(message);
  f.fix = std::string(r.fix);
  return f;
}

} // namespace pdcheck
