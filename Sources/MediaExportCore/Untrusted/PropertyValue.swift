import Foundation

/// A value read from an untrusted property list or JSON text: one tree type for both, so that Apple's adjustment
/// records are interpreted by one piece of code whichever way they were stored. Only our bounded readers make it
/// (`BinaryPropertyList`, and JSON after `JSONStructure.check`), so a tree is never deeper than
/// `UntrustedFile.maxDepth` and never larger than its reader's value budget.
indirect enum PropertyValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case data(Data)
    /// Seconds since 2001-01-01 (a binary plist's date).
    case date(Double)
    case array([PropertyValue])
    case dictionary([String: PropertyValue])
    /// JSON `null` (or a binary plist's null marker).
    case null

    /// The entry `key` of a dictionary; nil for a missing key or a value that is not a dictionary.
    subscript(key: String) -> PropertyValue? {
        if case .dictionary(let d) = self { return d[key] }
        return nil
    }

    var dictionary: [String: PropertyValue]? { if case .dictionary(let d) = self { return d } else { return nil } }
    var array: [PropertyValue]? { if case .array(let a) = self { return a } else { return nil } }
    var string: String? { if case .string(let s) = self { return s } else { return nil } }

    /// An integer or a real as a Double (a real only when finite).
    var number: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .real(let d) where d.isFinite: return d
        default: return nil
        }
    }

    /// An integer, or a real that is exactly one (`46059.0`); never traps on a huge or non-finite real.
    var exactInteger: Int64? {
        switch self {
        case .integer(let i): return i
        case .real(let d): return Int64(exactly: d)
        default: return nil
        }
    }
}

extension PropertyValue {
    /// The most values made from one file (as for `BinaryPropertyList`): 4 MB of JSON holds 2 million.
    static let maxValues = 100_000

    /// Why JSON text was not turned into a tree (besides a `JSONStructure` refusal).
    enum JSONFailure: Error, Equatable {
        /// The parser refused the text.
        case notJSON
        /// More than `maxValues` values.
        case tooManyValues
    }

    /// Reads untrusted JSON text of at most `maxBytes` bytes and `maxValues` values, nested at most
    /// `UntrustedFile.maxDepth` levels, each key once per object (`JSONStructure.check`, whose refusal it throws;
    /// `kind` names the text there). `JSONSerialization` rather than `JSONDecoder` into this enum: trying each type
    /// in turn through `Decoder` costs a thrown error per value, minutes for a few MB in a debug build.
    static func json(_ data: Data, kind: String, maxBytes: Int) throws -> PropertyValue {
        // Each value but the first of a container follows a comma, and each container opens with a bracket: their
        // count bounds the values (from above: strings are not skipped). Counted first, as it is the cheapest
        // pass: the structure scan and the parser then see at most that many values.
        let separators = data.withUnsafeBytes { raw in
            raw.reduce(into: 0) { n, b in if b == UInt8(ascii: ",") || b == UInt8(ascii: "[") || b == UInt8(ascii: "{") { n += 1 } }
        }
        guard data.count <= maxBytes else { throw UntrustedFile.tooLarge(Int64(data.count), kind: kind, limit: maxBytes) }
        guard separators < maxValues else { throw JSONFailure.tooManyValues }
        try JSONStructure.check(data, kind: kind, maxBytes: maxBytes)
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
            throw JSONFailure.notJSON
        }
        var budget = maxValues
        return try value(of: object, budget: &budget)
    }

    /// JSONSerialization's `true` and `false` are one class of NSNumber on every platform (CFBoolean on Darwin,
    /// `__NSCFBoolean` in swift-corelibs-foundation); `as? Bool` would also take the numbers 0 and 1.
    private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true) as AnyObject))

    private static func value(of object: Any, budget: inout Int) throws -> PropertyValue {
        budget -= 1
        guard budget >= 0 else { throw JSONFailure.tooManyValues }
        switch object {
        case let s as String:
            return .string(s)
        case let a as [Any]:
            var items: [PropertyValue] = []
            items.reserveCapacity(min(a.count, max(budget, 0)))
            for e in a { items.append(try value(of: e, budget: &budget)) }
            return .array(items)
        case let d as [String: Any]:
            var entries: [String: PropertyValue] = [:]
            for (k, e) in d { entries[k] = try value(of: e, budget: &budget) }
            return .dictionary(entries)
        case let n as NSNumber:
            if ObjectIdentifier(type(of: n as AnyObject)) == booleanClass { return .bool(n.boolValue) }
            // An integer when the number is one exactly (Int64 range); any other number is a real.
            switch String(cString: n.objCType) {
            case "c", "C", "s", "S", "i", "I", "l", "q": return .integer(n.int64Value)
            case "L", "Q": return Int64(exactly: n.uint64Value).map { .integer($0) } ?? .real(n.doubleValue)
            default:
                let d = n.doubleValue
                if d == d.rounded(), let i = Int64(exactly: d), n.description == String(i) { return .integer(i) }
                return .real(d)
            }
        default:
            return .null  // NSNull
        }
    }
}
