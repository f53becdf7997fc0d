import Foundation

/// How the verifier compares the container tags it wrote with those read back: as values, not texts (a creation
/// time to the second, a location to its numbers).
extension OutputVerifier {
    /// The checks of the tags the output was given (`creation_time`, `location`, the Live Photo identifier) against
    /// those it holds.
    static func tagChecks(wanted tags: [String: String], written: [String: String]) -> [Verification.Check] {
        var checks: [Verification.Check] = []
        for key in ["creation_time", "location", "com.apple.quicktime.content.identifier"] {
            guard let want = tags[key] else { continue }
            let got = written[key]
            if key == "creation_time", got == nil, parseDate(want).map({ $0.timeIntervalSince1970 == 0 }) ?? true {
                // 1970-01-01 is how a muxer says "unset" (MP4 does not write it), and a text that is no date cannot be written.
                checks.append(check(key, want, "none", nil))
                continue
            }
            let same = key == "creation_time" ? sameInstant(want, got) : got.map { sameLocation(want, $0) } ?? false
            checks.append(check(key, want, got ?? "none", same))
        }
        return checks
    }

    /// Two creation times name the same second (formats differ: `2023-05-01T10:00:00.000000Z`, `…00Z`, `…+0200`).
    static func sameInstant(_ a: String, _ b: String?) -> Bool {
        guard let b else { return false }
        if a == b { return true }
        guard let x = parseDate(a), let y = parseDate(b) else { return false }
        return abs(x.timeIntervalSince(y)) < 1
    }

    static func parseDate(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
            f.formatOptions = options
            if let d = f.date(from: text) { return d }
        }
        // `2023-05-01T10:00:00+0200` (Apple's creation date) and fractions ISO8601DateFormatter rejects.
        let g = DateFormatter()
        g.locale = Locale(identifier: "en_US_POSIX")
        for format in ["yyyy-MM-dd'T'HH:mm:ssZ", "yyyy-MM-dd'T'HH:mm:ss.SSSSSSZ", "yyyy-MM-dd HH:mm:ss"] {
            g.dateFormat = format
            if let d = g.date(from: text) { return d }
        }
        return nil
    }

    /// ISO 6709 locations compare without the trailing `/` and spaces.
    static func trimmedLocation(_ s: String) -> String {
        s.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
    }

    /// Two ISO 6709 locations name the same place: the same text, or the same numbers (the MOV muxer writes an
    /// altitude `+035.000` back as `+35.000000`).
    static func sameLocation(_ a: String, _ b: String) -> Bool {
        if trimmedLocation(a) == trimmedLocation(b) { return true }
        guard let x = iso6709Numbers(a), let y = iso6709Numbers(b), x.count == y.count else { return false }
        return zip(x, y).allSatisfy { abs($0 - $1) < 1e-6 }
    }

    /// The signed numbers of an ISO 6709 string (`+48.8584+002.2945+035.000/` → 48.8584, 2.2945, 35); nil for
    /// anything else.
    static func iso6709Numbers(_ s: String) -> [Double]? {
        var numbers: [Double] = []
        var current = ""
        for c in trimmedLocation(s) {
            if c == "+" || c == "-" {
                if !current.isEmpty { guard let v = Double(current) else { return nil }; numbers.append(v) }
                current = String(c)
            } else if c.isNumber || c == "." {
                guard !current.isEmpty else { return nil }
                current.append(c)
            } else {
                return nil
            }
        }
        guard let last = Double(current) else { return nil }
        numbers.append(last)
        return numbers.isEmpty || numbers.count > 3 ? nil : numbers
    }
}
