#include "deploy/shell_script.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <cctype>

namespace pdcheck::deploy {

namespace {

bool name_start(char c)
{
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool name_char(char c)
{
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

/// Reads one script left to right into commands of words.
class Lexer
{
public:
  Lexer(std::string_view s, const VariableLookup& lookup, const std::string& origin)
    : m_s(s), m_lookup(lookup), m_origin(origin)
  {
  }

  ShellScript run()
  {
    while (m_i < m_s.size()) {
      const char c = m_s[m_i];
      if (c == ' ' || c == '\t' || c == '\r') {
        end_word();
        ++m_i;
      } else if (c == '\n') {
        end_command();
        ++m_i;
      } else if (c == '#' && !m_in_word) {
        while (m_i < m_s.size() && m_s[m_i] != '\n') {
          ++m_i;
        }
      } else if (c == ';') {
        end_command();
        ++m_i;
      } else if (c == '|' || (c == '&' && (m_i + 1 >= m_s.size() || m_s[m_i + 1] != '>'))) {
        end_command();
        m_i += (m_i + 1 < m_s.size() && m_s[m_i + 1] == c) ? 2 : 1;
      } else if (c == '<' || c == '>' || c == '&') {
        redirection();
      } else if (c == '\\' && m_i + 1 < m_s.size() && m_s[m_i + 1] == '\n') {
        m_i += 2; // a line continuation joins lines without starting a word
      } else if (c == '\\') {
        start_word();
        m_only_expansions = false;
        if (m_i + 1 < m_s.size()) {
          m_word += m_s[m_i + 1];
          m_i += 2;
        } else {
          m_word += c;
          ++m_i;
        }
      } else if (c == '\'') {
        start_word();
        const std::size_t close = m_s.find('\'', m_i + 1);
        if (close == std::string_view::npos) {
          throw InputError(m_origin, "unterminated ' quote in the shell script");
        }
        m_word.append(m_s.substr(m_i + 1, close - m_i - 1));
        m_only_expansions = false;
        m_i = close + 1;
      } else if (c == '"') {
        start_word();
        double_quoted();
      } else if (c == '$') {
        start_word();
        expansion(false);
      } else {
        start_word();
        m_word += c;
        m_only_expansions = false;
        ++m_i;
      }
    }
    end_command();
    return std::move(m_out);
  }

private:
  void start_word()
  {
    if (!m_in_word) {
      m_in_word = true;
      m_start = m_i;
    }
  }

  void end_word()
  {
    if (!m_in_word) {
      return;
    }
    const std::string raw(m_s.substr(m_start, m_i - m_start));
    for (std::string& piece : m_split_before) {
      m_command.words.push_back(ShellWord{std::move(piece), raw, m_start});
    }
    m_split_before.clear();
    if (!m_word.empty() || !m_only_expansions) {
      m_command.words.push_back(ShellWord{std::move(m_word), raw, m_start});
    }
    m_word.clear();
    m_in_word = false;
    m_only_expansions = true;
  }

  void end_command()
  {
    end_word();
    if (!m_command.words.empty()) {
      m_out.commands.push_back(std::move(m_command));
    }
    m_command = {};
  }

  /// `2>&1`, `> log`, `&> log`, `< in`: dropped with their target, as they
  /// are not arguments of the command.
  void redirection()
  {
    if (m_in_word && std::all_of(m_word.begin(), m_word.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
      m_word.clear(); // the file descriptor number before the operator
      m_in_word = false;
      m_only_expansions = true;
    } else {
      end_word();
    }
    while (m_i < m_s.size() && (m_s[m_i] == '<' || m_s[m_i] == '>' || m_s[m_i] == '&' || m_s[m_i] == '|')) {
      ++m_i;
    }
    if (m_i < m_s.size() && (std::isdigit(static_cast<unsigned char>(m_s[m_i])) != 0 || m_s[m_i] == '-') &&
        m_i > 0 && m_s[m_i - 1] == '&') {
      while (m_i < m_s.size() && (std::isdigit(static_cast<unsigned char>(m_s[m_i])) != 0 || m_s[m_i] == '-')) {
        ++m_i;
      }
      return;
    }
    while (m_i < m_s.size() && (m_s[m_i] == ' ' || m_s[m_i] == '\t')) {
      ++m_i;
    }
    // The target word, quotes included.
    char quote = 0;
    while (m_i < m_s.size()) {
      const char c = m_s[m_i];
      if (quote != 0) {
        quote = c == quote ? 0 : quote;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&') {
        break;
      }
      ++m_i;
    }
  }

  void double_quoted()
  {
    ++m_i;
    while (m_i < m_s.size()) {
      const char c = m_s[m_i];
      if (c == '"') {
        ++m_i;
        m_only_expansions = false;
        return;
      }
      if (c == '\\' && m_i + 1 < m_s.size()) {
        const char n = m_s[m_i + 1];
        if (n == '\n') {
          m_i += 2;
          continue;
        }
        if (n == '$' || n == '`' || n == '"' || n == '\\') {
          m_word += n;
          m_i += 2;
          continue;
        }
      }
      if (c == '$') {
        expansion(true);
        continue;
      }
      m_word += c;
      ++m_i;
    }
    throw InputError(m_origin, "unterminated \" quote in the shell script");
  }

  /// At a `$`: appends the value (split into words when unquoted), or the
  /// reference as written when the value is unknown.
  void expansion(bool quoted)
  {
    const std::size_t at = m_i;
    std::string name;
    std::optional<std::string> fallback;
    std::size_t end = at + 1;
    if (at + 1 < m_s.size() && m_s[at + 1] == '{') {
      const std::size_t close = m_s.find('}', at + 2);
      if (close == std::string_view::npos) {
        throw InputError(m_origin, "unterminated ${ in the shell script");
      }
      const std::string_view inner = m_s.substr(at + 2, close - at - 2);
      std::size_t n = 0;
      while (n < inner.size() && name_char(inner[n])) {
        ++n;
      }
      name = std::string(inner.substr(0, n));
      const std::string_view rest = inner.substr(n);
      if (rest.rfind(":-", 0) == 0) {
        fallback = std::string(rest.substr(2));
      } else if (rest.rfind("-", 0) == 0) {
        fallback = std::string(rest.substr(1));
      }
      end = close + 1;
      if (name.empty() || (!rest.empty() && !fallback)) {
        keep_as_written(at, end, std::string(inner));
        return;
      }
    } else if (at + 1 < m_s.size() && m_s[at + 1] == '(') {
      // Command substitution: what it prints is unknown here.
      int depth = 0;
      std::size_t k = at + 1;
      for (; k < m_s.size(); ++k) {
        depth += m_s[k] == '(' ? 1 : m_s[k] == ')' ? -1 : 0;
        if (depth == 0) {
          break;
        }
      }
      end = std::min(k + 1, m_s.size());
      keep_as_written(at, end, std::string(m_s.substr(at + 2, end - at - 3)));
      return;
    } else if (at + 1 < m_s.size() && name_start(m_s[at + 1])) {
      while (end < m_s.size() && name_char(m_s[end])) {
        ++end;
      }
      name = std::string(m_s.substr(at + 1, end - at - 1));
    } else {
      m_word += '$'; // a lone $, or $1/$@: not expanded here
      m_only_expansions = false;
      ++m_i;
      return;
    }
    std::optional<std::string> value = m_lookup ? m_lookup(name) : std::nullopt;
    const bool empty_counts_as_unset = m_s.substr(at, end - at).find(":-") != std::string_view::npos;
    if (!value || (value->empty() && empty_counts_as_unset)) {
      value = fallback;
    }
    if (!value) {
      keep_as_written(at, end, name);
      return;
    }
    m_i = end;
    if (quoted) {
      m_word += *value;
      return;
    }
    // Unquoted: the value is split into words at blanks, and blanks at its
    // ends separate it from the text around it.
    const std::string blanks = " \t\n";
    std::size_t k = 0;
    bool first = true;
    while (k < value->size()) {
      const std::size_t start = value->find_first_not_of(blanks, k);
      if (start != k || !first) {
        flush_piece();
      }
      if (start == std::string::npos) {
        break;
      }
      const std::size_t blank = value->find_first_of(blanks, start);
      m_word += value->substr(start, blank == std::string::npos ? std::string::npos : blank - start);
      first = false;
      k = blank == std::string::npos ? value->size() : blank;
      if (blank != std::string::npos && value->find_first_not_of(blanks, blank) == std::string::npos) {
        flush_piece(); // trailing blanks: what follows starts a new word
        break;
      }
    }
  }

  /// Ends the word a split expansion completed (when it has text).
  void flush_piece()
  {
    if (!m_word.empty() || !m_only_expansions) {
      m_split_before.push_back(std::move(m_word));
    }
    m_word.clear();
    m_only_expansions = true;
  }

  void keep_as_written(std::size_t at, std::size_t end, std::string name)
  {
    const std::string reference(m_s.substr(at, end - at));
    m_out.unresolved.push_back(UnresolvedReference{std::move(name), reference});
    m_word += reference;
    m_only_expansions = false;
    m_i = end;
  }

  std::string_view m_s;
  const VariableLookup& m_lookup;
  const std::string& m_origin;
  std::size_t m_i = 0;
  std::size_t m_start = 0;
  bool m_in_word = false;
  /// An unquoted word made only of expansions that came out empty is no word.
  bool m_only_expansions = true;
  std::string m_word;
  std::vector<std::string> m_split_before; ///< words a split expansion completed
  ShellCommand m_command;
  ShellScript m_out;
};

std::string base_name(const std::string& w)
{
  const std::size_t slash = w.rfind('/');
  return slash == std::string::npos ? w : w.substr(slash + 1);
}

} // namespace

ShellScript parse_shell_script(std::string_view script, const VariableLookup& lookup, const std::string& origin)
{
  return Lexer(script, lookup, origin).run();
}

std::string expand_kubernetes_references(std::string_view text, const VariableLookup& lookup,
                                         std::vector<UnresolvedReference>& unresolved)
{
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      out += '$';
      i += 2;
      continue;
    }
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '(') {
      const std::size_t close = text.find(')', i + 2);
      if (close != std::string_view::npos) {
        const std::string name(text.substr(i + 2, close - i - 2));
        const bool is_name = !name.empty() && name_start(name[0]) && std::all_of(name.begin(), name.end(), name_char);
        if (is_name) {
          if (auto value = lookup ? lookup(name) : std::nullopt) {
            out += *value;
          } else {
            out.append(text.substr(i, close + 1 - i));
            unresolved.push_back(UnresolvedReference{name, std::string(text.substr(i, close + 1 - i))});
          }
          i = close + 1;
          continue;
        }
      }
    }
    out += text[i];
    ++i;
  }
  return out;
}

bool launches_sglang(const std::vector<std::string>& words)
{
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "sglang.launch_server" || w == "dynamo.sglang" || base_name(w) == "launch_server.py") {
      return true;
    }
    if (base_name(w) == "sglang" && i + 1 < words.size() && words[i + 1] == "serve") {
      return true;
    }
  }
  return false;
}

std::optional<std::size_t> sglang_command_index(const std::vector<ShellCommand>& commands)
{
  for (std::size_t c = 0; c < commands.size(); ++c) {
    std::vector<std::string> words;
    for (const ShellWord& w : commands[c].words) {
      words.push_back(w.text);
    }
    if (launches_sglang(words)) {
      return c;
    }
  }
  return std::nullopt;
}

} // namespace pdcheck::deploy
