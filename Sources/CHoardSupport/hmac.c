// HMAC-SHA256 for the server's signed URLs, from the platform's own library: OpenSSL's libcrypto
// on Linux, CommonCrypto on Apple platforms (as sha256.c).
#include "CHoardSupport.h"

#if defined(__APPLE__)
#include <CommonCrypto/CommonHMAC.h>

int hoard_hmac_sha256(const void *key, size_t key_length, const void *bytes, size_t length, uint8_t mac[32]) {
    if ((key == NULL && key_length > 0) || (bytes == NULL && length > 0)) return -1;
    CCHmac(kCCHmacAlgSHA256, key, key_length, bytes, length, mac);
    return 0;
}
#else
#include <openssl/hmac.h>

int hoard_hmac_sha256(const void *key, size_t key_length, const void *bytes, size_t length, uint8_t mac[32]) {
    if ((key == NULL && key_length > 0) || (bytes == NULL && length > 0) || key_length > INT32_MAX) return -1;
    static const uint8_t empty = 0;
    unsigned int size = 0;
    // The one-shot HMAC() is not among OpenSSL 3's deprecated functions (HMAC_CTX is).
    if (HMAC(EVP_sha256(), key_length > 0 ? key : &empty, (int)key_length, length > 0 ? bytes : &empty, length,
             mac, &size) == NULL || size != 32)
        return -1;
    return 0;
}
#endif
