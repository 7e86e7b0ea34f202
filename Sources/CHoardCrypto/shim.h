#ifndef CHOARD_CRYPTO_SHIM_H
#define CHOARD_CRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
