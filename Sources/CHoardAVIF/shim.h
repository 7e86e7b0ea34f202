#ifndef CHOARD_AVIF_SHIM_H
#define CHOARD_AVIF_SHIM_H
#include <avif/avif.h>
#endif
