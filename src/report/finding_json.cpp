#include "report/finding_json.hpp"

namespace pdcheck::report {

namespace {

template <typename T>
nlohmann::ordered_json optional_json(const std::optional<T>& v)
{
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

} // namespace

nlohmann::ordered_json finding_to_json(const Finding& f)
{
  nlohmann::ordered_json j;
  j["rule"] = f.rule;
  j["kind"] = finding_kind_name(f.kind);
  j["severity"] = severity_name(f.severity);
  j["message"] = f.message;
  j["runtime_error"] = optional_json(f.runtime_error);
  j["logged_warning"] = optional_json(f.logged_warning);
  j["where"] = f.where;
  j["side"] = f.side.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(f.side);
  j["prefill_rank"] = optional_json(f.prefill_rank);
  j["decode_rank"] = optional_json(f.decode_rank);
  j["backend"] = f.backend.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(f.backend);
  j["component"] = optional_json(f.component);
  j["evidence"] = f.evidence;
  j["fix"] = f.fix;
  j["change"] = f.change.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(f.change);
  auto places = nlohmann::ordered_json::array();
  for (const FindingPlace& p : f.places) {
    places.push_back({{"side", p.side}, {"file", p.file}, {"line", p.line}, {"column", p.column}});
  }
  j["places"] = std::move(places);
  return j;
}

} // namespace pdcheck::report
