import Foundation

/// A minimal, bounds-checked reader for the top-level dictionary of a binary property list (`bplist00`), enough
/// for an `.AAE`'s string and number fields. Foundation's own binary parser crashes on some malformed files
/// (a fuzzer found a top-level set that does), and an `.AAE` is untrusted input. It reads the top dictionary's
/// scalars only and never follows a container's references, so no nesting in the file can make it recurse.
enum BinaryPropertyList {
    /// A scalar value of the top-level dictionary; containers and data are skipped.
    enum Value: Equatable { case string(String), integer(Int64), real(Double), bool(Bool) }

    /// The top-level dictionary's scalar entries, or nil when the bytes are not a well-formed binary plist
    /// whose top object is a dictionary.
    static func topLevelDictionary(_ data: Data) -> [String: Value]? {
        let bytes = [UInt8](data)
        guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else { return nil }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6]), refSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else { return nil }
        func uint(_ at: Int, _ size: Int) -> Int? {
            guard at >= 0, size <= 8, at + size <= bytes.count else { return nil }
            var v: UInt64 = 0
            for i in 0..<size { v = v << 8 | UInt64(bytes[at + i]) }
            return v > UInt64(Int.max / 2) ? nil : Int(v)
        }
        guard let count = uint(trailer + 8, 8), let top = uint(trailer + 16, 8), let table = uint(trailer + 24, 8),
              count > 0, count < 1_000_000, top < count, table < trailer, table + count * offsetSize <= trailer else { return nil }
        func offset(_ ref: Int) -> Int? {
            guard ref >= 0, ref < count, let o = uint(table + ref * offsetSize, offsetSize), o >= 8, o < table else { return nil }
            return o
        }
        /// Length of an object whose marker's low nibble may say "a length integer follows".
        func length(_ at: Int) -> (count: Int, start: Int)? {
            let low = Int(bytes[at] & 0x0F)
            if low != 0x0F { return (low, at + 1) }
            guard at + 1 < bytes.count, bytes[at + 1] >> 4 == 0x1 else { return nil }
            let size = 1 << Int(bytes[at + 1] & 0x0F)
            guard let n = uint(at + 2, size), n < 1 << 24 else { return nil }
            return (n, at + 2 + size)
        }
        func object(_ ref: Int) -> Value? {
            guard let at = offset(ref) else { return nil }
            let marker = bytes[at]
            switch marker >> 4 {
            case 0x0: return marker == 0x08 ? .bool(false) : marker == 0x09 ? .bool(true) : nil
            case 0x1:
                let size = 1 << Int(marker & 0x0F)
                guard size <= 8, let v = uint(at + 1, size) else { return nil }
                return .integer(Int64(v))
            case 0x2:
                let size = 1 << Int(marker & 0x0F)
                guard at + 1 + size <= bytes.count else { return nil }
                if size == 8 {
                    var bits: UInt64 = 0
                    for i in 0..<8 { bits = bits << 8 | UInt64(bytes[at + 1 + i]) }
                    return .real(Double(bitPattern: bits))
                }
                if size == 4 {
                    var bits: UInt32 = 0
                    for i in 0..<4 { bits = bits << 8 | UInt32(bytes[at + 1 + i]) }
                    return .real(Double(Float(bitPattern: bits)))
                }
                return nil
            case 0x5:
                guard let (n, start) = length(at), start + n <= bytes.count else { return nil }
                return String(bytes: bytes[start..<start + n], encoding: .ascii).map { .string($0) }
            case 0x6:
                guard let (n, start) = length(at), start + 2 * n <= bytes.count else { return nil }
                let units = (0..<n).map { UInt16(bytes[start + 2 * $0]) << 8 | UInt16(bytes[start + 2 * $0 + 1]) }
                return .string(String(decoding: units, as: UTF16.self))
            default: return nil
            }
        }
        guard let at = offset(top), bytes[at] >> 4 == 0xD, let (n, start) = length(at),
              start + 2 * n * refSize <= bytes.count else { return nil }
        var result: [String: Value] = [:]
        for i in 0..<n {
            guard let keyRef = uint(start + i * refSize, refSize), let valueRef = uint(start + (n + i) * refSize, refSize) else { return nil }
            guard case .string(let key)? = object(keyRef) else { continue }
            if let value = object(valueRef) { result[key] = value }
        }
        return result
    }
}
