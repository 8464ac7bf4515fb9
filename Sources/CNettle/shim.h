#ifndef AUTHDECK_CNETTLE_SHIM_H
#define AUTHDECK_CNETTLE_SHIM_H
// Nettle (GnuTLS's crypto library) for the lean binary's one AES-256-GCM open and HMAC-SHA256: a small library
// with no provider set-up, where libcrypto's load and initialisation cost more than the whole token read.
#include <nettle/gcm.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#endif
