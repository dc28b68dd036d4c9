#include "io/capture_file.hpp"

#include "io/input_file.hpp"
#include "io/output_file.hpp"
#include "util/error.hpp"
#include "util/json_limits.hpp"
#include "util/spellcheck.hpp"
#include "wire/base64.hpp"
#include "wire/registration_codec.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <new>

namespace pdcheck::io {

namespace {

using json = nlohmann::json;

const std::vector<std::string> k_keys = {"backend", "kind", "frames_base64", "frames_hex", "generation",
                                         "host",    "time", "note",          "synthetic",  "flow"};

std::string type_name(const json& j)
{
  return std::string(j.type_name());
}


// "[json.exception.parse_error.101] parse error at line 1, column 5: syntax
// error while parsing value - ..." -> "syntax error while parsing value - ...".
std::string parse_error_detail(const std::string& what)
{
  const std::size_t column = what.find("column ");
  if (column != std::string::npos) {
    const std::size_t colon = what.find(": ", column);
    if (colon != std::string::npos) {
      return what.substr(colon + 2);
    }
  }
  const std::size_t bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

std::string string_field(const json& doc, const std::string& key, const std::string& origin)
{
  if (!doc.contains(key)) {
    return {};
  }
  const json& v = doc.at(key);
  if (!v.is_string()) {
    throw InputError(origin + ": " + key, fmt::format("expected a string, got {}", type_name(v)));
  }
  return v.get<std::string>();
}

std::string frames_key_hint(bool hex)
{
  return hex ? "hex" : "base64";
}

CaptureFlow flow_field(const nlohmann::json& v, const std::string& origin)
{
  const std::string where = origin + ": flow";
  if (!v.is_object()) {
    throw InputError(where, fmt::format("expected an object with src, dst, stream_offset and pcap, got {}", type_name(v)));
  }
  CaptureFlow f;
  for (const auto& item : v.items()) {
    const std::string& key = item.key();
    if (key == "stream_offset") {
      if (!item.value().is_number_unsigned()) {
        throw InputError(where + ".stream_offset", fmt::format("expected a byte offset, got {}", type_name(item.value())));
      }
      f.stream_offset = item.value().get<std::uint64_t>();
    } else if (key == "src" || key == "dst" || key == "pcap") {
      if (!item.value().is_string()) {
        throw InputError(where + "." + key, fmt::format("expected a string, got {}", type_name(item.value())));
      }
      (key == "src" ? f.src : key == "dst" ? f.dst : f.pcap) = item.value().get<std::string>();
    } else {
      throw InputError(where, fmt::format("unknown key \"{}\" (expected src, dst, stream_offset, pcap)", key));
    }
  }
  return f;
}

} // namespace

std::string_view capture_kind_name(CaptureKind k)
{
  return k == CaptureKind::registration ? "registration" : "transfer_info";
}

Capture parse_capture(std::string_view text, const std::string& origin)
{
  refuse_unmeasurable_json(text, origin, "capture file");
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    const auto [line, column] = json_line_column(text, e.byte);
    throw InputError(fmt::format("{}:{}:{}", origin, line, column), "invalid JSON: " + parse_error_detail(e.what()));
  } catch (const json::out_of_range& e) {
    // A number beyond 64 bits or a double (e.g. 1e999): not something a capture holds.
    throw InputError(origin, "invalid JSON: " + parse_error_detail(e.what()));
  } catch (const std::bad_alloc&) {
    throw CannotRun(fmt::format("{}: out of memory parsing the capture file ({} bytes)", origin, text.size()));
  }
  if (!doc.is_object()) {
    throw InputError(origin, fmt::format("expected a JSON object with \"backend\", \"kind\" and \"frames_base64\", got {}",
                                         type_name(doc)));
  }
  for (const auto& item : doc.items()) {
    if (std::find(k_keys.begin(), k_keys.end(), item.key()) == k_keys.end()) {
      std::string what = fmt::format("unknown key \"{}\"", item.key());
      if (auto hint = closest_match(item.key(), k_keys)) {
        what += fmt::format(" (did you mean \"{}\"?)", *hint);
      }
      throw InputError(origin, what);
    }
  }

