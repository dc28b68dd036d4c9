#include "wire/registration_codec.hpp"

#include "core/sglang_messages.hpp"
#include "util/error.hpp"
#include "wire/int_lists.hpp"
#include "wire/msgpack.hpp"
#include "wire/registration_backends.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace pdcheck::wire {

namespace detail {

std::string_view registration_raise_consequence(TransferBackend backend)
{
  switch (backend) {
  case TransferBackend::mooncake:
    return "the prefill bootstrap thread has no try/except, so it dies and reads no further registration or request";
  case TransferBackend::mori:
    return "Mori catches it, logs 'Failed to register remote peer' and drops the peer: later requests fail with "
           "'Peer info missing for engine ...'";
  case TransferBackend::nixl:
    return "NIXL keeps the error for this agent and raises it again for the agent's next room";
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: throw_not_wire_speaking(backend);
  }
  return "";
}

} // namespace detail

namespace {

std::string frames_phrase(std::size_t n)
{
  return fmt::format("{} {}", n, n == 1 ? "frame" : "frames");
}

void evidence_for_state_lists(const Frames& frames, std::size_t wire_index, std::size_t width, std::string_view field,
                              std::vector<std::string>& evidence)
{
  if (wire_index >= frames.size()) {
    return;
  }
  const ByteView frame = frames[wire_index];
  if (frame.empty()) {
    evidence.push_back(fmt::format("frame {} ({}) is empty: no state components", wire_index, field));
    return;
  }
  if (is_sane_int_lists(frame, width)) {
    const Decoded<U64Lists> d = unpack_int_lists(frame, width == 8 ? IntFormat::u64 : IntFormat::u32);
    evidence.push_back(
      fmt::format("frame {} parses as pack_int_lists: {}", wire_index, describe_lists_shape(d.value)));
  } else if (frame.size() % width == 0) {
    evidence.push_back(fmt::format("frame {} is not a pack_int_lists encoding; as a flat native '{}' array it holds {} "
                                   "values",
                                   wire_index, width == 8 ? 'Q' : 'I', frame.size() / width));
  } else {
    evidence.push_back(fmt::format("frame {} is neither pack_int_lists nor a whole native array ({} bytes)",
                                   wire_index, frame.size()));
  }
}

GenerationDetection detect_mooncake(const Frames& frames)
{
  GenerationDetection d;
  const std::size_t n = frames.size();
  if (n >= 21) {
    d.generation = Generation::components_layouts;
  } else if (n >= 19) {
    d.generation = Generation::components;
  } else if (n >= 11) {
    d.generation = Generation::flat;
  } else {
    d.generation = Generation::pre_dims;
  }
  const std::size_t expected = registration_frame_count(TransferBackend::mooncake, d.generation);
  if (n == expected) {
    d.evidence.push_back(fmt::format("{}: mooncake {} sends frames 0-{}", frames_phrase(n),
                                     generation_name(d.generation), expected - 1));
  } else {
    d.evidence.push_back(fmt::format("{}: no mooncake generation sends exactly that; closest is {} ({} frames)",
                                     frames_phrase(n), generation_name(d.generation), expected));
  }
  const bool lists_expected = d.generation == Generation::components || d.generation == Generation::components_layouts;
  evidence_for_state_lists(frames, 6, 8, "dst_state_data_ptrs", d.evidence);
  if (n > 6 && !frames[6].empty()) {
    const bool sane = is_sane_int_lists(frames[6], 8);
    if (sane != lists_expected) {
      d.evidence.push_back(fmt::format("frame 6 does not match the frame count: {} expects {}",
                                       generation_name(d.generation),
                                       lists_expected ? "pack_int_lists" : "a flat native 'Q' array"));
    }
  }
  if (d.generation == Generation::flat && n > 12) {
    const std::string flag = to_string(frames[12]);
    if (flag == "0" || flag == "1") {
      d.evidence.push_back(fmt::format("frame 12 is b'{}' (enable_hisparse)", flag));
    }
  }
  return d;
}

GenerationDetection detect_mori(const Frames& frames)
{
  GenerationDetection d;
  d.generation = Generation::components;
  if (!frames.empty() && to_string(frames[0]) == "MoriMsgGuard") {
    d.evidence.push_back("frame 0 is the guard b'MoriMsgGuard'");
  }
  const std::size_t state = 7; // payload[6]
  if (frames.size() > state && !frames[state].empty()) {
    const Decoded<DescListShape> shape = decode_desc_list(frames[state]);
    if (shape.ok() && !(shape.value.counts == std::vector<std::size_t>{0})) {
      d.generation = shape.value.nested ? Generation::components : Generation::flat;
      d.evidence.push_back(fmt::format("frame 7 (state descriptors) is a msgpack list of {}",
                                       shape.value.nested
                                         ? fmt::format("{} per-component {}", shape.value.counts.size(),
                                                       shape.value.counts.size() == 1 ? "list" : "lists")
                                         : fmt::format("{} descriptors", shape.value.counts[0])));
      return d;
    }
  }
  for (std::size_t wire_index : {std::size_t{12}, std::size_t{13}}) {
    if (frames.size() > wire_index && !frames[wire_index].empty()) {
      const bool sane = is_sane_int_lists(frames[wire_index], 4);
      d.generation = sane ? Generation::components : Generation::flat;
      d.evidence.push_back(fmt::format("frame {} {}", wire_index,
                                       sane ? "parses as pack_int_lists" : "is a flat native 'I' array"));
      return d;
    }
  }
  d.evidence.push_back("no state frames: flat and components Mori read this registration the same way");
  return d;
}

GenerationDetection detect_nixl(const Frames& frames)
{
  GenerationDetection d;
  if (!frames.empty() && to_string(frames[0]) == "NixlMsgGuard") {
    d.evidence.push_back("frame 0 is the guard b'NixlMsgGuard'");
  }
  const std::size_t n = frames.size();
  if (n >= 20) {
    d.generation = Generation::components;
  } else if (n >= 14) {
    d.generation = Generation::flat;
  } else {
    d.generation = Generation::pre_dims;
  }
  const std::size_t expected = registration_frame_count(TransferBackend::nixl, d.generation);
  if (n == expected) {
    d.evidence.push_back(fmt::format("{}: nixl {} sends a guard and {} payload frames", frames_phrase(n),
                                     generation_name(d.generation), expected - 1));
  } else {
    d.evidence.push_back(fmt::format("{}: no nixl generation sends exactly that; closest is {} ({} frames)",
                                     frames_phrase(n), generation_name(d.generation), expected));
  }
  evidence_for_state_lists(frames, 8, 8, "dst_state_data_ptrs", d.evidence);
  return d;
}

} // namespace

