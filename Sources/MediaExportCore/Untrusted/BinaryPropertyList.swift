import Foundation

/// A bounds-checked reader of binary property lists (`bplist00`): the `.AAE` envelope's top-level dictionary, and
/// the binary plist that slo-mo adjustment data is. Foundation's own binary parser crashes on some malformed files
/// (a fuzzer found a top-level set that does), and an `.AAE` is untrusted input. Every offset, length and reference
/// is checked before it is followed; a tree is at most `maxDepth` containers deep, a container that holds itself
/// (directly or further down) is an error rather than a loop, and a file whose references share objects cannot make
/// more than `maxValues` values (2 references to the same array at each of 64 levels would be 2^64).
enum BinaryPropertyList {
    /// Why the bytes are not a binary plist we read; the reason names the object (by its number in the file).
    struct Malformed: Error, Equatable, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// The deepest nesting of arrays and dictionaries decoded (as for JSON and XML: real files nest 2–6 levels).
    static let maxDepth = UntrustedFile.maxDepth
    /// The most values one `decode` makes, shared objects counted each time they are reached.
    static let maxValues = 100_000

    /// The top-level dictionary's entries, or nil when the bytes are not a well-formed binary plist whose top
    /// object is a dictionary. Only scalars, data and dates are read: an entry whose value is a container (or
    /// cannot be read) is present with a nil value, so that the caller can tell "there but unreadable" from
    /// "missing". Nothing is descended into, so no nesting in the file matters here. A key that is not a string
    /// is skipped; of a key given twice, the last is kept.
    static func topLevelDictionary(_ data: Data) -> [String: PropertyValue?]? {
        guard let file = try? File(data), let (refs, count) = try? file.dictionaryRefs(file.top) else { return nil }
        var result: [String: PropertyValue?] = [:]
        for i in 0..<count {
            guard let keyRef = file.ref(refs, i), let valueRef = file.ref(refs, count + i) else { return nil }
            guard case .string(let key)? = try? file.scalar(keyRef) else { continue }
            result[key] = .some(try? file.scalar(valueRef))
        }
        return result
    }

    /// The whole tree of a binary plist: dictionaries (string keys only, each key once), arrays, strings,
    /// integers, reals, booleans, data and dates. Sets, UIDs (`NSKeyedArchiver`'s references) and anything else
    /// are refused with a reason, as is every bound above.
    static func decode(_ data: Data) throws -> PropertyValue {
        let file = try File(data)
        var budget = maxValues
        var path: [Int] = []
        return try file.value(file.top, path: &path, budget: &budget)
    }

    /// One file's bytes and trailer, with the checked accessors every read goes through.
    private struct File {
        let bytes: [UInt8]
        let offsetSize: Int, refSize: Int, count: Int, top: Int, table: Int

        init(_ data: Data) throws {
            let bytes = [UInt8](data)
            guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else {
                throw Malformed(reason: "not a binary property list (no bplist00 header, or shorter than its trailer)")
            }
            self.bytes = bytes
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            refSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
                throw Malformed(reason: "trailer: offset size \(offsetSize) or reference size \(refSize) is not 1 to 8")
            }
            count = Self.uint(bytes, trailer + 8, 8) ?? -1
            top = Self.uint(bytes, trailer + 16, 8) ?? -1
            table = Self.uint(bytes, trailer + 24, 8) ?? -1
            guard count > 0, count < 1_000_000, top >= 0, top < count, table >= 8, table < trailer,
                  table + count * offsetSize <= trailer else {
                throw Malformed(reason: "trailer: object count, top object or offset table out of range")
            }
        }

        /// A big-endian unsigned integer of `size` bytes at `at`; nil when out of the bytes or too large to be a
        /// count or an offset.
        static func uint(_ bytes: [UInt8], _ at: Int, _ size: Int) -> Int? {
            guard at >= 0, size >= 1, size <= 8, at <= bytes.count - size else { return nil }
            var v: UInt64 = 0
            for i in 0..<size { v = v << 8 | UInt64(bytes[at + i]) }
            return v > UInt64(Int.max / 2) ? nil : Int(v)
        }

        /// The `i`th reference of a container whose references start at `refs`.
        func ref(_ refs: Int, _ i: Int) -> Int? { Self.uint(bytes, refs + i * refSize, refSize) }

        /// Where object `ref` starts: inside the object area (after the header, before the offset table).
        func offset(_ ref: Int) throws -> Int {
            guard ref >= 0, ref < count, let o = Self.uint(bytes, table + ref * offsetSize, offsetSize), o >= 8, o < table else {
                throw Malformed(reason: "object \(ref): reference or offset out of range")
            }
            return o
        }

        /// The element count of the object at `at` (its marker's low nibble, or a length integer after it when
        /// that is 0xF) and where its contents start.
        func length(_ at: Int) throws -> (count: Int, start: Int) {
            let low = Int(bytes[at] & 0x0F)
            if low != 0x0F { return (low, at + 1) }
            guard at + 1 < bytes.count, bytes[at + 1] >> 4 == 0x1, bytes[at + 1] & 0x0F <= 3,
                  let n = Self.uint(bytes, at + 2, 1 << Int(bytes[at + 1] & 0x0F)), n < 1 << 24 else {
                throw Malformed(reason: "object at byte \(at): bad length")
            }
            return (n, at + 2 + (1 << Int(bytes[at + 1] & 0x0F)))
        }

