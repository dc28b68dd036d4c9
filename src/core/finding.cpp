#include "core/finding.hpp"

namespace pdcheck {

std::string_view severity_name(Severity s)
{
  switch (s) {
  case Severity::error: return "error";
  case Severity::warning: return "warning";
  case Severity::info: return "info";
  }
  return "?";
}

std::string_view finding_kind_name(FindingKind k)
{
  switch (k) {
  case FindingKind::startup: return "startup";
  case FindingKind::bootstrap: return "bootstrap";
  case FindingKind::transfer: return "transfer";
  case FindingKind::silent_corruption: return "silent_corruption";
  case FindingKind::advice: return "advice";
  }
  return "?";
}

} // namespace pdcheck
