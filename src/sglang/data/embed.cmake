# Writes OUT, a C++ source defining pdcheck::sglang::data::NAME() that returns
# the text of IN. Run by src/CMakeLists.txt at build time (cmake -P).
file(READ "${IN}" text)
string(FIND "${text}" ")pdcheck_data\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw-string delimiter )pdcheck_data\"")
endif()
file(WRITE "${OUT}.tmp"
  "// Generated from ${IN} by embed.cmake: do not edit.\n"
  "#include <string_view>\n"
  "namespace pdcheck::sglang::data {\n"
  "std::string_view ${NAME}()\n{\n"
  "  static constexpr std::string_view text = R\"pdcheck_data(${text})pdcheck_data\";\n"
  "  return text;\n}\n}\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
