# SGLang facts kept as data files (flag list, environment names, with their
# provenance in the files' headers) are compiled into sglang/, so the binary
# needs no data directory at run time. Included by src/CMakeLists.txt and by
# the fuzz project (tests/fuzz), which compiles the same sources with clang.
#
# pdcheck_sglang_data_sources(OUT): sets OUT to the generated .cpp files,
# written under ${CMAKE_CURRENT_BINARY_DIR}/generated.
set(PDCHECK_SGLANG_DATA_DIR ${CMAKE_CURRENT_LIST_DIR})
function(pdcheck_sglang_data_sources out_var)
  set(sources "")
  foreach(name IN ITEMS sglang_env)
    set(data_file ${PDCHECK_SGLANG_DATA_DIR}/${name}.tsv)
    set(out_file ${CMAKE_CURRENT_BINARY_DIR}/generated/sglang_data_${name}.cpp)
    add_custom_command(
      OUTPUT ${out_file}
      COMMAND ${CMAKE_COMMAND} -DIN=${data_file} -DOUT=${out_file} -DNAME=${name}
              -P ${PDCHECK_SGLANG_DATA_DIR}/embed.cmake
      DEPENDS ${data_file} ${PDCHECK_SGLANG_DATA_DIR}/embed.cmake
      COMMENT "Embedding sglang/data/${name}.tsv")
    list(APPEND sources ${out_file})
  endforeach()
  # One launch-flag table per SGLang release read (sglang/data/launch_flags/).
  file(GLOB flag_tables CONFIGURE_DEPENDS ${PDCHECK_SGLANG_DATA_DIR}/launch_flags/*.tsv)
  list(SORT flag_tables)
  string(REPLACE ";" "|" flag_tables_arg "${flag_tables}")
  set(out_file ${CMAKE_CURRENT_BINARY_DIR}/generated/sglang_data_launch_flags.cpp)
  add_custom_command(
    OUTPUT ${out_file}
    COMMAND ${CMAKE_COMMAND} "-DFILES=${flag_tables_arg}" -DOUT=${out_file} -DNAME=launch_flags
            -DDIR=sglang/data/launch_flags -P ${PDCHECK_SGLANG_DATA_DIR}/embed_files.cmake
    DEPENDS ${flag_tables} ${PDCHECK_SGLANG_DATA_DIR}/embed_files.cmake
    COMMENT "Embedding sglang/data/launch_flags/*.tsv"
    VERBATIM)
  list(APPEND sources ${out_file})
  set(${out_var} ${sources} PARENT_SCOPE)
endfunction()
