import Testing
@testable import MediaExportCore

/// Hand-built ISO BMFF boxes: an init segment with an H.264 and an AAC track, and a media segment of both.
enum BoxKit {
    static func be(_ value: UInt64, _ count: Int) -> [UInt8] { (0..<count).reversed().map { UInt8(value >> (8 * UInt64($0)) & 0xFF) } }
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be(UInt64(payload.count + 8), 4) + Array(type.utf8) + payload }
    static func box(_ type: String, _ children: [[UInt8]]) -> [UInt8] { box(type, children.flatMap { $0 }) }
    static func full(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version] + be(UInt64(flags), 3) + payload)
    }

    static func tkhd(id: UInt32, width: Int, height: Int) -> [UInt8] {
        full("tkhd", be(0, 8) + be(UInt64(id), 4) + [UInt8](repeating: 0, count: 60) + be(UInt64(width << 16), 4) + be(UInt64(height << 16), 4))
    }

    static func mdhd(_ timescale: UInt32) -> [UInt8] { full("mdhd", be(0, 8) + be(UInt64(timescale), 4) + be(0, 8)) }
    static func hdlr(_ type: String) -> [UInt8] { full("hdlr", be(0, 4) + Array(type.utf8) + be(0, 12) + [0]) }

    static func trak(id: UInt32, handler: String, timescale: UInt32, entry: [UInt8], width: Int = 0, height: Int = 0) -> [UInt8] {
        let stsd = full("stsd", be(1, 4) + entry)
        let mdia = box("mdia", [mdhd(timescale), hdlr(handler), box("minf", [box("stbl", [stsd])])])
        return box("trak", [tkhd(id: id, width: width, height: height), mdia])
    }

    static func visualEntry(_ type: String, config: [UInt8], width: Int = 640, height: Int = 360) -> [UInt8] {
        box(type, be(0, 6) + be(1, 2) + be(0, 16) + be(UInt64(width), 2) + be(UInt64(height), 2) + be(0, 50) + config)
    }

    static let avcC = box("avcC", [0x01, 0x64, 0x00, 0x1F, 0xFF, 0xE0, 0x00])
    static let esds: [UInt8] = full("esds", [0x03, 0x19, 0x00, 0x01, 0x00, 0x04, 0x11, 0x40, 0x15] + be(0, 11)
        + [0x05, 0x02, 0x12, 0x10, 0x06, 0x01, 0x02])
    static let mp4a = box("mp4a", be(0, 6) + be(1, 2) + be(0, 8) + be(2, 2) + be(16, 2) + be(0, 4) + be(48000 << 16, 4) + esds)

    static func trex(_ id: UInt32, duration: UInt32 = 0, flags: UInt32 = 0) -> [UInt8] {
        full("trex", be(UInt64(id), 4) + be(1, 4) + be(UInt64(duration), 4) + be(0, 4) + be(UInt64(flags), 4))
    }

    /// ftyp + moov: track 1 H.264 640x360 at 1/15360, track 2 AAC at 1/48000 (1024-sample frames by `trex`).
    static func initSegment(video: [UInt8] = visualEntry("avc1", config: avcC)) -> [UInt8] {
        let moov = box("moov", [
            trak(id: 1, handler: "vide", timescale: 15360, entry: video, width: 640, height: 360),
            trak(id: 2, handler: "soun", timescale: 48000, entry: mp4a),
            box("mvex", [trex(1), trex(2, duration: 1024, flags: 0x0200_0000)]),
        ])
        return box("ftyp", Array("iso6".utf8) + be(0, 4)) + moov
    }

    /// A traf: tfhd (default-base-is-moof, default duration and flags), tfdt v1, trun with a data offset, the first
    /// sample's flags and per-sample sizes.
    static func traf(id: UInt32, decodeTime: UInt64, duration: UInt32?, flags: UInt32?, firstFlags: UInt32?,
                     sizes: [UInt32], dataOffset: Int32) -> [UInt8] {
        var tfhdFlags: UInt32 = 0x02_0000, tfhdBody = be(UInt64(id), 4)
        if let duration { tfhdFlags |= 0x08; tfhdBody += be(UInt64(duration), 4) }
        if let flags { tfhdFlags |= 0x20; tfhdBody += be(UInt64(flags), 4) }
        var trunFlags: UInt32 = 0x201, trunBody = be(UInt64(sizes.count), 4) + be(UInt64(UInt32(bitPattern: dataOffset)), 4)
        if let firstFlags { trunFlags |= 0x004; trunBody += be(UInt64(firstFlags), 4) }
        trunBody += sizes.flatMap { be(UInt64($0), 4) }
        return box("traf", [full("tfhd", flags: tfhdFlags, tfhdBody), full("tfdt", version: 1, be(decodeTime, 8)),
                            full("trun", flags: trunFlags, trunBody)])
    }

    /// styp + moof + mdat: 4 video frames of 512 units (the first a key frame of 100 bytes, then 10 bytes each) and
    /// 2 AAC frames of 20 bytes, the video first in mdat; starting at `second` seconds.
    static func mediaSegment(second: UInt64 = 0, keyFirst: Bool = true) -> [UInt8] {
        func moof(_ offset: Int32) -> [UInt8] {
            box("moof", [full("mfhd", be(1, 4)),
                         traf(id: 1, decodeTime: second * 15360, duration: 512, flags: 0x0101_0000,
                              firstFlags: keyFirst ? 0x0200_0000 : nil, sizes: [100, 10, 10, 10], dataOffset: offset),
                         traf(id: 2, decodeTime: second * 48000, duration: nil, flags: nil, firstFlags: nil, sizes: [20, 20],
                              dataOffset: offset + 130)])
        }
        let size = Int32(moof(0).count)
        return box("styp", Array("msdh".utf8) + be(0, 4)) + moof(size + 8) + box("mdat", [UInt8](repeating: 7, count: 170))
    }
}

