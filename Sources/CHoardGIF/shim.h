#ifndef CHOARD_GIF_SHIM_H
#define CHOARD_GIF_SHIM_H
#include <gif_lib.h>
#endif
