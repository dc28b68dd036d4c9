#include "cli/command.hpp"
#include "io/capture_file.hpp"
#include "io/side_file.hpp"
#include "model/layout.hpp"
#include "sglang/side_layout.hpp"
#include "plan/fleet_pairs.hpp"
#include "util/error.hpp"
#include "wire/registration.hpp"
#include "wire/registration_codec.hpp"

#include <fmt/format.h>

#include <ostream>
#include <stdexcept>

namespace pdcheck::cli {

namespace {

struct EncodeOptions
{
  std::string side_file;
  int rank = 0;
  int pp_rank = 0;
  std::string backend;
  std::string generation;
  std::string out;
  bool hex = false;
};

TransferBackend backend_for(const EncodeOptions& o, const sglang::Side& side)
{
  if (!o.backend.empty()) {
    if (auto b = wire::parse_wire_backend(o.backend)) {
      return *b;
    }
    throw InputError("--backend", fmt::format("expected mooncake, mori or nixl, got \"{}\"", o.backend));
  }
  if (wire::wire_speaking(side.args.transfer_backend)) {
    return side.args.transfer_backend;
  }
  throw InputError(side.origin, fmt::format("the side uses --disaggregation-transfer-backend {}, whose frames pdcheck "
                                            "does not model; give --backend mooncake, mori or nixl",
                                            transfer_backend_name(side.args.transfer_backend)));
}

wire::Generation generation_for(const EncodeOptions& o, TransferBackend backend, const sglang::Side& side)
{
  if (o.generation.empty()) {
    return wire::generation_for_profile(backend, side.profile);
  }
  const auto g = wire::parse_generation(o.generation);
  if (!g) {
    std::string names;
    for (const std::string& n : wire::generation_names()) {
      names += (names.empty() ? "" : ", ") + n;
    }
    throw InputError("--generation", fmt::format("expected one of {}, got \"{}\"", names, o.generation));
  }
  if (!wire::generation_supported(backend, *g)) {
    throw InputError("--generation",
                     fmt::format("{} has no {} generation", transfer_backend_name(backend), wire::generation_name(*g)));
  }
  return *g;
}

Verdict run_encode(const EncodeOptions& o, CommandContext& ctx)
{
  const sglang::Side side = io::load_side_file(o.side_file);
  const TransferBackend backend = backend_for(o, side);
  const wire::Generation generation = generation_for(o, backend, side);
  const model::Layout layout = model::compute_layout(sglang::layout_input(side));
  if (!layout.servable() || layout.ranks.empty()) {
    std::string why = "no rank layout";
    for (const Finding& f : layout.findings) {
      if (f.severity == Severity::error) {
        why = f.message;
        break;
      }
    }
    throw InputError(side.origin, "this side cannot be served, so it registers nothing: " + why);
  }
  const int tp_size = layout.tp_size;
  if (o.rank < 0 || o.rank >= tp_size) {
    throw InputError("--rank", fmt::format("expected a TP rank from 0 to {} (tp size {}), got {}", tp_size - 1,
                                           tp_size, o.rank));
  }
  if (o.pp_rank < 0 || o.pp_rank >= layout.pp_size) {
    throw InputError("--pp-rank", fmt::format("expected a PP rank from 0 to {} (pp size {}), got {}",
                                              layout.pp_size - 1, layout.pp_size, o.pp_rank));
  }
  const int attn_tp_rank = o.rank % layout.attn_tp_size;
  const model::RankLayout* rank_layout = nullptr;
  for (const model::RankLayout& rl : layout.ranks) {
    if (rl.attn_tp_rank == attn_tp_rank && rl.pp_rank == o.pp_rank) {
      rank_layout = &rl;
    }
  }
  if (rank_layout == nullptr) {
    throw InputError(side.origin, fmt::format("no layout for attention-TP rank {} of PP rank {}", attn_tp_rank,
                                              o.pp_rank));
  }

  wire::RegistrationParams params;
  params.backend = backend;
  params.generation = generation;
  params.dst_tp_rank = o.rank;
  params.dst_attn_tp_size = layout.attn_tp_size;
  params.dcp_size = side.args.dcp_size;
  params.dcp_rank = plan::sglang_dcp_rank(o.rank, side.args.dcp_size);
  params.gpu_id = o.rank;
  const wire::Registration r = wire::registration_from_layout(*rank_layout, params);
  wire::EncodedRegistration encoded;
  try {
    encoded = wire::encode_registration(r, generation);
  } catch (const std::out_of_range& e) {
    throw InputError(side.origin, e.what());
  }
  for (const std::string& d : encoded.dropped) {
    *ctx.err << fmt::format("pdcheck: note: {} {} does not carry {}; left out\n", transfer_backend_name(backend),
                            wire::generation_name(generation), d);
  }

  io::Capture capture;
  capture.backend = backend;
  capture.kind = io::CaptureKind::registration;
  capture.frames = std::move(encoded.frames);
  capture.generation = generation;
  capture.synthetic = true;
  capture.hex = o.hex;
  capture.note = fmt::format("pdcheck encode: the registration decode TP rank {} (attention-TP rank {}, PP rank {}) of "
                             "{} would send; synthetic pointers, KV and aux entries not modelled",
                             o.rank, attn_tp_rank, o.pp_rank, side.origin);
  if (o.out.empty()) {
    *ctx.out << io::capture_to_json(capture);
  } else {
    io::save_capture(o.out, capture);
    *ctx.out << fmt::format("wrote {}: {} {} registration of decode rank {} ({} frames, {} state entries)\n", o.out,
                            transfer_backend_name(backend), wire::generation_name(generation), o.rank,
                            capture.frames.size(), rank_layout->entries.size());
  }
  return Verdict::ok;
}

} // namespace

void install_encode(CLI::App& app, CommandContext& ctx)
{
  auto opts = std::make_shared<EncodeOptions>();
  CLI::App* cmd = app.add_subcommand("encode", "Write the registration capture a decode rank would send");
  cmd->add_option("side", opts->side_file, "Decode side file (YAML or JSON)")->required();
  cmd->add_option("--rank", opts->rank, "Decode TP rank (engine_rank)")->required();
  cmd->add_option("--pp-rank", opts->pp_rank, "Decode PP rank (default 0)");
  cmd->add_option("--backend", opts->backend, "mooncake, mori or nixl (default: the side's transfer backend)");
  cmd->add_option("--generation", opts->generation,
                  "Wire generation (default: the one the side's SGLang profile sends)");
  cmd->add_option("--out", opts->out, "Write the capture here instead of stdout");
  cmd->add_flag("--hex", opts->hex, "Write frames_hex instead of frames_base64");
  cmd->callback([opts, &ctx] { ctx.verdict = run_encode(*opts, ctx); });
}

} // namespace pdcheck::cli
