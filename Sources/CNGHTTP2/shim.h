// The C library nghttp2 (Debian: libnghttp2-dev), used by PushMockTransport for HTTP/2 framing.
#ifndef PUSHMOCK_CNGHTTP2_SHIM_H
#define PUSHMOCK_CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>
#endif
