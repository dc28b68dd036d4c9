#pragma once

// Reading an architecture's keys from a config.json: one reader that words
// every error the same way (the key's full path, what was expected, the
// architecture), and the small rules several architectures share. Internal to
// model/: model_spec.cpp's per-architecture readers use it.

#include "core/dtype.hpp"
#include "model/model_spec.hpp"
#include "util/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <climits>
#include <cstdint>
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::model::config {

using nlohmann::json;

/// "a, b, c".
std::string join(const std::vector<std::string>& items);

/// A short rendering of an offending value for an error line; whole arrays
/// would make the message unreadable.
std::string brief(const json& value);

/// Reads typed keys from one JSON object (the config or a nested block of it)
/// and words every error the same way: the key's full path, what was
/// expected, and the architecture being read.
class KeyReader
{
public:
  KeyReader(const json& object, std::string prefix, const std::string& origin, const std::string& arch)
    : m_object(object), m_prefix(std::move(prefix)), m_origin(origin), m_arch(arch)
  {
  }

  /// A wrapper's sub-config that SGLang builds from its own keys over some of
  /// the wrapper's top-level ones (GLM-5-Next's text_config): `inherited` keys
  /// missing from `object` are read from `outer`, and named by their top-level
  /// path.
  KeyReader(const json& object, std::string prefix, const json& outer, std::span<const std::string_view> inherited,
            const std::string& origin, const std::string& arch)
    : m_object(object), m_prefix(std::move(prefix)), m_origin(origin), m_arch(arch), m_outer(&outer),
      m_inherited(inherited)
  {
  }

  const json* find(std::string_view key) const
  {
    if (const auto it = m_object.find(std::string(key)); it != m_object.end()) {
      return &*it;
    }
    if (from_outer(key)) {
      return &*m_outer->find(std::string(key));
    }
    return nullptr;
  }

  std::string path(std::string_view key) const
  {
    return from_outer(key) ? std::string(key) : m_prefix + std::string(key);
  }

  [[noreturn]] void fail(const std::string& what) const { throw InputError(m_origin, what); }

  [[noreturn]] void missing(std::string_view key, std::string_view expected) const
  {
    fail(fmt::format("missing key '{}' (expected {}) for {}", path(key), expected, m_arch));
  }

  [[noreturn]] void wrong(std::string_view key, std::string_view expected, const json& value) const
  {
    fail(fmt::format("key '{}' must be {}, got {} for {}", path(key), expected, brief(value), m_arch));
  }

  /// A required integer that SGLang divides by or multiplies into a shape, so
  /// zero or negative would be nonsense.
  std::int64_t positive(std::string_view key) const
  {
    const json* value = find(key);
    if (value == nullptr || value->is_null()) {
      missing(key, "a positive integer");
    }
    return check_positive(key, *value);
  }

  /// Like positive(), but a missing or null key takes `fallback`.
  std::int64_t positive_or(std::string_view key, std::int64_t fallback) const
  {
    const json* value = find(key);
    if (value == nullptr || value->is_null()) {
      return fallback;
    }
    return check_positive(key, *value);
  }

  /// A layer count or head count that pdcheck keeps as `int`.
  int count(std::string_view key) const { return narrow(key, positive(key)); }

  int count_or(std::string_view key, int fallback) const { return narrow(key, positive_or(key, fallback)); }

  std::int64_t check_positive(std::string_view key, const json& value) const
  {
    if (!value.is_number_integer()) {
      wrong(key, "a positive integer", value);
    }
    // Unsigned values past int64 would wrap; they are not sizes anyone ships.
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
      wrong(key, "a positive integer that fits in 64 bits", value);
    }
    const auto number = value.get<std::int64_t>();
    if (number <= 0) {
      wrong(key, "a positive integer", value);
    }
    return number;
  }

  int narrow(std::string_view key, std::int64_t value) const
  {
    if (value > INT_MAX) {
      fail(fmt::format("key '{}' is {}, too large for a layer or head count, for {}", path(key), value, m_arch));
    }
    return static_cast<int>(value);
  }

  /// A required array of strings (layer_types and friends).
  std::vector<std::string> strings(std::string_view key) const
  {
    const json* value = find(key);
    if (value == nullptr || value->is_null()) {
      missing(key, "an array of strings");
    }
    if (!value->is_array()) {
      wrong(key, "an array of strings", *value);
    }
    std::vector<std::string> out;
    out.reserve(value->size());
    for (const json& item : *value) {
      if (!item.is_string()) {
        wrong(key, "an array of strings", *value);
      }
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  /// A required array of integers (Kimi's 1-based kda_layers).
  std::vector<std::int64_t> integers(std::string_view key) const
  {
    const json* value = find(key);
    if (value == nullptr || value->is_null()) {
      missing(key, "an array of integers");
    }
    if (!value->is_array()) {
      wrong(key, "an array of integers", *value);
    }
    std::vector<std::int64_t> out;
    out.reserve(value->size());
    for (const json& item : *value) {
      if (!item.is_number_integer()) {
        wrong(key, "an array of integers", *value);
      }
      out.push_back(item.get<std::int64_t>());
    }
    return out;
  }

  /// A required nested object (text_config, linear_attn_config).
  const json& object(std::string_view key) const
  {
    const json* value = find(key);
    if (value == nullptr || value->is_null()) {
      missing(key, "an object");
    }
    if (!value->is_object()) {
      wrong(key, "an object", *value);
    }
    return *value;
  }

  const std::string& origin() const { return m_origin; }
  const std::string& arch() const { return m_arch; }

private:
  /// Whether `key` is read from the outer object: inherited, absent here, present there.
  bool from_outer(std::string_view key) const
  {
    return m_outer != nullptr && !m_object.contains(std::string(key)) &&
           std::find(m_inherited.begin(), m_inherited.end(), key) != m_inherited.end() &&
           m_outer->contains(std::string(key));
  }

  const json& m_object;
  std::string m_prefix;
  const std::string& m_origin;
  const std::string& m_arch;
  const json* m_outer = nullptr;
  std::span<const std::string_view> m_inherited;
};

/// A config whose layer list names no layer with state gets no Mamba pool in
/// SGLang: there is nothing to transfer, so pdcheck refuses it plainly.
[[noreturn]] void not_hybrid(const KeyReader& r, std::string_view why);

/// `list_key`'s entry count must be num_hidden_layers.
void check_layer_count(const KeyReader& r, std::string_view list_key, std::size_t list_size, int num_layers);

/// The layer count of a config whose `list_key` names every layer: the list's
/// length, which `num_hidden_layers` must equal when the config has one.
int layer_count_of_list(const KeyReader& r, std::string_view list_key, std::size_t list_size);

/// Attention heads matter only for the layers that have attention; a config
/// without any may leave them out.
void read_attention_heads(const KeyReader& r, ModelSpec& spec);

/// SGLang's mamba2_state_dtype() takes `mamba_ssm_dtype` only when it is one of
/// its exact spellings and silently ignores anything else, so pdcheck does too.
std::optional<Dtype> config_ssm_dtype(const json& config, const json* text_config);

} // namespace pdcheck::model::config
