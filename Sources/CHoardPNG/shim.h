#ifndef CHOARD_PNG_SHIM_H
#define CHOARD_PNG_SHIM_H
#include <png.h>
#endif
