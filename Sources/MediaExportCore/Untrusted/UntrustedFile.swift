import Foundation

/// Bounds on the small files that come with uploads (edit sidecars, `.AAE`s) and on preset files, checked before
/// any parser sees the bytes. Foundation's property-list and JSON parsers recurse once per nesting level, so a
/// 150 kB `.AAE` of 10 000 nested `<array>`s overflowed the stack; and nothing stopped a 100 MB sidecar from
/// being parsed in full and echoed back in an error. Every file is read with a size limit, then scanned without
/// recursion for its nesting depth (and, for JSON, for duplicate keys).
package enum UntrustedFile {
    /// The largest sidecar, `.AAE` or preset file read (real ones are a few kB).
    package static let maxBytes = 1 << 20
    /// The deepest nesting of arrays and objects (JSON) or elements (XML) accepted; real files nest 2–6 levels.
    static let maxDepth = 64
    /// The most characters of a user's text (a JSON key) put into an error.
    static let maxEchoedCharacters = 200

    /// Why a file was refused; each caller turns it into its own error (`invalidSidecar`, `invalidPreset`).
    package struct Refusal: Error, Equatable {
        /// The key path at fault, or `-` for the whole file.
        package var field: String
        package var reason: String
        package init(field: String, reason: String) { self.field = field; self.reason = reason }
    }

    /// The refusal for a file over `limit` (`maxBytes` unless said): "file is 20 MB; edit sidecars are at most 1 MB".
    package static func tooLarge(_ size: Int64, kind: String, limit: Int = maxBytes) -> Refusal {
        let mb = Double(size) / Double(1 << 20)
        let shown = mb < 10 ? String(format: "%.1f", mb) : String(format: "%.0f", mb)
        return Refusal(field: "-", reason: "file is \(shown) MB; \(kind) are at most \(limit >> 20) MB")
    }

    /// True when the bytes are well-formed UTF-8 with no NUL and no UTF-16 byte-order mark. Text parsers get only
    /// such bytes: Foundation's XML plist parser traps on malformed UTF-8 in an `<integer>` (a fuzzer found it:
    /// `Fuzz/findings/aae-xml-integer-invalid-utf8.aae`), and UTF-16/32 text, which Foundation converts first,
    /// would hide its brackets and tags from a byte scan.
    static func isUTF8Text(_ data: Data) -> Bool {
        !data.contains(0) && !data.starts(with: [0xFE, 0xFF]) && !data.starts(with: [0xFF, 0xFE])
            && String(validating: data, as: UTF8.self) != nil
    }

    /// A key as it may appear in an error: control characters escaped, at most `maxEchoedCharacters`.
    package static func echo(_ key: String) -> String { FileName.clip(FileName.display(key), limit: maxEchoedCharacters) }
}

