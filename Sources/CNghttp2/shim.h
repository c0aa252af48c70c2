// nghttp2 (Debian's libnghttp2-dev) for HTTP/2 on client connections: its session is driven by
// Breakwater's own connection (nghttp2_session_mem_recv / mem_send), never by an event loop of
// its own.
#ifndef CNGHTTP2_SHIM_H
#define CNGHTTP2_SHIM_H

#include <nghttp2/nghttp2.h>

#endif
