#pragma once

// Every file pdcheck reads whole goes through read_input_file(): it must be a
// regular file (after symlinks; /dev/zero or a FIFO would never end) no larger
// than the limit of its kind, so a wrong path is a one-line input error, never
// an exhausted machine.

#include <cstdint>
#include <string>
#include <string_view>

namespace pdcheck::io {

inline constexpr std::uintmax_t k_mib = std::uintmax_t{1} << 20;

/// One kind of input file: its name in messages ("cannot read side file: ...")
/// and the largest size accepted.
struct InputKind
{
  std::string_view name;
  std::uintmax_t max_bytes;
};

// The limits are generous: each is many times the largest real file of its
// kind, and small enough that reading and parsing one stays far below a
// machine's memory.
/// A side file is a screenful of YAML.
inline constexpr InputKind k_side_file{"side file", 16 * k_mib};
/// The largest published config.json of a supported model is under 100 KiB.
inline constexpr InputKind k_model_config{"model config", 16 * k_mib};
/// A Hugging Face cache ref (refs/main) holds one commit id.
inline constexpr InputKind k_hub_ref{"Hugging Face cache ref", 64 * 1024};
/// An SGLang --config YAML is a list of launch arguments.
inline constexpr InputKind k_sglang_config{"SGLang config file", 16 * k_mib};
/// .pdcheck.yaml: a few lines of settings.
inline constexpr InputKind k_settings_file{"pdcheck settings file", 16 * k_mib};
/// A deployment manifest: `helm template` of a large chart is a few MiB.
inline constexpr InputKind k_manifest_file{"manifest", 64 * k_mib};
/// A baseline lists the causes of one pair or fleet: hundreds of lines.
inline constexpr InputKind k_baseline_file{"baseline file", 64 * k_mib};
/// A capture holds one message's frames in base64; a registration of a few
/// thousand buffers is a few MiB.
inline constexpr InputKind k_capture_file{"capture file", 256 * k_mib};

/// The whole content of `path`. Throws InputError naming `path` when it cannot
/// be opened ("cannot read side file: No such file or directory"), is a
/// directory ("cannot read side file: Is a directory"), is not a regular file
/// ("expected a side file, got a character device") or is larger than the
/// kind's limit; CannotRun when memory runs out while reading it.
std::string read_input_file(const std::string& path, const InputKind& kind);

/// Standard input, whole, within the kind's limit (a side file piped in as
/// `-`); errors name it "<stdin>".
std::string read_standard_input(const InputKind& kind);

/// What a stat mode is, for messages: "a directory", "a character device", ...
std::string_view file_type_name(unsigned mode);

/// "16 MiB", or the exact byte count when it is not a whole number of MiB.
std::string size_text(std::uintmax_t bytes);

} // namespace pdcheck::io
