// SHA-256 for the disk cache's file names, from the platform's own library: OpenSSL's libcrypto on
// Linux (Debian's libssl-dev), CommonCrypto on Apple platforms.
#include "CHoardSupport.h"

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
// The low-level SHA256_Init/Update/Final, not EVP_Digest: EVP fetches the digest from OpenSSL's
// provider, and the first fetch in a process loads the configuration file and the default
// provider, a cost on every `hoard` run's critical path, and each later call costs several times
// more than these (the DocC article "Measurements behind the design", "Figures behind the source's
// choices"). The low-level functions are deprecated since OpenSSL 3.0 but still built; a library
// configured without them falls back to EVP.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/opensslconf.h>
#if defined(OPENSSL_NO_DEPRECATED_3_0)
#include <openssl/evp.h>
#else
#include <openssl/sha.h>
#endif

int hoard_sha256(const void *bytes, size_t length, uint8_t digest[32]) {
    if (bytes == NULL && length > 0) return -1;
    static const uint8_t empty = 0;
    const void *input = length > 0 ? bytes : &empty;
#if defined(OPENSSL_NO_DEPRECATED_3_0)
    unsigned int size = 0;
    if (EVP_Digest(input, length, digest, &size, EVP_sha256(), NULL) != 1 || size != 32) return -1;
#else
    SHA256_CTX context;
    if (SHA256_Init(&context) != 1 || SHA256_Update(&context, input, length) != 1
        || SHA256_Final(digest, &context) != 1)
        return -1;
#endif
    return 0;
}
#endif
