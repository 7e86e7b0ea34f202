import HoardServer
import Testing

@Suite("FormatNegotiation")
struct FormatNegotiationTests {
    @Test("WebP only when named with a quality above zero", arguments: [
        ("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", true),  // Chromium
        ("image/avif,image/webp,*/*", true),  // Firefox
        ("image/webp;q=0.5", true), (" IMAGE/WEBP ; q=1 ", true), ("image/webp;q=0", false), ("image/webp;q=0.0", false),
        ("*/*", false), ("image/*", false), ("image/png,image/jpeg", false), ("", false),
        ("\tImage/WebP\t;\tQ=0.25", true), ("image/webp ;Q=0", false), ("image/webpx", false), ("image/web", false),
        ("text/html, image/webp;level=1;q=0.9", true), ("image/webp;q=abc", true), (",,image/webp,,", true),
        ("image/webp, image/webp;q=0", false), (";image/webp", false), ("image/webp;;q=0", false),
    ])
    func webP(accept: String, expected: Bool) {
        #expect(FormatNegotiation(accept: accept).acceptsWebP == expected)
    }

    @Test("AVIF only when named with a quality above zero; the last mention counts", arguments: [
        ("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", true), ("image/webp,*/*", false),
        ("image/avif;q=0", false), (" Image/AVIF ;Q=0.1", true), ("image/avifx", false), ("image/avif, image/avif;q=0", false),
    ])
    func avif(accept: String, expected: Bool) {
        #expect(FormatNegotiation(accept: accept).acceptsAVIF == expected)
    }

    @Test("auto is AVIF when accepted, else WebP, else PNG with alpha and JPEG without; explicit formats stay")
    func choice() {
        let chromium = FormatNegotiation(accept: "image/webp,*/*")
        let old = FormatNegotiation(accept: nil)
        #expect(FormatNegotiation(accept: "image/avif,image/webp").format(for: .auto, isOpaque: false) == .avif)
        #expect(chromium.format(for: .auto, isOpaque: true) == .webp)
        #expect(old.format(for: .auto, isOpaque: true) == .jpeg)
        #expect(old.format(for: .auto, isOpaque: false) == .png)
        #expect(chromium.format(for: .png, isOpaque: true) == .png)
        #expect(old.format(for: .webp, isOpaque: true) == .webp)
    }
}
