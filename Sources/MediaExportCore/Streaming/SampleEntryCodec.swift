/// The RFC 6381 codec string of a sample entry (ISO/IEC 14496-15 Annex E for AVC and HEVC, the AV1 ISOBMFF binding,
/// VP9's codec parameter string, ISO/IEC 14496-3 for AAC), read from its configuration box.
enum SampleEntryCodec {
    /// A sample entry's codec string (nil when its type or configuration is not one read here) and, for a visual
    /// entry, its coded size.
    struct Described: Equatable {
        var codec: String?
        var width: Int?
        var height: Int?
    }

    /// Reads `entry` (an `stsd` child). `visual` entries keep their boxes after 78 bytes of fields, audio ones after
    /// 28 (plus 16 or 36 for QuickTime's version 1 and 2 sound descriptions).
    static func describe(_ entry: MP4Box, in file: MP4Bytes, visual: Bool) throws(MP4Fault) -> Described {
        let at = entry.payload.lowerBound
        if visual {
            let width = try file.u16(at + 24, entry), height = try file.u16(at + 26, entry)
            let boxes = try file.children(of: entry, skip: 78)
            return Described(codec: try videoCodec(entry.type, boxes: boxes, in: file), width: width, height: height)
        }
        let version = try file.u16(at + 8, entry)
        let skip = 28 + (version == 1 ? 16 : version == 2 ? 36 : 0)
        let boxes = (try? file.children(of: entry, skip: skip)) ?? []
        return Described(codec: try audioCodec(entry.type, boxes: boxes, in: file))
    }

    private static func videoCodec(_ type: String, boxes: [MP4Box], in file: MP4Bytes) throws(MP4Fault) -> String? {
        func config(_ name: String) -> MP4Box? { boxes.first { $0.type == name } }
        switch type {
        case "avc1", "avc3":
            guard let avcC = config("avcC") else { return nil }
            let at = avcC.payload.lowerBound
            let parts = [try file.u8(at + 1, avcC), try file.u8(at + 2, avcC), try file.u8(at + 3, avcC)]
            return type + "." + parts.map { hex($0, digits: 2) }.joined()
        case "hvc1", "hev1":
            guard let hvcC = config("hvcC") else { return nil }
            return type + "." + (try hevc(hvcC, in: file))
        case "av01":
            guard let av1C = config("av1C") else { return nil }
            return try av1(av1C, in: file)
        case "vp09":
            guard let vpcC = config("vpcC") else { return nil }
            let at = vpcC.payload.lowerBound + 4
            let fields = [try file.u8(at, vpcC), try file.u8(at + 1, vpcC), try file.u8(at + 2, vpcC) >> 4]
            return "vp09." + fields.map { decimal($0, digits: 2) }.joined(separator: ".")
        default:
            return nil
        }
    }

    /// `P.C.TL.B`: profile (with a letter for a non-zero profile space), the 32 compatibility flags in reverse bit
    /// order in hex, the tier and level, and the constraint bytes with trailing zero bytes left off.
    private static func hevc(_ hvcC: MP4Box, in file: MP4Bytes) throws(MP4Fault) -> String {
        let at = hvcC.payload.lowerBound
        let first = try file.u8(at + 1, hvcC)
        let space = ["", "A", "B", "C"][first >> 6]
        let flags = UInt32(try file.number(at: at + 2, count: 4, within: hvcC.payload, box: "hvcC"))
        var constraints: [Int] = []
        for i in 0..<6 { constraints.append(try file.u8(at + 6 + i, hvcC)) }
        while constraints.last == 0 { constraints.removeLast() }
        let level = try file.u8(at + 12, hvcC)
        var parts = ["\(space)\(first & 0x1F)", hex(Int(flags.bitReversed), digits: 1), "\(first & 0x20 != 0 ? "H" : "L")\(level)"]
        parts += constraints.map { hex($0, digits: 2) }
        return parts.joined(separator: ".")
    }

    /// `av01.P.LLT.DD`: profile, level index and tier, bit depth.
    private static func av1(_ av1C: MP4Box, in file: MP4Bytes) throws(MP4Fault) -> String {
        let at = av1C.payload.lowerBound
        let profileLevel = try file.u8(at + 1, av1C), bits = try file.u8(at + 2, av1C)
        let profile = profileLevel >> 5
        let depth = bits & 0x40 == 0 ? 8 : (profile == 2 && bits & 0x20 != 0 ? 12 : 10)
        return "av01.\(profile).\(decimal(profileLevel & 0x1F, digits: 2))\(bits & 0x80 != 0 ? "H" : "M").\(decimal(depth, digits: 2))"
    }

