import Foundation


/// File names on Linux are bytes, not text: a Latin-1 `caf\xE9.mp4` is a legal name that is not valid UTF-8.
/// Swift's `String` holds only valid Unicode, so names are carried through the library as strings in a
/// lossless encoding: valid UTF-8 decodes as usual, and each byte that is not part of valid UTF-8 becomes one
/// scalar of a reserved block of plane 16's private-use area (U+10FF80…U+10FFFF for 0x80…0xFF). A name that
/// really contains a scalar of that block has its bytes escaped the same way, so decoding then encoding gives
/// back the exact bytes for every name.
///
/// Every path handed to the operating system or to FFmpeg goes through `FileName.cString(_:)` (or one of the
/// `FileSystem` calls, which do), never through Swift's implicit `String` → `char *` bridging; every path shown
/// to people or written to a report goes through `FileName.display(_:)`.
package enum FileName {
    static let escapeBase: UInt32 = 0x10FF00

    /// Decodes raw name bytes (no NUL) into a lossless string.
    package static func decode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let b = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var i = 0
        while i < b.count {
            let (scalar, length) = decodeOne(b, at: i)
            if let scalar, !isEscape(scalar) {
                scalars.append(scalar)
                i += length
            } else {
                // Not valid UTF-8 here (or a scalar of our escape block): escape each byte of it.
                let n = scalar == nil ? 1 : length
                for k in 0..<n { scalars.append(escape(b[i + k])) }
                i += n
            }
        }
        return String(scalars)
    }

    /// Decodes a NUL-terminated C string (a `readdir` name, an `argv` entry, a `realpath` result).
    package static func decode(cString: UnsafePointer<CChar>) -> String {
        decode(UnsafeBufferPointer(start: UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self), count: strlen(cString)))
    }

    /// The exact bytes of a name produced by `decode` (or of any ordinary string).
    package static func bytes(_ name: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(name.utf8.count)
        for scalar in name.unicodeScalars {
            if isEscape(scalar) { out.append(UInt8(scalar.value - escapeBase)) } else { out.append(contentsOf: String(scalar).utf8) }
        }
        return out
    }

    /// The NUL-terminated bytes of a name, for a C call: `open(FileName.cString(path), O_RDONLY)`.
    package static func cString(_ name: String) -> [CChar] {
        var out = bytes(name).map { CChar(bitPattern: $0) }
        out.append(0)
        return out
    }

    /// True when the name holds bytes that are not UTF-8 (shown escaped).
    package static func hasRawBytes(_ name: String) -> Bool { name.unicodeScalars.contains(where: isEscape) }

    /// The name for people, logs and reports: raw bytes shown as `\xE9`, control and bidirectional characters as
    /// `\u{…}` escapes (`TerminalText.escaped`), so a name can neither break a line, act on a terminal nor reorder it.
    package static func display(_ name: String) -> String { TerminalText.escaped(name) }

    /// A path for people: `display` of its lexically `PathName.normalized` form (`out/../clips/a.mov` →
    /// `clips/a.mov`) — for messages only; the path itself is used as given.
    package static func displayPath(_ path: String) -> String { display(PathName.normalized(path)) }

    /// A JSON text with every raw byte of a name shown as `\xE9` (JSON `"\\xE9"`), as `display` shows it: JSON Lines
    /// carry the names a person reads, and the private-use scalars of the lossless form mean nothing to a reader.
    package static func displayingRawBytes(inJSON json: String) -> String {
        guard json.unicodeScalars.contains(where: isEscape) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if isEscape(scalar) { out.append(contentsOf: String(format: "\\\\x%02X", scalar.value - escapeBase).unicodeScalars) } else { out.append(scalar) }
        }
        return String(out)
    }

    /// Cuts user-controlled text for a message: at most `limit` characters, with an ellipsis and the length cut.
    package static func clip(_ text: String, limit: Int = 200) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "… (\(text.utf8.count) bytes)"
    }

    package static func isEscape(_ s: Unicode.Scalar) -> Bool { s.value >= escapeBase + 0x80 && s.value <= escapeBase + 0xFF }
    static func escape(_ byte: UInt8) -> Unicode.Scalar {
        // Bytes below 0x80 are always valid UTF-8 on their own, so only 0x80…0xFF are ever escaped.
        Unicode.Scalar(escapeBase + UInt32(byte))!
    }

    /// One UTF-8 scalar at `i`, or nil when the bytes there are not well-formed UTF-8.
    private static func decodeOne(_ b: [UInt8], at i: Int) -> (Unicode.Scalar?, Int) {
        let c0 = b[i]
        if c0 < 0x80 { return (Unicode.Scalar(c0), 1) }
        let length: Int
        var value: UInt32
        switch c0 {
        case 0xC2...0xDF: length = 2; value = UInt32(c0 & 0x1F)
        case 0xE0...0xEF: length = 3; value = UInt32(c0 & 0x0F)
        case 0xF0...0xF4: length = 4; value = UInt32(c0 & 0x07)
        default: return (nil, 1)
        }
        guard i + length <= b.count else { return (nil, 1) }
        for k in 1..<length {
            let c = b[i + k]
            guard c & 0xC0 == 0x80 else { return (nil, 1) }
            value = value << 6 | UInt32(c & 0x3F)
        }
        // Overlong forms, surrogates and values past U+10FFFF are not well-formed.
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return (nil, 1) }
        return (scalar, length)
    }
}

/// "Did you mean …?": the known name closest to a mistyped one.
package enum Suggestion {
    /// The name of `known` nearest to `typed` (case-insensitive edit distance, at most 2, or a third of its length for
    /// long names), or one `typed` is a prefix of; nil when none is close.
    package static func closest(to typed: String, in known: [String]) -> String? {
        if let sized = bySize(typed, in: known) { return sized }
        let t = Array(typed.lowercased())
        guard !t.isEmpty, t.count <= 200 else { return nil }
        var best: (String, Int)?
        for name in known {
            let n = Array(name.lowercased())
            let d = distance(t, n)
            let allowed = max(2, n.count / 3)
            if d <= allowed, best == nil || d < best!.1 { best = (name, d) }  // best! only when not nil
        }
        if let best { return best.0 }
        return known.first { $0.lowercased().hasPrefix(typed.lowercased()) }
    }

    /// A size as people name it (`720p`, `4k`) → the first of `known` named by a box of that height (`1280x720`).
    static func bySize(_ typed: String, in known: [String]) -> String? {
        let t = typed.lowercased()
        let height = t == "4k" || t == "uhd" ? 2160 : t.hasSuffix("p") ? Int(t.dropLast()) : nil
        guard let height else { return nil }
        return known.first { $0.hasSuffix("x\(height)") && $0.first?.isNumber == true }
    }

    /// Levenshtein distance (insertions, deletions, substitutions; an adjacent swap counts as one).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                var v = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { v = min(v, previous2[j - 2] + 1) }
                current[j] = v
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
