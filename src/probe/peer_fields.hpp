#pragma once

// Reading the messages of a probe peer (internal to probe/). The peer is
// another host: every integer is range-checked into the type it is used as
// (nlohmann's get<int>() silently narrows 4294967297 to 1), and every text is
// made printable before it reaches a report or a terminal. Each error names the
// message, the field and what was expected.

#include "probe/probe_error.hpp"

#include <nlohmann/json.hpp>

#include <concepts>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pdcheck::probe {

/// The most a peer may report for one request's bytes or work requests: far
/// beyond any transfer (256 TiB), and small enough that sums over any number of
/// requests a run can make stay within 64 bits.
inline constexpr std::int64_t k_max_peer_count = std::int64_t{1} << 48;

/// `value` as a T when it is a JSON integer that T can hold; nullopt otherwise
/// (another type, a float, out of T's range).
template <std::integral T>
  requires(!std::same_as<T, bool>)
std::optional<T> integer_as(const nlohmann::json& value)
{
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    return std::in_range<T>(u) ? std::optional<T>(static_cast<T>(u)) : std::nullopt;
  }
  if (value.is_number_integer()) {
    const auto i = value.get<std::int64_t>();
    return std::in_range<T>(i) ? std::optional<T>(static_cast<T>(i)) : std::nullopt;
  }
  return std::nullopt;
}

/// A JSON value as a short printable text for messages: `v.dump()` cut to a few
/// dozen bytes, control characters escaped.
std::string peer_value_text(const nlohmann::json& v);

/// One object of a peer's message, read field by field. Errors are
/// ProbeError(phase) naming `where` ("the peer's hello", "the peer's
/// transfer_info per_rank[1]") and the field.
class PeerObject
{
public:
  PeerObject(const nlohmann::json& object, std::string where, Phase phase)
    : m_json(object), m_where(std::move(where)), m_phase(phase)
  {
  }

  const nlohmann::json& json() const { return m_json; }
  const std::string& where() const { return m_where; }
  Phase phase() const { return m_phase; }

  /// The integer `field`; an error when it is absent, not an integer or outside T.
  template <std::integral T>
  T integer(std::string_view field) const
  {
    const nlohmann::json* v = find(field);
    if (v == nullptr) {
      missing(field, "an integer");
    }
    return checked<T>(field, *v);
  }

  /// The integer `field`, or `fallback` when it is absent.
  template <std::integral T>
  T integer_or(std::string_view field, T fallback) const
  {
    const nlohmann::json* v = find(field);
    return v == nullptr ? fallback : checked<T>(field, *v);
  }

  /// The integer `field`, or `fallback` when it is absent; an error when it is
  /// outside lo..hi (counts that are summed, slots that seed arithmetic).
  template <std::integral T>
  T integer_in(std::string_view field, T fallback, T lo, T hi) const
  {
    const nlohmann::json* v = find(field);
    if (v == nullptr) {
      return fallback;
    }
    const std::optional<T> x = integer_as<T>(*v);
    if (!x || *x < lo || *x > hi) {
      wrong(field, *v, "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    }
    return *x;
  }

  /// The array of integers `field` (required), each range-checked into T.
  template <std::integral T>
  std::vector<T> integers(std::string_view field) const
  {
    const nlohmann::json* v = find(field);
    if (v == nullptr) {
      missing(field, "an array of integers");
    }
    if (!v->is_array()) {
      wrong(field, *v, "an array of integers");
    }
    std::vector<T> out;
    out.reserve(v->size());
    for (const nlohmann::json& item : *v) {
      const std::optional<T> x = integer_as<T>(item);
      if (!x) {
        wrong(std::string(field) + "[" + std::to_string(out.size()) + "]", item, range_text<T>());
      }
      out.push_back(*x);
    }
    return out;
  }

  /// The string `field`, printable (util/untrusted_text.hpp), or `fallback`
  /// when it is absent; an error when it is not a string.
  std::string text_or(std::string_view field, std::string_view fallback) const;

  /// The array of strings `field`, each printable; empty when it is absent.
  std::vector<std::string> texts(std::string_view field) const;

private:
  const nlohmann::json* find(std::string_view field) const;

  template <std::integral T>
  T checked(std::string_view field, const nlohmann::json& v) const
  {
    const std::optional<T> x = integer_as<T>(v);
    if (!x) {
      wrong(field, v, range_text<T>());
    }
    return *x;
  }

  template <std::integral T>
  static std::string range_text()
  {
    return "an integer from " + std::to_string(std::numeric_limits<T>::min()) + " to " +
           std::to_string(std::numeric_limits<T>::max());
  }

  [[noreturn]] void missing(std::string_view field, std::string_view expected) const;
  [[noreturn]] void wrong(std::string_view field, const nlohmann::json& v, std::string_view expected) const;

  const nlohmann::json& m_json;
  std::string m_where;
  Phase m_phase;
};

} // namespace pdcheck::probe
