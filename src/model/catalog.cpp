#include "model/catalog.hpp"

#include <algorithm>
#include <cctype>

namespace pdcheck::model {

namespace {

bool equal_ignoring_case(std::string_view a, std::string_view b)
{
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool ends_with_ignoring_case(std::string_view text, std::string_view suffix)
{
  return text.size() > suffix.size() && equal_ignoring_case(text.substr(text.size() - suffix.size()), suffix);
}

std::string_view last_component(std::string_view ref)
{
  const std::size_t slash = ref.rfind('/');
  return slash == std::string_view::npos ? ref : ref.substr(slash + 1);
}

/// The name a catalog entry's quantized siblings are built on: its repository
/// name without a trailing "-BF16", which some publishers give the unquantized
/// upload (NVIDIA's "...-A3B-BF16" beside "...-A3B-FP8" and "...-A3B-NVFP4").
std::string_view sibling_base(const CatalogEntry& entry)
{
  const std::string_view repo = last_component(entry.hf_repo);
  constexpr std::string_view k_precision = "-BF16";
  return ends_with_ignoring_case(repo, k_precision) ? repo.substr(0, repo.size() - k_precision.size()) : repo;
}

} // namespace

const std::vector<std::string_view>& quantization_suffixes()
{
  // The names quantized uploads of hybrid models use on the Hugging Face hub
  // (Qwen's own -FP8, RedHatAI's -FP8-dynamic and -quantized.w4a16, NVIDIA's
  // -FP8 / -NVFP4, community -AWQ / -GPTQ-Int4). Longest first, so "-FP8-Dynamic"
  // is removed whole rather than leaving "-FP8".
  static const std::vector<std::string_view> k_suffixes = [] {
    std::vector<std::string_view> v = {"-FP8",        "-FP8-Dynamic", "-FP8-Static",      "-FP8-Block",
                                       "-NVFP4",      "-MXFP4",       "-FP4",             "-AWQ",
                                       "-AWQ-4bit",   "-GPTQ",        "-GPTQ-Int4",       "-GPTQ-Int8",
                                       "-Int4",       "-Int8",        "-W4A16",           "-W8A8",
                                       "-W4A16-G128", "-W8A8-FP8",    "-quantized.w4a16", "-quantized.w8a8"};
    std::stable_sort(v.begin(), v.end(), [](std::string_view a, std::string_view b) { return a.size() > b.size(); });
    return v;
  }();
  return k_suffixes;
}

std::optional<CatalogVariant> find_catalog_variant(std::string_view ref)
{
  const std::string_view last = last_component(ref);
  for (const std::string_view suffix : quantization_suffixes()) {
    if (!ends_with_ignoring_case(last, suffix)) {
      continue;
    }
    const std::string_view base = last.substr(0, last.size() - suffix.size());
    for (const CatalogEntry& entry : catalog()) {
      if (equal_ignoring_case(entry.name, base) || equal_ignoring_case(last_component(entry.hf_repo), base) ||
          equal_ignoring_case(sibling_base(entry), base)) {
        return CatalogVariant{&entry, last.substr(base.size())};
      }
    }
  }
  return std::nullopt;
}

const CatalogEntry* find_catalog_entry(std::string_view name)
{
  for (const CatalogEntry& entry : catalog()) {
    if (equal_ignoring_case(entry.name, name) || equal_ignoring_case(entry.hf_repo, name)) {
      return &entry;
    }
  }
  return nullptr;
}

std::string_view catalog_revision()
{
  // Bump whenever an entry is added or its text changes.
  return "2026-12-06";
}

} // namespace pdcheck::model
