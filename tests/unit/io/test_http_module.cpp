// The HTTP client lives in pdcheck-http.so, loaded on the first request: what
// a request says when the module is not where pdcheck looks.
#include "io/http_client.hpp"
#include "platform/loadable_module.hpp"

#include "../../support/error_of.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

using namespace pdcheck;

TEST_CASE("http: without pdcheck-http.so a request is a one-line reason, exit 3", "[io][http]")
{
  const char* set = std::getenv(platform::k_module_dir_variable);
  const std::string saved = set != nullptr ? set : "";
  ::setenv(platform::k_module_dir_variable, "/nonexistent/lib", 1);
  const std::string error = test::error_of([] {
    io::HttpGetClient("127.0.0.1", 9).get("/", std::chrono::milliseconds(100));
  });
  if (set != nullptr) {
    ::setenv(platform::k_module_dir_variable, saved.c_str(), 1);
  } else {
    ::unsetenv(platform::k_module_dir_variable);
  }
  CHECK(error == "cannot run: pdcheck's HTTP module is not installed (looked for /nonexistent/lib/pdcheck-http.so): "
                 "reinstall pdcheck, or set PDCHECK_MODULE_DIR to the directory that holds it");
}