        /// A dictionary's references (keys, then values) and its entry count.
        func dictionaryRefs(_ ref: Int) throws -> (refs: Int, count: Int) {
            let at = try offset(ref)
            guard bytes[at] >> 4 == 0xD else { throw Malformed(reason: "object \(ref) is not a dictionary") }
            let (n, start) = try length(at)
            guard start + 2 * n * refSize <= bytes.count else { throw Malformed(reason: "dictionary \(ref) runs past the end") }
            return (start, n)
        }

        /// A non-container object: a string, number, boolean, data, date or null.
        func scalar(_ ref: Int) throws -> PropertyValue {
            let at = try offset(ref)
            let marker = bytes[at]
            func unsupported() -> Malformed { Malformed(reason: "object \(ref): unsupported type 0x\(String(marker, radix: 16))") }
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x00: return .null
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: throw unsupported()
                }
            case 0x1:
                // 1, 2 and 4 bytes are unsigned, 8 bytes signed; 16-byte integers are not read.
                let size = 1 << Int(marker & 0x0F)
                guard size <= 8, at + 1 + size <= bytes.count else { throw unsupported() }
                var v: UInt64 = 0
                for i in 0..<size { v = v << 8 | UInt64(bytes[at + 1 + i]) }
                return .integer(size == 8 ? Int64(bitPattern: v) : Int64(v))
            case 0x2, 0x3:
                // Reals of 4 or 8 bytes; a date (0x33) is an 8-byte real.
                let size = 1 << Int(marker & 0x0F)
                guard marker >> 4 == 0x2 || marker == 0x33, size == 4 || size == 8, at + 1 + size <= bytes.count else { throw unsupported() }
                var bits: UInt64 = 0
                for i in 0..<size { bits = bits << 8 | UInt64(bytes[at + 1 + i]) }
                let d = size == 8 ? Double(bitPattern: bits) : Double(Float(bitPattern: UInt32(bits)))
                return marker == 0x33 ? .date(d) : .real(d)
            case 0x4:
                let (n, start) = try length(at)
                guard start + n <= bytes.count else { throw Malformed(reason: "data \(ref) runs past the end") }
                return .data(Data(bytes[start..<start + n]))
            case 0x5:
                let (n, start) = try length(at)
                guard start + n <= bytes.count else { throw Malformed(reason: "string \(ref) runs past the end") }
                let slice = bytes[start..<start + n]
                guard slice.allSatisfy({ $0 < 0x80 }) else { throw Malformed(reason: "string \(ref) is not ASCII") }
                return .string(String(decoding: slice, as: UTF8.self))
            case 0x6:
                let (n, start) = try length(at)
                guard start + 2 * n <= bytes.count else { throw Malformed(reason: "string \(ref) runs past the end") }
                let units = (0..<n).map { UInt16(bytes[start + 2 * $0]) << 8 | UInt16(bytes[start + 2 * $0 + 1]) }
                return .string(String(decoding: units, as: UTF16.self))
            default:
                throw unsupported()
            }
        }

        /// Object `ref` and everything under it. `path` holds the containers being read (a reference to one of
        /// them is a cycle); `budget` counts down the values made.
        func value(_ ref: Int, path: inout [Int], budget: inout Int) throws -> PropertyValue {
            budget -= 1
            guard budget >= 0 else { throw Malformed(reason: "more than \(maxValues) values") }
            let at = try offset(ref)
            let kind = bytes[at] >> 4
            guard kind == 0xA || kind == 0xD else { return try scalar(ref) }
            guard !path.contains(ref) else { throw Malformed(reason: "object \(ref) contains itself") }
            guard path.count < maxDepth else { throw Malformed(reason: "nested more than \(maxDepth) levels deep") }
            path.append(ref)
            defer { path.removeLast() }
            if kind == 0xA {
                let (n, start) = try length(at)
                guard start + n * refSize <= bytes.count else { throw Malformed(reason: "array \(ref) runs past the end") }
                var items: [PropertyValue] = []
                items.reserveCapacity(min(n, budget))
                for i in 0..<n {
                    guard let r = self.ref(start, i) else { throw Malformed(reason: "array \(ref) runs past the end") }
                    items.append(try value(r, path: &path, budget: &budget))
                }
                return .array(items)
            }
            let (start, n) = try dictionaryRefs(ref)
            var entries: [String: PropertyValue] = [:]
            for i in 0..<n {
                guard let keyRef = self.ref(start, i), let valueRef = self.ref(start, n + i) else {
                    throw Malformed(reason: "dictionary \(ref) runs past the end")
                }
                budget -= 1
                guard budget >= 0 else { throw Malformed(reason: "more than \(maxValues) values") }
                guard case .string(let key) = try scalar(keyRef) else { throw Malformed(reason: "dictionary \(ref) has a key that is not a string") }
                guard entries[key] == nil else {
                    throw Malformed(reason: "dictionary \(ref) has the key \(UntrustedFile.echo(key)) twice")
                }
                entries[key] = try value(valueRef, path: &path, budget: &budget)
            }
            return .dictionary(entries)
        }
    }
}
