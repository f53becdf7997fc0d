/// The numbers and names as manifests write them: decimals with a fixed number of places and a `.` whatever the
/// locale (computed from integers, never through a formatter), and URIs percent-encoded.
enum ManifestText {
    /// `value` rounded to `places` decimals (0…9), `4.000000`; NaN and infinities write as 0.
    static func fixed(_ value: Double, places: Int) -> String {
        let places = min(max(places, 0), 9)
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let rounded = Int64(saturating: ((value.isFinite ? value : 0) * Double(scale)).rounded())
        let sign = rounded < 0 ? "-" : ""
        let whole = rounded.magnitude / UInt64(scale), fraction = rounded.magnitude % UInt64(scale)
        guard places > 0 else { return sign + String(whole) }
        let digits = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: places - digits.count) + digits
    }

    /// A duration as ISO 8601 (`PT10.000S`), as an MPD writes it.
    static func isoDuration(_ seconds: Double) -> String { "PT" + fixed(seconds, places: 3) + "S" }

    /// `path` with each byte outside RFC 3986's unreserved characters and `/` percent-encoded: safe inside a playlist
    /// line, a quoted attribute and an XML attribute alike.
    static func uri(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x80 && (c.isLetter || c.isNumber || "-._~/".contains(c)) {
                out.append(c)
            } else {
                out += "%" + SampleEntryCodec.hex(Int(byte), digits: 2)
            }
        }
        return out
    }

    /// `folder/name`, or `name` when the folder is empty.
    static func join(_ folder: String, _ name: String) -> String { folder.isEmpty ? name : folder + "/" + name }

    /// The greatest common divisor.
    static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 { b == 0 ? a : gcd(b, a % b) }
}
