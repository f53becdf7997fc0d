import Foundation

/// Any JSON value, kept as written: how a baseline records a preset's settings (`presetSettings`), so that a
/// baseline stays readable and comparable whatever fields a later `Preset` gains or drops.
public enum JSONValue: Codable, Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Any number (JSON does not tell integers apart).
    case number(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object; its keys are sorted wherever it is shown or encoded with `.sortedKeys`.
    case object([String: JSONValue])

    /// Decodes whichever kind of value is there.
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// Encodes the value as it is (an encoder with `.sortedKeys` orders an object's keys).
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// Every leaf under a dotted path, sorted by path (`video.crf` → `23`); an array is one leaf (`[640,360]`).
    public func leaves(_ prefix: String = "") -> [(path: String, value: String)] {
        guard case .object(let o) = self else { return [(prefix, shown)] }
        return o.sorted { $0.key < $1.key }.flatMap { key, value in value.leaves(prefix.isEmpty ? key : "\(prefix).\(key)") }
    }

    /// The value as one short text: a whole number without decimals, a string without quotes.
    public var shown: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return "\(b)"
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? "\(Int64(n))" : "\(n)"
        case .string(let s): return s
        case .array(let a): return "[" + a.map(\.shown).joined(separator: ",") + "]"
        case .object: return "{" + leaves().map { "\($0.path): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }

    /// The leaves that differ between two values, in path order; nil where one lacks the leaf.
    public static func changedLeaves(from old: JSONValue, to new: JSONValue) -> [(path: String, old: String?, new: String?)] {
        let before = Dictionary(old.leaves(), uniquingKeysWith: { a, _ in a })
        let after = Dictionary(new.leaves(), uniquingKeysWith: { a, _ in a })
        return Set(before.keys).union(after.keys).sorted().compactMap { path in
            before[path] == after[path] ? nil : (path, before[path], after[path])
        }
    }
}
