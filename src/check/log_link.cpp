// link_rooms(): a decode-side symptom and the prefill-side failure of the same
// request, found through the bootstrap room both servers print for it
// ("KVTransferError(bootstrap_room=N): ...", "...req.bootstrap_room=N ...").

#include "check/log_explain.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace pdcheck::check {

namespace {

/// One entry of either list, with what a link to it shows.
struct Entry
{
  const std::vector<std::int64_t>* rooms;
  std::vector<LogLink>* links;
  std::string file;
  std::int64_t line;
  std::string rule;
  std::string text;
};

} // namespace

void link_rooms(LogExplanation& e)
{
  std::map<std::string, std::string> role_of;
  for (const LogFile& f : e.logs) {
    role_of[f.file] = f.role;
  }
  std::vector<Entry> prefill;
  std::vector<Entry> decode;
  const auto add = [&](const std::string& file, Entry entry) {
    const auto it = role_of.find(file);
    if (it != role_of.end() && it->second == "prefill") {
      prefill.push_back(std::move(entry));
    } else if (it != role_of.end() && it->second == "decode") {
      decode.push_back(std::move(entry));
    }
  };
  for (LogMatch& m : e.matches) {
    add(m.file, Entry{&m.rooms, &m.links, m.file, m.line, m.rule, m.runtime_error});
  }
  for (LogUnrecognised& u : e.unrecognised) {
    add(u.file, Entry{&u.rooms, &u.links, u.file, u.line, "", u.text});
  }
  for (Entry& d : decode) {
    for (Entry& p : prefill) {
      // The first room of the decode entry that the prefill entry names too.
      for (std::int64_t room : *d.rooms) {
        if (std::find(p.rooms->begin(), p.rooms->end(), room) == p.rooms->end()) {
          continue;
        }
        d.links->push_back(LogLink{room, "prefill", p.file, p.line, p.rule, p.text});
        p.links->push_back(LogLink{room, "decode", d.file, d.line, d.rule, d.text});
        break;
      }
    }
  }
}

} // namespace pdcheck::check
