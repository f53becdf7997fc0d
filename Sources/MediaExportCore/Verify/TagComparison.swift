import Foundation

/// How the verifier compares the container tags it wrote with those read back: as values, not texts (a creation
/// time to the second, a location to its numbers).
extension OutputVerifier {
    /// The checks of the tags the output was given (`creation_time`, `location`, the Live Photo identifier) against
    /// those it holds.
    /// Names are looked up as the container reads them back (`Container.readBack`: Matroska's `LOCATION`).
    static func tagChecks(wanted tags: [String: String], written: [String: String], container: Container?) -> [Verification.Check] {
        var checks: [Verification.Check] = []
        for key in ["creation_time", "location", "com.apple.quicktime.content.identifier"] {
            guard let want = tags[key] else { continue }
            let got = container?.readBack(key, in: written) ?? written[key]
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

    /// The output's timecode against the plan's (`TimecodePlan`): the main video's, as read back (MP4/MOV: from the
    /// timecode track it refers to; Matroska: its tag), no other stream's, and MP4/MOV's timecode tracks — one when it
    /// is kept, none otherwise. No check when neither the plan nor the output has a timecode.
    static func timecodeChecks(plan: ExportPlan, kept: [StreamDecision], outStreams: [OutputFacts.Stream], facts: OutputFacts) -> [Verification.Check] {
        let want = plan.timecode?.output
        let main = plan.timecode?.stream.flatMap { s in kept.firstIndex { $0.index == s } }
        let got = main.flatMap { $0 < outStreams.count ? outStreams[$0].timecode : nil }
        let others = outStreams.indices.filter { $0 != main && outStreams[$0].timecode != nil }.count
        guard want != nil || got != nil || others > 0 || facts.timecodeTracks > 0 else { return [] }
        let quickTime = plan.container?.isQuickTimeFamily == true
        let tracks = want != nil && plan.timecode?.asTrack == true ? 1 : 0
        func text(_ value: String?, tracks: Int, others: Int) -> String {
            (value ?? "none") + (quickTime ? " (\(tracks) timecode track\(tracks == 1 ? "" : "s"))" : "")
                + (others > 0 ? ", and on \(others) other stream\(others == 1 ? "" : "s")" : "")
        }
        let ok = got == want && others == 0 && (!quickTime || facts.timecodeTracks == tracks)
        return [check("timecode", text(want, tracks: tracks, others: 0), text(got, tracks: facts.timecodeTracks, others: others), ok)]
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
