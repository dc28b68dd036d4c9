#ifndef PDCHECK_IO_HTTP_MODULE_ABI_H
#define PDCHECK_IO_HTTP_MODULE_ABI_H

/* The HTTP module's entry points: the only interface between pdcheck and
 * pdcheck-http.so (src/modules/http_module.cpp), which holds the HTTP library.
 * pdcheck loads it with dlopen the first time a command sends a request
 * (bootstrap, fleet --router, server-info URLs), so the commands that never do
 * (most runs) do not load the library and the TLS and compression libraries
 * it is built with: that was most of pdcheck's start-up time.
 * Plain C types only. */

#ifdef __cplusplus
extern "C" {
#endif

#define PDCHECK_HTTP_ABI_VERSION 1
#define PDCHECK_HTTP_ENTRY "pdcheck_http_entry"

/* Why no answer came (io::HttpFailureKind, in its order). */
enum pdcheck_http_failure_kind
{
  PDCHECK_HTTP_RESOLVE = 0,
  PDCHECK_HTTP_REFUSED = 1,
  PDCHECK_HTTP_CONNECT_TIMEOUT = 2,
  PDCHECK_HTTP_CONNECT = 3,
  PDCHECK_HTTP_TIMEOUT = 4,
  PDCHECK_HTTP_BROKEN = 5
};

/* Receives the answer's body as it arrives. */
typedef void (*pdcheck_http_sink)(void* sink, const char* data, unsigned long long size);

struct pdcheck_http_module
{
  int abi_version; /* PDCHECK_HTTP_ABI_VERSION */

  /* GET http://host:port<target> with `user_agent`, in at most timeout_ms in
   * all (connect, send and read, however slowly the answer trickles in); a
   * body over max_body bytes is refused. Returns 0 for an answer (any status,
   * in *status, its body given to `append`), or 1 with *failure_kind and a
   * one-line `failure` (NUL-terminated, at most failure_size bytes). */
  int (*get)(const char* host, int port, const char* target, long long timeout_ms, const char* user_agent,
             unsigned long long max_body, pdcheck_http_sink append, void* sink, int* status, int* failure_kind,
             char* failure, int failure_size);
};

/* The module's one exported symbol (PDCHECK_HTTP_ENTRY). */
const struct pdcheck_http_module* pdcheck_http_entry(void);

#ifdef __cplusplus
}
#endif

#endif
