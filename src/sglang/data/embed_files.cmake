# Writes OUT, a C++ source defining pdcheck::sglang::data::NAME(), which returns
# every file of FILES ('|'-separated) as {name without .tsv, text}. Run by
# src/CMakeLists.txt at build time (cmake -P): one table per SGLang release.
string(REPLACE "|" ";" files "${FILES}")
set(body "")
foreach(file IN LISTS files)
  file(READ "${file}" text)
  string(FIND "${text}" ")pdcheck_data\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${file} contains the raw-string delimiter )pdcheck_data\"")
  endif()
  get_filename_component(name "${file}" NAME_WLE)
  string(APPEND body "    {\"${name}\", R\"pdcheck_data(${text})pdcheck_data\"},\n")
endforeach()
file(WRITE "${OUT}.tmp"
  "// Generated from ${DIR} by embed_files.cmake: do not edit.\n"
  "#include <string_view>\n#include <vector>\n"
  "namespace pdcheck::sglang::data {\n"
  "struct EmbeddedFile\n{\n  std::string_view name;\n  std::string_view text;\n};\n"
  "std::vector<EmbeddedFile> ${NAME}()\n{\n  return {\n${body}  };\n}\n}\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