    private static func audioCodec(_ type: String, boxes: [MP4Box], in file: MP4Bytes) throws(MP4Fault) -> String? {
        switch type {
        case "mp4a":
            guard let esds = boxes.first(where: { $0.type == "esds" }) else { return nil }
            return try ElementaryStreamDescriptor.codec(esds, in: file)
        case "Opus": return "opus"
        case "fLaC": return "flac"
        case "ac-3", "ec-3": return type
        default: return nil
        }
    }

    /// `value` in upper-case hex, at least `digits` digits.
    static func hex(_ value: Int, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// `value` in decimal, at least `digits` digits.
    static func decimal(_ value: Int, digits: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

/// MPEG-4 Systems' `esds` (ISO/IEC 14496-1 7.2.6): an ES descriptor holding a decoder configuration (the object type,
/// 0x40 for MPEG-4 audio) and its decoder-specific info (the AudioSpecificConfig, whose first 5 bits, or 6 more after
/// 31, are the audio object type: 2 for AAC-LC, 5 for HE-AAC).
enum ElementaryStreamDescriptor {
    /// `mp4a.40.2`, or `mp4a.6B` for an object type other than MPEG-4 audio; nil when the descriptors are not there.
    static func codec(_ esds: MP4Box, in file: MP4Bytes) throws(MP4Fault) -> String? {
        let box = esds.payload
        guard var es = try descriptor(at: box.lowerBound + 4, in: box, file: file), es.tag == 3 else { return nil }
        let flags = Int(try file.number(at: es.body.lowerBound + 2, count: 1, within: es.body, box: "esds"))
        var p = es.body.lowerBound + 3 + (flags & 0x80 != 0 ? 2 : 0) + (flags & 0x20 != 0 ? 2 : 0)
        if flags & 0x40 != 0 { p += 1 + Int(try file.number(at: p, count: 1, within: es.body, box: "esds")) }
        guard p <= es.body.upperBound else { throw .truncated(box: "esds") }
        es = (es.tag, p..<es.body.upperBound)
        guard let config = try descriptor(at: es.body.lowerBound, in: es.body, file: file), config.tag == 4 else { return nil }
        let objectType = try file.u8(config.body.lowerBound, esds)
        guard objectType == 0x40 else { return "mp4a." + SampleEntryCodec.hex(objectType, digits: 2) }
        guard let info = try descriptor(at: config.body.lowerBound + 13, in: config.body, file: file), info.tag == 5 else {
            return "mp4a.40"
        }
        let head = Int(try file.number(at: info.body.lowerBound, count: 1, within: info.body, box: "esds"))
        var audioObject = head >> 3
        if audioObject == 31 {
            let two = Int(try file.number(at: info.body.lowerBound, count: 2, within: info.body, box: "esds"))
            audioObject = 32 + (two >> 5 & 0x3F)
        }
        return "mp4a.40.\(audioObject)"
    }

    /// The descriptor at `at`: its tag and body (the length is 1–4 bytes of 7 bits each); nil when `at` is at the end.
    private static func descriptor(at: Int, in range: Range<Int>, file: MP4Bytes) throws(MP4Fault) -> (tag: Int, body: Range<Int>)? {
        guard at < range.upperBound else { return nil }
        let tag = Int(try file.number(at: at, count: 1, within: range, box: "esds"))
        var length = 0, p = at + 1
        for _ in 0..<4 {
            let byte = Int(try file.number(at: p, count: 1, within: range, box: "esds"))
            length = length << 7 | byte & 0x7F
            p += 1
            if byte & 0x80 == 0 { break }
        }
        guard length <= range.upperBound - p else { throw .truncated(box: "esds") }
        return (tag, p..<p + length)
    }
}

extension UInt32 {
    /// The bits in reverse order (bit 0 becomes bit 31).
    var bitReversed: UInt32 {
        var value = self, out: UInt32 = 0
        for _ in 0..<32 { out = out << 1 | value & 1; value >>= 1 }
        return out
    }
}
