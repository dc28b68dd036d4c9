#include "cli/command.hpp"
#include "cli/options.hpp"
#include "io/capture_file.hpp"
#include "report/capture_render.hpp"
#include "report/wire_render.hpp"
#include "util/error.hpp"
#include "wire/registration_codec.hpp"
#include "wire/transfer_info.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ostream>

namespace pdcheck::cli {

namespace {

struct DecodeOptions
{
  std::string capture;
  ReportOptions report;
  std::string generation;
  std::string mode = "strict";
};

std::optional<wire::Generation> generation_option(const std::string& text)
{
  if (text.empty()) {
    return std::nullopt;
  }
  if (auto g = wire::parse_generation(text)) {
    return g;
  }
  std::string names;
  for (const std::string& n : wire::generation_names()) {
    names += (names.empty() ? "" : ", ") + n;
  }
  throw InputError("--generation", fmt::format("expected one of {}, got \"{}\"", names, text));
}

report::CaptureFileInfo file_info(const io::Capture& c)
{
  return report::CaptureFileInfo{c.origin, c.frames.size(), c.synthetic, c.host, c.time, c.note};
}

// Sglang mode: what a prefill of the chosen generation makes of the frames.
// An exception there is the answer, not an input error: exit 1.
Verdict run_sglang_mode(const io::Capture& capture, std::optional<wire::Generation> generation, const DecodeOptions& o,
                    CommandContext& ctx)
{
  report::SglangDecode d;
  d.file = file_info(capture);
  d.kind = std::string(io::capture_kind_name(capture.kind));
  d.backend = std::string(transfer_backend_name(capture.backend));
  const std::optional<wire::Generation> parser = generation ? generation : capture.generation;
  if (parser && !wire::generation_supported(capture.backend, *parser)) {
    throw InputError("--generation", fmt::format("{} has no {} generation", transfer_backend_name(capture.backend),
                                                 wire::generation_name(*parser)));
  }
  if (capture.kind == io::CaptureKind::registration) {
    wire::RegistrationDecode r = wire::decode_registration(capture.backend, capture.frames, parser,
                                                           wire::DecodeMode::sglang);
    d.problem = r.problem;
    d.notes = r.notes;
    if (r.registration) {
      d.body = report::registration_to_json(*r.registration);
      d.body_text = report::registration_to_text(*r.registration);
    }
    if (d.problem) { // no decoded body: at least what it was parsed as
      d.generation = std::string(wire::generation_name(
        parser ? *parser : wire::detect_registration_generation(capture.backend, capture.frames).generation));
    }
  } else {
    wire::TransferInfoDecode t =
      wire::decode_transfer_info(capture.backend, capture.frames, parser, wire::DecodeMode::sglang);
    d.problem = t.problem;
    d.notes = t.notes;
    if (t.transfer_info) {
      d.body = report::transfer_info_to_json(*t.transfer_info);
      d.body_text = report::transfer_info_to_text(*t.transfer_info);
    }
    if (d.problem) {
      d.generation = std::string(wire::generation_name(
        parser ? *parser : wire::detect_transfer_info_generation(capture.backend, capture.frames).first));
    }
  }
  *ctx.out << (o.report.format == "json" ? report::sglang_decode_to_json(d).dump(2) + "\n"
                                         : report::sglang_decode_to_text(d));
  return d.problem ? Verdict::findings : Verdict::ok;
}

Verdict run_decode(const DecodeOptions& o, CommandContext& ctx)
{
  const std::optional<wire::Generation> generation = generation_option(o.generation);
  const io::Capture capture = io::load_capture(o.capture);
  if (generation && !wire::generation_supported(capture.backend, *generation)) {
    throw InputError("--generation", fmt::format("{} has no {} generation", transfer_backend_name(capture.backend),
                                                 wire::generation_name(*generation)));
  }
  if (o.mode == "sglang") {
    return run_sglang_mode(capture, generation, o, ctx);
  }
  if (capture.kind == io::CaptureKind::registration) {
    const wire::Registration r = io::registration_from_capture(capture, generation);
    if (o.report.format == "json") {
      nlohmann::json j = report::registration_to_json(r);
      j["capture"] = report::capture_file_to_json(file_info(capture));
      *ctx.out << j.dump(2) << "\n";
    } else {
      *ctx.out << report::capture_file_to_text(file_info(capture)) << report::registration_to_text(r);
    }
  } else {
    const wire::TransferInfo t = io::transfer_info_from_capture(capture, generation);
    if (o.report.format == "json") {
      nlohmann::json j = report::transfer_info_to_json(t);
      j["capture"] = report::capture_file_to_json(file_info(capture));
      *ctx.out << j.dump(2) << "\n";
    } else {
      *ctx.out << report::capture_file_to_text(file_info(capture)) << report::transfer_info_to_text(t);
    }
  }
  return Verdict::ok;
}

} // namespace

void install_decode(CLI::App& app, CommandContext& ctx)
{
  auto opts = std::make_shared<DecodeOptions>();
  CLI::App* cmd =
    app.add_subcommand("decode", "Decode a captured registration or TransferInfo message under SGLang's field names");
  cmd->add_option("capture", opts->capture, "Capture file (JSON, see schemas/capture.schema.json)")->required();
  add_report_options(cmd, opts->report);
  cmd->add_option("--generation", opts->generation,
                  "Parse as this wire generation instead of detecting it: pre-dims, flat, components, "
                  "components-layouts (or gen-0..gen-3)");
  cmd->add_option("--mode", opts->mode,
                  "strict: reject anything SGLang's encoder would not write (default); sglang: read the frames "
                  "exactly as SGLang's parser of that generation does, garbage included (exit 1 when it raises)")
    ->check(CLI::IsMember({"strict", "sglang"}));
  cmd->callback([opts, &ctx] { ctx.verdict = run_decode(*opts, ctx); });
}

} // namespace pdcheck::cli