  Capture c;
  c.origin = origin;
  if (!doc.contains("backend")) {
    throw InputError(origin, "missing \"backend\" (mooncake, mori or nixl)");
  }
  const std::string backend = string_field(doc, "backend", origin);
  const auto parsed_backend = wire::parse_wire_backend(backend);
  if (!parsed_backend) {
    throw InputError(origin + ": backend", fmt::format("expected mooncake, mori or nixl, got \"{}\"", backend));
  }
  c.backend = *parsed_backend;

  if (!doc.contains("kind")) {
    throw InputError(origin, "missing \"kind\" (registration or transfer_info)");
  }
  const std::string kind = string_field(doc, "kind", origin);
  if (kind == "registration") {
    c.kind = CaptureKind::registration;
  } else if (kind == "transfer_info") {
    c.kind = CaptureKind::transfer_info;
  } else {
    throw InputError(origin + ": kind", fmt::format("expected registration or transfer_info, got \"{}\"", kind));
  }

  const bool has_base64 = doc.contains("frames_base64");
  const bool has_hex = doc.contains("frames_hex");
  if (has_base64 && has_hex) {
    throw InputError(origin, "give \"frames_base64\" or \"frames_hex\", not both");
  }
  if (!has_base64 && !has_hex) {
    throw InputError(origin, "missing \"frames_base64\" (or \"frames_hex\"): the captured frames");
  }
  c.hex = has_hex;
  const std::string key = has_hex ? "frames_hex" : "frames_base64";
  const json& frames = doc.at(key);
  if (!frames.is_array()) {
    throw InputError(origin + ": " + key, fmt::format("expected an array of strings, got {}", type_name(frames)));
  }
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const json& f = frames[i];
    const std::string where = fmt::format("{}: frame {}", origin, i);
    if (!f.is_string()) {
      throw InputError(where, fmt::format("expected a {} string, got {}", frames_key_hint(c.hex), type_name(f)));
    }
    wire::WireIssue issue;
    const std::string& s = f.get_ref<const std::string&>();
    std::optional<wire::Bytes> bytes = c.hex ? wire::hex_decode(s, &issue) : wire::base64_decode(s, &issue);
    if (!bytes) {
      throw InputError(where, fmt::format("byte {} of the {} text: {}", issue.offset, frames_key_hint(c.hex), issue.what));
    }
    c.frames.push_back(std::move(*bytes));
  }

  if (doc.contains("generation")) {
    const std::string g = string_field(doc, "generation", origin);
    c.generation = wire::parse_generation(g);
    if (!c.generation) {
      std::string names;
      for (const std::string& n : wire::generation_names()) {
        names += (names.empty() ? "" : ", ") + n;
      }
      throw InputError(origin + ": generation", fmt::format("expected one of {}, got \"{}\"", names, g));
    }
    if (!wire::generation_supported(c.backend, *c.generation)) {
      throw InputError(origin + ": generation",
                       fmt::format("{} has no {} generation", backend, wire::generation_name(*c.generation)));
    }
  }
  c.host = string_field(doc, "host", origin);
  c.time = string_field(doc, "time", origin);
  c.note = string_field(doc, "note", origin);
  if (doc.contains("synthetic")) {
    if (!doc.at("synthetic").is_boolean()) {
      throw InputError(origin + ": synthetic", fmt::format("expected true or false, got {}", type_name(doc.at("synthetic"))));
    }
    c.synthetic = doc.at("synthetic").get<bool>();
  }
  if (doc.contains("flow")) {
    c.flow = flow_field(doc.at("flow"), origin);
  }
  return c;
}

Capture load_capture(const std::string& path)
{
  return parse_capture(read_input_file(path, k_capture_file), path);
}