@Suite struct FragmentedMP4Tests {
    @Test func initSegmentGivesTracksCodecsAndDefaults() throws {
        let initSegment = try InitSegment(bytes: BoxKit.initSegment())
        #expect(initSegment.tracks.count == 2)
        let video = initSegment.tracks[0], audio = initSegment.tracks[1]
        #expect(video.kind == .video && video.id == 1 && video.timescale == 15360)
        #expect(video.codec == "avc1.64001F" && video.width == 640 && video.height == 360)
        #expect(audio.kind == .audio && audio.codec == "mp4a.40.2" && audio.width == nil)
        #expect(audio.defaults.duration == 1024 && audio.defaults.flags == 0x0200_0000)
    }

    @Test func hevcAndAV1CodecStrings() throws {
        // HEVC Main, level 3.1 (93), main tier, constraint byte 0xB0: the example of ISO/IEC 14496-15 Annex E.
        let hvcC = BoxKit.box("hvcC", [0x01, 0x01, 0x60, 0x00, 0x00, 0x00, 0xB0, 0, 0, 0, 0, 0, 93] + BoxKit.be(0, 10))
        let hevc = try InitSegment(bytes: BoxKit.initSegment(video: BoxKit.visualEntry("hvc1", config: hvcC)))
        #expect(hevc.tracks[0].codec == "hvc1.1.6.L93.B0")
        // AV1 main profile, level 4 (seq_level_idx 4 = 3.0), main tier, 8 bits.
        let av1C = BoxKit.box("av1C", [0x81, 0x04, 0x0C, 0x00])
        let av1 = try InitSegment(bytes: BoxKit.initSegment(video: BoxKit.visualEntry("av01", config: av1C)))
        #expect(av1.tracks[0].codec == "av01.0.04M.08")
        let tenBit = BoxKit.box("av1C", [0x81, 0x08, 0xCC, 0x00])
        #expect(try InitSegment(bytes: BoxKit.initSegment(video: BoxKit.visualEntry("av01", config: tenBit))).tracks[0].codec == "av01.0.08H.10")
    }

    @Test func mediaSegmentGivesTimesSyncAndKeyFrameRange() throws {
        let initSegment = try InitSegment(bytes: BoxKit.initSegment())
        let bytes = BoxKit.mediaSegment(second: 4)
        let facts = try SegmentFacts(name: "seg_00001.m4s", bytes: bytes, initSegment: initSegment)
        #expect(facts.bytes == bytes.count && facts.tracks.count == 2)
        let video = try #require(facts.tracks.first { $0.kind == .video })
        #expect(video.startUnits == 4 * 15360 && video.start == 4 && video.durationUnits == 2048 && video.sampleCount == 4)
        #expect(video.startsWithSync)
        let audio = try #require(facts.tracks.first { $0.kind == .audio })
        #expect(audio.durationUnits == 2048 && audio.sampleCount == 2 && audio.startsWithSync)
        // The range runs from the moof (after the 16-byte styp) to the end of the first, 100-byte, video frame.
        let range = try #require(facts.firstVideoSample)
        let moofSize = bytes.count - 16 - 178
        #expect(range.offset == 16 && range.length == moofSize + 8 + 100)
        // Without first_sample_flags, the default (non-sync, depends on others) is the first sample's.
        let late = try SegmentFacts(name: "x", bytes: BoxKit.mediaSegment(keyFirst: false), initSegment: initSegment)
        #expect(late.tracks.first { $0.kind == .video }?.startsWithSync == false)
    }

