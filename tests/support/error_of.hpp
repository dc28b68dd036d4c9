#pragma once

// What a call throws, as the text a user would read: an InputError as
// "where: what", a CannotRun as "cannot run: what", and "<no error>" when the
// call returns.

#include "util/error.hpp"

#include <string>

namespace pdcheck::test {

template <typename F>
std::string error_of(F&& f)
{
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const CannotRun& e) {
    return std::string("cannot run: ") + e.what();
  }
  return "<no error>";
}

} // namespace pdcheck::test
