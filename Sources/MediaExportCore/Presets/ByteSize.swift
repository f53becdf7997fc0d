import Foundation

/// A number of bytes as people write it: `400000`, `500k`, `16MB`, `1.5GiB`. Decimal units (`k`, `kB`, `M`, `MB`,
/// `G`, `GB`, `T`, `TB`) are powers of 1000, as storage and messengers count them; binary ones (`KiB`, `MiB`,
/// `GiB`, `TiB`) are powers of 1024. Case does not matter; a trailing `B` is optional. In JSON: a number or such a
/// string.
public struct ByteSize: Codable, Sendable, Equatable {
    /// The size.
    public var bytes: Int64

    /// Creates a size.
    public init(bytes: Int64) { self.bytes = bytes }

    /// Parses `text`; nil when it is not a positive size below 2^62 bytes.
    public init?(parsing text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard let split = t.firstIndex(where: { !($0.isNumber || $0 == ".") }) ?? Optional(t.endIndex) else { return nil }
        let number = String(t[..<split]), unit = t[split...].trimmingCharacters(in: .whitespaces).lowercased()
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII }), let value = Double(number), value.isFinite, value > 0 else { return nil }
        let scale: Double
        switch unit {
        case "", "b": scale = 1
        case "k", "kb": scale = 1e3
        case "m", "mb": scale = 1e6
        case "g", "gb": scale = 1e9
        case "t", "tb": scale = 1e12
        case "ki", "kib": scale = 1024
        case "mi", "mib": scale = 1_048_576
        case "gi", "gib": scale = 1_073_741_824
        case "ti", "tib": scale = 1_099_511_627_776
        default: return nil
        }
        let bytes = (value * scale).rounded(.down)
        guard bytes >= 1, bytes < 4.6e18 else { return nil }
        self.bytes = Int64(bytes)
    }

    /// Reads a number of bytes or a text such as `"16MB"`.
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Int64.self) {
            guard n > 0 else { throw DecodingError.dataCorruptedError(in: c, debugDescription: "must be a positive number of bytes, got \(n)") }
            bytes = n
            return
        }
        let text = try c.decode(String.self)
        guard let parsed = ByteSize(parsing: text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a size (use bytes, or e.g. 500k, 16MB, 1.5GiB)")
        }
        self = parsed
    }

    /// Writes the number of bytes.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(bytes)
    }
}
