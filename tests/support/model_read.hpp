#pragma once

// Reading a config.json object in model tests: the spec, or the InputError
// that reading it throws, for exact checks of the message.

#include "model/model_spec.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace pdcheck::test {

inline const std::string k_model_origin = "test/config.json";

inline model::ModelSpec read_model(const nlohmann::json& config)
{
  return model::read_model_config(config, "test-model", k_model_origin);
}

inline InputError read_model_error(const nlohmann::json& config)
{
  try {
    read_model(config);
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  throw std::logic_error("unreachable");
}

} // namespace pdcheck::test
