#include "sglang/argparse.hpp"

#include <algorithm>
#include <charconv>

namespace pdcheck::sglang {

bool looks_like_flag(const std::string& word)
{
  if (word.size() < 2 || word[0] != '-') {
    return false;
  }
  std::size_t digits = 0;
  std::size_t dots = 0;
  for (std::size_t i = 1; i < word.size(); ++i) {
    if (word[i] >= '0' && word[i] <= '9') {
      ++digits;
    } else if (word[i] == '.') {
      ++dots;
    } else {
      return true;
    }
  }
  return digits == 0 || dots > 1;
}

std::size_t skip_values(const std::vector<ArgWord>& words, std::size_t i, bool inline_value, const std::string& nargs)
{
  if (inline_value || nargs == "0") {
    return i;
  }
  if (nargs == "...") {
    return words.size(); // argparse.REMAINDER takes everything after it
  }
  std::size_t limit = words.size();
  if (nargs == "?") {
    limit = std::min(words.size(), i + 1);
  } else if (nargs != "*" && nargs != "+") {
    std::size_t count = 1;
    std::from_chars(nargs.data(), nargs.data() + nargs.size(), count);
    limit = std::min(words.size(), i + count);
  }
  while (i < limit && !looks_like_flag(words[i].text)) {
    ++i;
  }
  return i;
}

SplitOption split_inline_value(const std::string& word)
{
  SplitOption out{word, std::nullopt};
  if (const std::size_t eq = word.find('='); eq != std::string::npos && word.rfind("--", 0) == 0) {
    out.inline_value = word.substr(eq + 1);
    out.spelling.resize(eq);
  }
  return out;
}

bool needs_a_value(const std::string& nargs)
{
  return nargs != "0" && nargs != "?" && nargs != "*";
}

ArgparseOutcome argparse_outcome(const FlagTable& table, const std::vector<ArgWord>& words)
{
  ArgparseOutcome out;
  // argparse classifies every word before it reads any value, so the first
  // ambiguous abbreviation stops the launch whatever comes after it.
  for (const ArgWord& w : words) {
    if (w.text == "--") {
      break;
    }
    if (!looks_like_flag(w.text)) {
      continue;
    }
    const std::string bare = split_inline_value(w.text).spelling;
    if (const OptionMatch m = table.match(bare); m.kind == OptionMatch::Kind::ambiguous) {
      out.stop = ArgOrigin{bare, "", w.origin};
      out.message = ambiguous_message(w.text, m);
      out.message_id = MessageId::argparse_ambiguous;
      return out;
    }
  }

  std::size_t i = 0;
  while (i < words.size()) {
    const ArgWord& word = words[i];
    if (word.text == "--") {
      // Everything after "--" is positional, and ServerArgs takes none.
      for (++i; i < words.size(); ++i) {
        out.unrecognized.push_back(ArgOrigin{words[i].text, "", words[i].origin});
      }
      break;
    }
    if (!looks_like_flag(word.text)) {
      // A stray word: ServerArgs has no positionals, so argparse rejects it.
      out.unrecognized.push_back(ArgOrigin{word.text, "", word.origin});
      ++i;
      continue;
    }
    const auto [spelling, inline_value] = split_inline_value(word.text);
    const OptionMatch match = table.match(spelling);
    if (match.kind != OptionMatch::Kind::exact && match.kind != OptionMatch::Kind::abbreviation) {
      // argparse keeps the word and the values after it as extras, and exits
      // with "unrecognized arguments: ..." once everything else is parsed.
      out.unrecognized.push_back(ArgOrigin{word.text, "", word.origin});
      ++i;
      while (i < words.size() && !looks_like_flag(words[i].text)) {
        out.unrecognized.push_back(ArgOrigin{words[i].text, "", words[i].origin});
        ++i;
      }
      continue;
    }
    const std::size_t first = i + 1;
    i = skip_values(words, first, inline_value.has_value(), match.flag->nargs);
    if (out.stop) {
      continue;
    }
    ArgOrigin at{spelling, inline_value.value_or(""), word.origin};
    if (i == first && !inline_value && needs_a_value(match.flag->nargs)) {
      out.message_id = match.flag->nargs == "+" ? MessageId::argparse_expected_some : MessageId::argparse_expected_one;
      out.message = render_message(out.message_id, {{"flag", table.argparse_name(*match.flag)}});
      out.stop = std::move(at);
    } else if (inline_value && match.flag->nargs == "0") {
      out.message_id = MessageId::argparse_ignored_value;
      out.message =
        render_message(out.message_id, {{"flag", table.argparse_name(*match.flag)}, {"value", *inline_value}});
      out.stop = std::move(at);
    }
  }
  return out;
}

} // namespace pdcheck::sglang
