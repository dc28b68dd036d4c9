#pragma once

// `pdcheck matrix`, the pure half: one model launched at every value of an
// axis (SGLang releases, or attention TP sizes) on each side, every prefill ×
// decode cell checked as `pdcheck check` would, each reduced to its outcome.

#include "check/rollout.hpp"

#include <string>
#include <vector>

namespace pdcheck::check {

/// A side launched from nothing but a model, a release and launch words, as
/// `--prefill-args` would launch it.
sglang::Side launched_side(sglang::Role role, const model::ModelSpec& model, const Profile& profile,
                           const std::vector<std::string>& words);

enum class MatrixAxis { release, tp };
std::string_view axis_name(MatrixAxis a); ///< "SGLang release", "TP size"

struct MatrixRequest
{
  model::ModelSpec model;
  MatrixAxis axis = MatrixAxis::release;
  std::vector<const Profile*> releases;  ///< the axis (release), or one release (tp)
  std::vector<int> tp_sizes;             ///< the axis (tp), or one size (release)
  std::vector<std::string> extra_words;  ///< launch words of both sides (--disaggregation-transfer-backend nixl)
  Severity fail_on = Severity::error;
};

struct MatrixCell
{
  PairOutcome outcome;
};

struct Matrix
{
  MatrixAxis axis = MatrixAxis::release;
  std::vector<std::string> labels;  ///< the axis values, rows (prefill) and columns (decode) alike
  std::vector<MatrixCell> cells;    ///< row-major: cells[prefill * labels.size() + decode]
  std::string fixed;                ///< the value both sides share: "tp 4", "SGLang 0.5.21"
  std::string model;
  std::string launch;               ///< the extra launch words, as one line

  const MatrixCell& at(std::size_t prefill, std::size_t decode) const { return cells[prefill * labels.size() + decode]; }
};

/// Checks every cell. Each side is parsed once per axis value; every cell runs
/// the whole check (validations and the byte simulation).
Matrix build_matrix(const MatrixRequest& request);

} // namespace pdcheck::check