    /// Every prefix of both segments, and every byte of them flipped, either reads or throws an `MP4Fault`: never a trap.
    @Test func truncatedAndCorruptedBytesThrowNeverTrap() throws {
        let initBytes = BoxKit.initSegment(), segment = BoxKit.mediaSegment()
        let initSegment = try InitSegment(bytes: initBytes)
        var faults = 0
        for n in 0..<initBytes.count where (try? InitSegment(bytes: Array(initBytes.prefix(n)))) == nil { faults += 1 }
        for n in 0..<segment.count where (try? SegmentFacts(name: "s", bytes: Array(segment.prefix(n)), initSegment: initSegment)) == nil {
            faults += 1
        }
        #expect(faults > 100)
        for i in initBytes.indices {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0xFF] {
                var bytes = initBytes
                bytes[i] = value
                _ = try? InitSegment(bytes: bytes)
            }
        }
        for i in segment.indices {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0xFF] {
                var bytes = segment
                bytes[i] = value
                _ = try? SegmentFacts(name: "s", bytes: bytes, initSegment: initSegment)
            }
        }
    }

    @Test func hostileSizesAreFaults() throws {
        let initSegment = try InitSegment(bytes: BoxKit.initSegment())
        // A box that claims more than there is, a size under its header, a 64-bit size past the end.
        #expect(throws: MP4Fault.truncated(box: "moov")) { try InitSegment(bytes: BoxKit.be(1000, 4) + Array("moov".utf8)) }
        #expect(throws: MP4Fault.malformed(box: "moov")) { try InitSegment(bytes: BoxKit.be(4, 4) + Array("moov".utf8)) }
        #expect(throws: MP4Fault.truncated(box: "moof")) {
            try SegmentFacts(name: "s", bytes: BoxKit.be(1, 4) + Array("moof".utf8) + BoxKit.be(UInt64.max, 8), initSegment: initSegment)
        }
        // A trun of 4 billion samples with per-sample sizes in a few bytes: refused before any is read.
        let trun = BoxKit.full("trun", flags: 0x200, BoxKit.be(0xFFFF_FFFF, 4) + BoxKit.be(0, 8))
        let traf = BoxKit.box("traf", [BoxKit.full("tfhd", flags: 0x02_0000, BoxKit.be(1, 4)), BoxKit.full("tfdt", BoxKit.be(0, 4)), trun])
        #expect(throws: MP4Fault.truncated(box: "trun")) {
            try SegmentFacts(name: "s", bytes: BoxKit.box("moof", [traf]), initSegment: initSegment)
        }
        // 4 billion samples with no per-sample field: summed, not looped.
        let bare = BoxKit.full("trun", flags: 0, BoxKit.be(0xFFFF_FFFF, 4))
        let bareTraf = BoxKit.box("traf", [BoxKit.full("tfhd", flags: 0x02_0008, BoxKit.be(2, 4) + BoxKit.be(512, 4)),
                                           BoxKit.full("tfdt", BoxKit.be(0, 4)), bare])
        let facts = try SegmentFacts(name: "s", bytes: BoxKit.box("moof", [bareTraf]), initSegment: initSegment)
        // Compared as a Bool: `#expect` on an optional UInt64 trips AddressSanitizer inside the runtime's AnyHashable
        // conversion (Swift 6.3, swift-testing's __checkBinaryOperation), not in the code under test.
        let summed = facts.tracks.first?.durationUnits == 0xFFFF_FFFF * 512
        #expect(summed, "\(String(describing: facts.tracks.first?.durationUnits))")
        // A track the init segment lacks, and a segment with no moof.
        let stranger = BoxKit.box("traf", [BoxKit.full("tfhd", BoxKit.be(9, 4)), BoxKit.full("tfdt", BoxKit.be(0, 4))])
        #expect(throws: MP4Fault.unknownTrack(id: 9)) { try SegmentFacts(name: "s", bytes: BoxKit.box("moof", [stranger]), initSegment: initSegment) }
        #expect(throws: MP4Fault.missing(box: "moof")) { try SegmentFacts(name: "s", bytes: BoxKit.box("mdat", [1, 2]), initSegment: initSegment) }
    }
}
