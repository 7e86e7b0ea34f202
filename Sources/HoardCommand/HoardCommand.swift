/// The `hoard` command-line tool. For now it only reports its version; the thumbnail batch job and
/// cache administration arrive with their own issues.
@main
struct HoardCommand {
    static let version = "0.1.0"

    static func main() {
        print("hoard \(version)")
    }
}
