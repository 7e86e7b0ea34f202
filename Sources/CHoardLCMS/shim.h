#ifndef CHOARD_LCMS_SHIM_H
#define CHOARD_LCMS_SHIM_H
#include <lcms2.h>
#endif