/// A non-recursive scan of JSON text for what `JSONSerialization` and `JSONDecoder` do not check: nesting deeper
/// than `UntrustedFile.maxDepth`, and a key given twice in one object (they keep one of the two silently, so
/// `{"mute": true, "mute": false}` would mean whatever the parser picked). It does not validate the rest of the
/// syntax: on text that is not JSON it stops, and the JSON parser then reports the error.
package enum JSONStructure {
    /// Throws `UntrustedFile.Refusal` for bytes over `maxBytes` (`kind` names the files: "edit sidecars"), naming
    /// the key path of a duplicate key (`trim.start`), or for the nesting. `maxBytes` is larger only for text that
    /// was inflated under its own bound (an `.AAE`'s adjustment data).
    package static func check(_ data: Data, kind: String, maxDepth: Int = UntrustedFile.maxDepth,
                              maxBytes: Int = UntrustedFile.maxBytes) throws {
        if data.count > maxBytes { throw UntrustedFile.tooLarge(Int64(data.count), kind: kind, limit: maxBytes) }
        // JSON text is UTF-8 (RFC 8259); UTF-16 or UTF-32, which JSONSerialization would convert, could hide
        // brackets from a byte scan.
        guard UntrustedFile.isUTF8Text(data) else { throw UntrustedFile.Refusal(field: "-", reason: "not valid JSON (not UTF-8 text)") }
        try data.withUnsafeBytes { raw in try scan(raw.bindMemory(to: UInt8.self), maxDepth: maxDepth) }
    }

    /// One open array or object.
    private struct Container {
        var isObject: Bool
        /// Its name in its parent, for error paths: a key (already cut for display) or `[index]`.
        var component: String
        var keys: Set<String> = []
        /// The element index in an array.
        var index = 0
        /// In an object: the next string is a key (after `{` or `,`), not a value.
        var expectsKey: Bool
        /// In an object: the last key read, cut for display; names the child container that may follow.
        var lastKey = ""
    }

    private static func scan(_ b: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws {
        var stack: [Container] = []
        /// `trim.start`, `video.maxSize[1]`: the containers' names and then `last`.
        func path(appending last: String) -> String {
            var out = ""
            for part in stack.map(\.component) + [last] where !part.isEmpty {
                if !out.isEmpty && !part.hasPrefix("[") { out += "." }
                out += part
            }
            return out
        }
        var i = 0
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "\""):
                let isKey = stack.last.map { $0.isObject && $0.expectsKey } ?? false
                guard let (end, key) = string(b, from: i + 1, decode: isKey) else { return }  // unterminated
                if isKey, let key {
                    let shown = UntrustedFile.echo(key)
                    if stack[stack.count - 1].keys.contains(key) {
                        throw UntrustedFile.Refusal(field: path(appending: shown), reason: "duplicate key (each key may appear once in an object)")
                    }
                    stack[stack.count - 1].keys.insert(key)
                    stack[stack.count - 1].lastKey = shown
                    stack[stack.count - 1].expectsKey = false
                }
                i = end
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if stack.count >= maxDepth {
                    throw UntrustedFile.Refusal(field: "-", reason: "nested more than \(maxDepth) levels deep")
                }
                let component = stack.last.map { $0.isObject ? $0.lastKey : "[\($0.index)]" } ?? ""
                stack.append(Container(isObject: b[i] == UInt8(ascii: "{"), component: component, expectsKey: b[i] == UInt8(ascii: "{")))
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !stack.isEmpty else { return }  // not JSON: the parser says so
                stack.removeLast()
                i += 1
            case UInt8(ascii: ","):
                if !stack.isEmpty {
                    if stack[stack.count - 1].isObject { stack[stack.count - 1].expectsKey = true } else { stack[stack.count - 1].index += 1 }
                }
                i += 1
            default:
                i += 1
            }
        }
    }

    /// Scans a string whose opening quote is before `start`: the index after its closing quote, and its decoded
    /// value when `decode` (escapes resolved, so `"\u006dute"` is the key `mute`). Nil when unterminated.
    private static func string(_ b: UnsafeBufferPointer<UInt8>, from start: Int, decode: Bool) -> (Int, String?)? {
        var i = start
        if !decode {
            while i < b.count {
                if b[i] == UInt8(ascii: "\\") { i += 2; continue }
                if b[i] == UInt8(ascii: "\"") { return (i + 1, nil) }
                i += 1
            }
            return nil
        }
        var utf8: [UInt8] = []
        var pendingHigh: UInt32?
        func append(_ scalar: UInt32) {
            if let high = pendingHigh {
                pendingHigh = nil
                if (0xDC00...0xDFFF).contains(scalar) {
                    append(0x10000 + ((high - 0xD800) << 10) + (scalar - 0xDC00))
                    return
                }
                utf8.append(contentsOf: "\u{FFFD}".utf8)
            }
            if (0xD800...0xDBFF).contains(scalar) { pendingHigh = scalar; return }
            let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
            utf8.append(contentsOf: String(s).utf8)
        }
        func flush() { if pendingHigh != nil { pendingHigh = nil; utf8.append(contentsOf: "\u{FFFD}".utf8) } }
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                flush()
                return (i + 1, String(decoding: utf8, as: UTF8.self))
            }
            if c != UInt8(ascii: "\\") {
                flush()
                utf8.append(c)
                i += 1
                continue
            }
            guard i + 1 < b.count else { return nil }
            let e = b[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "u"):
                guard i + 4 <= b.count, let v = UInt32(String(decoding: UnsafeBufferPointer(rebasing: b[i..<i + 4]), as: UTF8.self), radix: 16) else {
                    flush(); utf8.append(contentsOf: "\u{FFFD}".utf8); continue
                }
                i += 4
                append(v)
            case UInt8(ascii: "b"): flush(); utf8.append(0x08)
            case UInt8(ascii: "f"): flush(); utf8.append(0x0C)
            case UInt8(ascii: "n"): flush(); utf8.append(0x0A)
            case UInt8(ascii: "r"): flush(); utf8.append(0x0D)
            case UInt8(ascii: "t"): flush(); utf8.append(0x09)
            default: flush(); utf8.append(e)  // \" \\ \/ (anything else is not JSON; the parser says so)
            }
        }
        return nil
    }
}

