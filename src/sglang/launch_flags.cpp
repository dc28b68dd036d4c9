#include "sglang/launch_flags.hpp"

#include "core/sglang_messages.hpp"

#include <algorithm>
#include <unordered_map>

namespace pdcheck::sglang {

namespace data {
std::string_view launch_flags(); // generated from sglang/data/launch_flags.tsv
std::string_view sglang_env();   // generated from sglang/data/sglang_env.tsv
} // namespace data

namespace {

/// Rows of a TSV with '#' comment lines; each row split on tabs.
std::vector<std::vector<std::string>> tsv_rows(std::string_view text)
{
  std::vector<std::vector<std::string>> rows;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (line.empty() || line.front() == '#') {
      continue;
    }
    std::vector<std::string> cells;
    std::size_t pos = 0;
    while (true) {
      const std::size_t tab = line.find('\t', pos);
      cells.emplace_back(line.substr(pos, tab == std::string_view::npos ? std::string_view::npos : tab - pos));
      if (tab == std::string_view::npos) {
        break;
      }
      pos = tab + 1;
    }
    rows.push_back(std::move(cells));
  }
  return rows;
}

struct FlagTable
{
  std::vector<LaunchFlag> flags;
  std::unordered_map<std::string, std::size_t> by_option;
};

const FlagTable& table()
{
  static const FlagTable t = [] {
    FlagTable out;
    for (auto& row : tsv_rows(data::launch_flags())) {
      if (row.size() < 3) {
        continue; // the generator writes three cells; a short row is a data bug caught by the tests
      }
      out.by_option.emplace(row[0], out.flags.size());
      out.flags.push_back(LaunchFlag{row[0], row[1], row[2]});
    }
    return out;
  }();
  return t;
}

const std::vector<std::string>& env_names()
{
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (auto& row : tsv_rows(data::sglang_env())) {
      if (!row.empty()) {
        out.push_back(row[0]);
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }();
  return names;
}

} // namespace

const std::vector<LaunchFlag>& launch_flags()
{
  return table().flags;
}

std::string_view launch_flags_source()
{
  static const std::string source = [] {
    const std::string_view text = data::launch_flags();
    const std::string_view key = "server_args.py @ ";
    const std::size_t at = text.find(key);
    if (at == std::string_view::npos) {
      return std::string("unknown");
    }
    const std::string_view rest = text.substr(at + key.size());
    return std::string(rest.substr(0, rest.find_first_of(" ,;\n")));
  }();
  return source;
}

OptionMatch match_option(std::string_view word)
{
  const FlagTable& t = table();
  OptionMatch m;
  if (auto it = t.by_option.find(std::string(word)); it != t.by_option.end()) {
    m.kind = OptionMatch::Kind::exact;
    m.flag = &t.flags[it->second];
    return m;
  }
  // argparse abbreviates long options only: every option string that starts
  // with the word, in registration order.
  if (word.size() > 2 && word.substr(0, 2) == "--") {
    for (const LaunchFlag& f : t.flags) {
      if (f.option.size() > word.size() && std::string_view(f.option).substr(0, word.size()) == word) {
        m.matches.push_back(&f);
      }
    }
  }
  if (m.matches.size() == 1) {
    m.kind = OptionMatch::Kind::abbreviation;
    m.flag = m.matches.front();
  } else if (m.matches.size() > 1) {
    m.kind = OptionMatch::Kind::ambiguous;
  }
  return m;
}

std::string ambiguous_message(std::string_view word, const OptionMatch& m)
{
  std::string candidates;
  for (std::size_t i = 0; i < m.matches.size(); ++i) {
    candidates += (i == 0 ? "" : ", ") + m.matches[i]->option;
  }
  return render_message(MessageId::argparse_ambiguous, {{"option", word}, {"candidates", candidates}});
}

std::vector<std::string> option_names()
{
  std::vector<std::string> names;
  for (const LaunchFlag& f : launch_flags()) {
    names.push_back(f.option);
  }
  return names;
}

bool known_sglang_env(std::string_view name)
{
  std::string canonical(name);
  if (canonical.rfind("SGL_", 0) == 0) {
    canonical = "SGLANG_" + canonical.substr(4); // environ.py reads SGL_* as SGLANG_*
  }
  const auto& names = env_names();
  return std::binary_search(names.begin(), names.end(), canonical);
}

std::vector<std::string> sglang_env_names()
{
  return env_names();
}

} // namespace pdcheck::sglang
