#ifndef CHOARD_WEBP_SHIM_H
#define CHOARD_WEBP_SHIM_H
#include <webp/decode.h>
#include <webp/demux.h>
#endif