/// A non-recursive scan of an XML property list's element nesting, done before Foundation's recursive XML plist
/// parser sees the bytes. It follows that parser's reading of markup (swift-foundation's `XMLPlistScanner`) so that
/// it never counts fewer levels than the parser descends: a tag runs to the first `>`, `/>` closes it at once,
/// comments to `-->`, processing instructions to `?>`, CDATA sections to `]]>`, a DOCTYPE to the first `>`. Where
/// the parser would read markup differently it stops with an error before descending further.
enum XMLPlistStructure {
    /// The text of every `<data>` element that follows `<key>key</key>` (only whitespace between them), as written.
    static func dataTexts(_ data: Data, key: String) -> [String] {
        let text = String(decoding: data, as: UTF8.self)
        return text.components(separatedBy: "<key>\(key)</key>").dropFirst().compactMap { after in
            let rest = after.drop { " \t\n\r".contains($0) }
            guard rest.hasPrefix("<data>"), let end = rest.range(of: "</data>") else { return nil }
            return String(rest[rest.index(rest.startIndex, offsetBy: 6)..<end.lowerBound])
        }
    }

    /// Throws `UntrustedFile.Refusal` when the text is not a UTF-8 XML document or nests deeper than `maxDepth`.
    static func check(_ data: Data, maxDepth: Int = UntrustedFile.maxDepth) throws {
        // Apple writes UTF-8; anything else (UTF-16 by its byte-order mark, malformed UTF-8) is refused.
        let notXML = UntrustedFile.Refusal(field: "-", reason: "not a property list (XML in UTF-8, or binary)")
        guard UntrustedFile.isUTF8Text(data) else { throw notXML }
        try data.withUnsafeBytes { raw in
            let b = raw.bindMemory(to: UInt8.self)
            var i = b.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            while i < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[i]) { i += 1 }
            guard i < b.count, b[i] == UInt8(ascii: "<") else { throw notXML }
            func find(_ pattern: StaticString, from start: Int) -> Int? {
                let p = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
                var k = start
                while k + p.count <= b.count {
                    if b[k] == p[0] && (1..<p.count).allSatisfy({ b[k + $0] == p[$0] }) { return k }
                    k += 1
                }
                return nil
            }
            func at(_ k: Int, _ pattern: StaticString) -> Bool {
                let p = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
                return k + p.count <= b.count && (0..<p.count).allSatisfy { b[k + $0] == p[$0] }
            }
            var depth = 0
            while i < b.count {
                guard b[i] == UInt8(ascii: "<") else { i += 1; continue }
                // The end of each construct; an unterminated one ends the scan (the parser fails there too).
                if at(i, "<!--") {
                    guard let end = find("-->", from: i + 4) else { return }
                    i = end + 3
                } else if at(i, "<![CDATA[") {
                    guard let end = find("]]>", from: i + 9) else { return }
                    i = end + 3
                } else if at(i, "<?") {
                    guard let end = find("?>", from: i + 2) else { return }
                    i = end + 2
                } else if at(i, "<!") || at(i, "</") {
                    guard let end = find(">", from: i + 2) else { return }
                    if b[i + 1] == UInt8(ascii: "/") { depth = max(0, depth - 1) }
                    i = end + 1
                } else {
                    guard let end = find(">", from: i + 1) else { return }
                    if b[end - 1] != UInt8(ascii: "/") {
                        depth += 1
                        if depth > maxDepth {
                            throw UntrustedFile.Refusal(field: "-", reason: "elements nested more than \(maxDepth) levels deep")
                        }
                    }
                    i = end + 1
                }
            }
        }
    }
}
