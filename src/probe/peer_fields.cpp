#include "probe/peer_fields.hpp"

#include "util/untrusted_text.hpp"

#include <fmt/format.h>

namespace pdcheck::probe {

namespace {

/// A value in an error sentence needs no more than this to be recognised.
constexpr std::size_t k_value_text_bytes = 40;

constexpr const char* k_same_version = "that both ends run the same pdcheck version";

} // namespace

std::string peer_value_text(const nlohmann::json& v)
{
  // A replacing dump: a string with bytes that are not UTF-8 cannot come from
  // the parser, but must not make an error message throw either.
  return printable_untrusted(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), k_value_text_bytes);
}

const nlohmann::json* PeerObject::find(std::string_view field) const
{
  if (!m_json.is_object()) {
    return nullptr;
  }
  const auto it = m_json.find(field);
  return it == m_json.end() ? nullptr : &*it;
}

std::string PeerObject::text_or(std::string_view field, std::string_view fallback) const
{
  const nlohmann::json* v = find(field);
  if (v == nullptr) {
    return std::string(fallback);
  }
  if (!v->is_string()) {
    wrong(field, *v, "a string");
  }
  return printable_untrusted(v->get_ref<const std::string&>());
}

std::vector<std::string> PeerObject::texts(std::string_view field) const
{
  const nlohmann::json* v = find(field);
  if (v == nullptr) {
    return {};
  }
  if (!v->is_array()) {
    wrong(field, *v, "an array of strings");
  }
  std::vector<std::string> out;
  for (const nlohmann::json& item : *v) {
    if (!item.is_string()) {
      wrong(field, item, "a string for each item");
    }
    out.push_back(printable_untrusted(item.get_ref<const std::string&>()));
  }
  return out;
}

void PeerObject::missing(std::string_view field, std::string_view expected) const
{
  throw ProbeError(m_phase, fmt::format("{} lacks {}: expected {}", m_where, field, expected), k_same_version);
}

void PeerObject::wrong(std::string_view field, const nlohmann::json& v, std::string_view expected) const
{
  throw ProbeError(m_phase, fmt::format("{} has {} = {}: expected {}", m_where, field, peer_value_text(v), expected),
                   k_same_version);
}

} // namespace pdcheck::probe