GenerationDetection detect_registration_generation(TransferBackend backend, const Frames& frames)
{
  switch (backend) {
  case TransferBackend::mooncake: return detect_mooncake(frames);
  case TransferBackend::mori: return detect_mori(frames);
  case TransferBackend::nixl: return detect_nixl(frames);
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: throw_not_wire_speaking(backend);
  }
  return {};
}

RegistrationDecode decode_registration(TransferBackend backend, const Frames& frames,
                                       std::optional<Generation> generation, DecodeMode mode)
{
  RegistrationDecode out;
  Registration r;
  r.backend = backend;
  if (generation) {
    if (!generation_supported(backend, *generation)) {
      throw std::invalid_argument(fmt::format("{} has no {} registration generation", transfer_backend_name(backend),
                                              generation_name(*generation)));
    }
    r.generation = *generation;
    r.generation_forced = true;
    r.generation_evidence.push_back(
      fmt::format("given: parsed as {} {}", transfer_backend_name(backend), generation_name(*generation)));
  } else {
    GenerationDetection d = detect_registration_generation(backend, frames);
    r.generation = d.generation;
    r.generation_evidence = std::move(d.evidence);
  }

  const RegistrationTable& table = registration_table(backend, r.generation);
  const std::string kind =
    fmt::format("a {} {} registration", transfer_backend_name(backend), generation_name(r.generation));
  const std::size_t base = table.guard.empty() ? 0 : 1;
  detail::FrameReader reader(frames, base, mode, kind, table.wire_frames(),
                             detail::registration_raise_consequence(backend));

  bool guard_ok = true;
  if (base == 1) {
    const std::string guard(table.guard);
    if (frames.empty()) {
      reader.fail_wire(0, "guard", std::nullopt,
                       mode == DecodeMode::strict ? fmt::format("missing: expected the guard frame b'{}', got no frames",
                                                                guard)
                                                  : "an empty message",
                       mode == DecodeMode::strict ? "SGLang would drop the message" : "SGLang drops it");
      guard_ok = false;
    } else if (to_string(frames[0]) != guard) {
      const std::string got = python_bytes_repr(frames[0]);
      if (mode == DecodeMode::strict) {
        reader.fail_wire(0, "guard", 0, fmt::format("expected the guard b'{}', got {}", guard, got),
                         backend == TransferBackend::mori
                           ? "SGLang would drop the message with the warning 'Received malformed bootstrap message'"
                           : "SGLang would raise " + render_delivered(MessageId::nixl_guard, {{"guard", guard}}));
      } else {
        reader.fail_wire(0, "guard", std::nullopt,
                         backend == TransferBackend::mori
                           ? "the message is dropped with the warning 'Received malformed bootstrap message'"
                           : render_delivered(MessageId::nixl_guard, {{"guard", guard}}),
                         backend == TransferBackend::mori
                           ? "nothing is registered"
                           : "the NIXL listener logs it and stays up; nothing is registered");
      }
      guard_ok = false;
    }
  }
  if (guard_ok) {
    detail::decode_registration_frames(reader, table, r);
  }

  r.frames = reader.take_info();
  std::sort(r.frames.begin(), r.frames.end(), [](const FrameInfo& a, const FrameInfo& b) { return a.index < b.index; });
  r.frames.erase(std::unique(r.frames.begin(), r.frames.end(),
                             [](const FrameInfo& a, const FrameInfo& b) { return a.index == b.index; }),
                 r.frames.end());
  out.notes = reader.take_notes();
  const std::size_t read = table.wire_frames();
  if (frames.size() > read) {
    out.notes.push_back(fmt::format("frames {}-{} are not read by the {} {} parser (SGLang ignores them)", read,
                                    frames.size() - 1, transfer_backend_name(backend), generation_name(r.generation)));
  }
  if (reader.problem()) {
    out.problem = reader.problem();
  } else {
    r.notes = out.notes;
    out.registration = std::move(r);
  }
  return out;
}

Registration decode_registration_or_throw(TransferBackend backend, const Frames& frames,
                                          std::optional<Generation> generation, const std::string& origin)
{
  RegistrationDecode d = decode_registration(backend, frames, generation, DecodeMode::strict);
  if (d.problem) {
    throw InputError(d.problem->where(origin), d.problem->message());
  }
  return std::move(*d.registration);
}

EncodedRegistration encode_registration(const Registration& r, std::optional<Generation> generation)
{
  return detail::encode_registration_frames(r, registration_table(r.backend, generation.value_or(r.generation)));
}

} // namespace pdcheck::wire
