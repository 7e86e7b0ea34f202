// SHA-256 for the disk cache's file names, from the platform's own library: OpenSSL's libcrypto on
// Linux (Debian's libssl-dev), CommonCrypto on Apple platforms.
#include "CHoardCodecs.h"

#if defined(__APPLE__)
#include <CommonCrypto/CommonDigest.h>

int hoard_sha256(const void *bytes, size_t length, uint8_t digest[32]) {
    if (bytes == NULL && length > 0) return -1;
    CC_SHA256_CTX context;
    CC_SHA256_Init(&context);
    // CC_LONG is 32 bits: feed longer inputs in pieces.
    const uint8_t *cursor = bytes;
    while (length > 0) {
        CC_LONG piece = length > 0x40000000u ? 0x40000000u : (CC_LONG)length;
        CC_SHA256_Update(&context, cursor, piece);
        cursor += piece;
        length -= piece;
    }
    CC_SHA256_Final(digest, &context);
    return 0;
}
#else
#include <openssl/evp.h>

int hoard_sha256(const void *bytes, size_t length, uint8_t digest[32]) {
    if (bytes == NULL && length > 0) return -1;
    static const uint8_t empty = 0;
    unsigned int size = 0;
    if (EVP_Digest(length > 0 ? bytes : &empty, length, digest, &size, EVP_sha256(), NULL) != 1 || size != 32)
        return -1;
    return 0;
}
#endif
