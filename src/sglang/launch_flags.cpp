#include "sglang/launch_flags.hpp"

#include "core/sglang_messages.hpp"
#include "core/version.hpp"

#include <algorithm>
#include <unordered_map>

namespace pdcheck::sglang {

namespace data {
struct EmbeddedFile
{
  std::string_view name; ///< the file name without its .tsv
  std::string_view text;
};
std::vector<EmbeddedFile> launch_flags(); // generated from sglang/data/launch_flags/*.tsv
std::string_view sglang_env();            // generated from sglang/data/sglang_env.tsv
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

/// The text after `# key: ` in the header, up to the line's end ("" when absent).
std::string header_value(std::string_view text, std::string_view key)
{
  const std::string marker = "# " + std::string(key) + ": ";
  std::size_t at = 0;
  while (at < text.size() && text[at] == '#') {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    if (line.substr(0, marker.size()) == marker) {
      std::string_view value = line.substr(marker.size());
      if (!value.empty() && value.back() == '\r') {
        value.remove_suffix(1);
      }
      return std::string(value);
    }
    at = end + 1;
  }
  return {};
}

/// Releases in version order; "main" (no version) after every release.
bool table_before(const FlagTable& a, const FlagTable& b)
{
  const auto va = parse_version(a.name());
  const auto vb = parse_version(b.name());
  if (va && vb) {
    return release_before(*va, *vb);
  }
  return va.has_value() && !vb.has_value();
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

FlagTable::FlagTable(std::string name, std::string_view text) : m_name(std::move(name))
{
  m_source = header_value(text, "source");
  const std::string_view key = "server_args.py @ ";
  if (const std::size_t at = m_source.find(key); at != std::string::npos) {
    const std::string rest = m_source.substr(at + key.size());
    m_commit = rest.substr(0, rest.find_first_of(" ,;)"));
  }
  const std::string confidence = header_value(text, "confidence");
  if (!confidence.empty()) {
    m_confidence = confidence.substr(0, confidence.find(' '));
  }
  for (auto& row : tsv_rows(text)) {
    if (row.size() < 3) {
      continue; // the generator writes three cells; a short row is a data bug caught by the tests
    }
    m_by_option.emplace(row[0], m_flags.size());
    m_flags.push_back(LaunchFlag{row[0], row[1], row[2]});
  }
}

OptionMatch FlagTable::match(std::string_view word) const
{
  OptionMatch m;
  if (auto it = m_by_option.find(std::string(word)); it != m_by_option.end()) {
    m.kind = OptionMatch::Kind::exact;
    m.flag = &m_flags[it->second];
    return m;
  }
  // argparse abbreviates long options only: every option string that starts
  // with the word, in registration order.
  if (word.size() > 2 && word.substr(0, 2) == "--") {
    for (const LaunchFlag& f : m_flags) {
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

std::string FlagTable::argparse_name(const LaunchFlag& flag) const
{
  // One add_argument call registers its option strings one after another; a
  // deprecated alias of the same dest is a call of its own, further down.
  const auto same_action = [&](std::size_t i) { return m_flags[i].dest == flag.dest && m_flags[i].nargs == flag.nargs; };
  const auto it = m_by_option.find(flag.option);
  if (it == m_by_option.end()) {
    return flag.option;
  }
  std::size_t first = it->second;
  while (first > 0 && same_action(first - 1)) {
    --first;
  }
  std::string out;
  for (std::size_t i = first; i < m_flags.size() && same_action(i); ++i) {
    out += (out.empty() ? "" : "/") + m_flags[i].option;
  }
  return out;
}

std::vector<std::string> FlagTable::option_names() const
{
  std::vector<std::string> names;
  for (const LaunchFlag& f : m_flags) {
    names.push_back(f.option);
  }
  return names;
}

const std::vector<FlagTable>& flag_tables()
{
  static const std::vector<FlagTable> tables = [] {
    std::vector<FlagTable> out;
    for (const data::EmbeddedFile& file : data::launch_flags()) {
      out.emplace_back(std::string(file.name), file.text);
    }
    std::sort(out.begin(), out.end(), table_before);
    return out;
  }();
  return tables;
}

const FlagTable& newest_flag_table()
{
  return flag_tables().back();
}

FlagTableChoice flag_tables_for(std::string_view release)
{
  FlagTableChoice choice;
  const auto wanted = parse_version(normalise_version(release));
  if (!wanted) {
    // A generation name (pre-dims, flat, components): no one release to pick.
    choice.table = &newest_flag_table();
    return choice;
  }
  for (const FlagTable& t : flag_tables()) {
    const auto v = parse_version(t.name());
    if (v && same_release(*v, *wanted)) {
      choice.table = &t;
      choice.exact = true;
      choice.before = nullptr;
      return choice;
    }
    if (v && release_before(*v, *wanted)) {
      choice.before = &t;
    } else if (choice.table == nullptr) {
      choice.table = &t; // the first table after the release (or main)
    }
  }
  if (choice.table == nullptr) {
    choice.table = &newest_flag_table();
  }
  return choice;
}

std::string ambiguous_message(std::string_view word, const OptionMatch& m)
{
  std::string candidates;
  for (std::size_t i = 0; i < m.matches.size(); ++i) {
    candidates += (i == 0 ? "" : ", ") + m.matches[i]->option;
  }
  return render_message(MessageId::argparse_ambiguous, {{"option", word}, {"candidates", candidates}});
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
