#ifndef CHOARD_JPEG_SHIM_H
#define CHOARD_JPEG_SHIM_H
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#endif
