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

} // namespace

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
  return "2026-11-30";
}

} // namespace pdcheck::model
