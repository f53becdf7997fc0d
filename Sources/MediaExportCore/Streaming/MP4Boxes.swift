/// Why the bytes of an init or media segment are not one we read. The box is named by its four-character type
/// (`trun`, `avcC`); nothing here is parsed back from words.
public enum MP4Fault: Error, Equatable, Sendable {
    /// A box (or a field in it) runs past the bytes that hold it.
    case truncated(box: String)
    /// A field holds a value the format does not allow (a box size under 8, an unknown version).
    case malformed(box: String)
    /// A box the segment needs is absent (`moov`, `moof`, `mdhd`, a `trex` or `tfhd` for a track).
    case missing(box: String)
    /// A media segment names a track the init segment does not describe.
    case unknownTrack(id: UInt32)
}

/// One ISO BMFF box found in a byte range: its type, where it starts and where its payload lies.
struct MP4Box: Equatable {
    /// The four-character type, non-printable bytes shown as `?`.
    let type: String
    /// The offset of its first header byte.
    let start: Int
    /// Its payload, after the size, type and (for a 64-bit size) largesize fields.
    let payload: Range<Int>
    /// One past its last byte.
    var end: Int { payload.upperBound }
}

/// Bounds-checked big-endian reads over a segment's bytes: every offset is checked before it is read, and every size
/// the file gives is checked against the bytes that are there, so a hostile file ends in an `MP4Fault`, never a trap
/// and never an allocation sized by a field.
struct MP4Bytes {
    let bytes: [UInt8]

    /// The big-endian unsigned number of `count` (1…8) bytes at `at`, in `box`'s payload `within`.
    func number(at: Int, count: Int, within: Range<Int>, box: String) throws(MP4Fault) -> UInt64 {
        guard at >= within.lowerBound, count <= 8, at <= within.upperBound - count, within.upperBound <= bytes.count else {
            throw .truncated(box: box)
        }
        var value: UInt64 = 0
        for i in at..<at + count { value = value << 8 | UInt64(bytes[i]) }
        return value
    }

    func u8(_ at: Int, _ box: MP4Box) throws(MP4Fault) -> Int {
        Int(try number(at: at, count: 1, within: box.payload, box: box.type))
    }

    func u16(_ at: Int, _ box: MP4Box) throws(MP4Fault) -> Int {
        Int(try number(at: at, count: 2, within: box.payload, box: box.type))
    }

    func u32(_ at: Int, _ box: MP4Box) throws(MP4Fault) -> UInt32 {
        UInt32(try number(at: at, count: 4, within: box.payload, box: box.type))
    }

    func u64(_ at: Int, _ box: MP4Box) throws(MP4Fault) -> UInt64 {
        try number(at: at, count: 8, within: box.payload, box: box.type)
    }

    /// The boxes laid end to end in `range` (a file, or a container's payload after `skip` bytes of its own fields).
    /// A size of 0 runs to the end of the range; a size of 1 is followed by a 64-bit size.
    func boxes(in range: Range<Int>, container: String = "file") throws(MP4Fault) -> [MP4Box] {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { throw .truncated(box: container) }
        var out: [MP4Box] = []
        var p = range.lowerBound
        while p < range.upperBound {
            guard range.upperBound - p >= 8 else { throw .truncated(box: container) }
            let type = Self.fourCC(bytes[p + 4..<p + 8])
            let outer = p..<range.upperBound
            let size32 = try number(at: p, count: 4, within: outer, box: type)
            var header = 8
            var size = size32
            if size32 == 1 {
                size = try number(at: p + 8, count: 8, within: outer, box: type)
                header = 16
            } else if size32 == 0 {
                size = UInt64(range.upperBound - p)
            }
            guard size >= UInt64(header) else { throw .malformed(box: type) }
            guard size <= UInt64(range.upperBound - p) else { throw .truncated(box: type) }
            let end = p + Int(size)
            out.append(MP4Box(type: type, start: p, payload: p + header..<end))
            p = end
        }
        return out
    }

    /// The children of `box`, whose own fields take `skip` bytes before them (8 for `stsd`'s version, flags and count).
    func children(of box: MP4Box, skip: Int = 0) throws(MP4Fault) -> [MP4Box] {
        guard box.payload.count >= skip else { throw .truncated(box: box.type) }
        return try boxes(in: box.payload.lowerBound + skip..<box.payload.upperBound, container: box.type)
    }

    /// The first child of type `type`, or nil.
    func child(_ type: String, of box: MP4Box, skip: Int = 0) throws(MP4Fault) -> MP4Box? {
        try children(of: box, skip: skip).first { $0.type == type }
    }

    /// The first child of type `type`, or `MP4Fault.missing`.
    func required(_ type: String, of box: MP4Box, skip: Int = 0) throws(MP4Fault) -> MP4Box {
        guard let found = try child(type, of: box, skip: skip) else { throw .missing(box: type) }
        return found
    }

    /// Four bytes as text, anything outside printable ASCII as `?` (a type is only ever compared and shown).
    static func fourCC(_ raw: ArraySlice<UInt8>) -> String {
        String(decoding: raw.map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
