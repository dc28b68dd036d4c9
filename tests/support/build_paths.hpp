#pragma once

// Where this build keeps what the tests run and read. The values live in one
// file CMake generates (tests/CMakeLists.txt) instead of -D flags on every
// test file: ccache hashes -D values, so with paths in them a clone in another
// folder (CI's) would compile every test again. Force-included into the tests.

namespace pdcheck::test {

const char* source_dir();        ///< the repository root
const char* pdcheck_binary();    ///< the pdcheck executable of this build
const char* fake_cuda_library(); ///< tests/probe/fake_libcuda.cpp, built as a module
const char* module_dir();        ///< where pdcheck's loadable modules sit (beside pdcheck)

} // namespace pdcheck::test

#define PDCHECK_SOURCE_DIR (::pdcheck::test::source_dir())
#define PDCHECK_BINARY (::pdcheck::test::pdcheck_binary())
#define PDCHECK_FAKE_CUDA (::pdcheck::test::fake_cuda_library())
#define PDCHECK_TEST_MODULE_DIR (::pdcheck::test::module_dir())