std::string capture_to_json(const Capture& capture)
{
  // ordered_json keeps the keys in the order a reader expects them.
  nlohmann::ordered_json doc;
  doc["backend"] = std::string(transfer_backend_name(capture.backend));
  doc["kind"] = std::string(capture_kind_name(capture.kind));
  if (capture.generation) {
    doc["generation"] = std::string(wire::generation_name(*capture.generation));
  }
  if (!capture.host.empty()) {
    doc["host"] = capture.host;
  }
  if (!capture.time.empty()) {
    doc["time"] = capture.time;
  }
  if (!capture.note.empty()) {
    doc["note"] = capture.note;
  }
  if (capture.synthetic) {
    doc["synthetic"] = true;
  }
  if (capture.flow) {
    doc["flow"] = {{"src", capture.flow->src},
                   {"dst", capture.flow->dst},
                   {"stream_offset", capture.flow->stream_offset},
                   {"pcap", capture.flow->pcap}};
  }
  nlohmann::ordered_json frames = nlohmann::ordered_json::array();
  for (const wire::Bytes& f : capture.frames) {
    frames.push_back(capture.hex ? wire::hex_encode(f) : wire::base64_encode(f));
  }
  doc[capture.hex ? "frames_hex" : "frames_base64"] = std::move(frames);
  return doc.dump(2) + "\n";
}

void save_capture(const std::string& path, const Capture& capture)
{
  write_output_file(path, capture_to_json(capture), path);
}

wire::Registration registration_from_capture(const Capture& capture, std::optional<wire::Generation> generation)
{
  if (capture.kind != CaptureKind::registration) {
    throw InputError(capture.origin + ": kind", "expected a registration capture, got transfer_info");
  }
  const std::optional<wire::Generation> parser = generation ? generation : capture.generation;
  if (parser && !wire::generation_supported(capture.backend, *parser)) {
    throw InputError(capture.origin, fmt::format("{} has no {} generation", transfer_backend_name(capture.backend),
                                                 wire::generation_name(*parser)));
  }
  wire::Registration r = wire::decode_registration_or_throw(capture.backend, capture.frames, parser, capture.origin);
  if (!generation && capture.generation) {
    // The capturer's word decides the parser; the frames' own evidence still shows.
    const wire::GenerationDetection detected = wire::detect_registration_generation(capture.backend, capture.frames);
    r.generation_evidence = {fmt::format("the capture says \"generation\": \"{}\"",
                                         wire::generation_name(*capture.generation))};
    r.generation_evidence.insert(r.generation_evidence.end(), detected.evidence.begin(), detected.evidence.end());
    if (detected.generation != *capture.generation) {
      r.notes.push_back(fmt::format("the frames look like {} rather than the capture's \"generation\"",
                                    wire::generation_name(detected.generation)));
    }
  }
  bool any_pointer = false;
  bool all_synthetic = true;
  auto visit = [&](const std::vector<std::uint64_t>& ptrs) {
    for (std::uint64_t p : ptrs) {
      any_pointer = true;
      all_synthetic = all_synthetic && wire::is_synthetic_pointer(p);
    }
  };
  visit(r.dst_kv_ptrs);
  visit(r.dst_aux_ptrs);
  for (const auto& c : r.dst_state_data_ptrs) {
    visit(c);
  }
  r.synthetic_pointers = capture.synthetic || (any_pointer && all_synthetic);
  return r;
}

wire::TransferInfo transfer_info_from_capture(const Capture& capture, std::optional<wire::Generation> generation)
{
  if (capture.kind != CaptureKind::transfer_info) {
    throw InputError(capture.origin + ": kind", "expected a transfer_info capture, got registration");
  }
  const std::optional<wire::Generation> parser = generation ? generation : capture.generation;
  return wire::decode_transfer_info_or_throw(capture.backend, capture.frames, parser, capture.origin);
}

} // namespace pdcheck::io
