# Compile through ccache where it is installed (run-tests installs it).
# CI builds a fresh clone in another folder, on the machine whose own runs of
# the same sources filled the cache; with paths made relative to the source
# root (CCACHE_BASEDIR) and the build folder left out of the hash
# (CCACHE_NOHASHDIR), an unchanged file is not compiled again there. Cold, it
# costs a few percent. Include before any target is created, with
# PDCHECK_CCACHE_ROOT set to the repository root.
find_program(PDCHECK_CCACHE ccache)
if(PDCHECK_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PDCHECK_CCACHE_ROOT} CCACHE_NOHASHDIR=true
      ${PDCHECK_CCACHE})
endif()
