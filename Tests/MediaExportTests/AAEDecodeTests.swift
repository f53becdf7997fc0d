import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// Issue 16, item 1: every `.AAE` of `Fixtures/aae/` (made by `Fixtures/make-aae-fixtures.py`) decoded through
/// `AdjustmentInfo.load(path:)` with zlib, and hostile records: a deflate bomb, truncated DEFLATE, 10 000-deep JSON,
/// a self-referencing binary plist, and seeded random mutations of every fixture.
@Suite("AAE decoding") struct AAEDecodeTests {
    static func fixture(_ name: String) -> String { TestSupport.fixture("aae/" + name) }
    static func load(_ name: String) throws -> AdjustmentInfo { try AdjustmentInfo.load(path: fixture(name)) }

    /// The fixtures' names, for the mutation loop.
    static let fixtureNames = ["trim.AAE", "slomo.AAE", "photo-trim-mute.AAE", "portrait.AAE", "thirdparty.AAE", "binary-envelope.AAE",
                               "zlib-wrapped.AAE", "hostile-bomb.AAE", "hostile-truncated.AAE", "hostile-deep-json.AAE", "hostile-cycle.AAE"]

    /// The trim of `trim.AAE`: 46059/90000 s to 248936/90000 s (0.51176… to 2.76595…).
    static let realTrim = AppleAdjustment(identifier: "Trim", settings: .trim(start: 46059.0 / 90000, end: 248936.0 / 90000))

    // MARK: the fixtures

    @Test func trimRecordOfComAppleVideo() throws {
        let info = try Self.load("trim.AAE")
        #expect(info == AdjustmentInfo(formatIdentifier: "com.apple.video", formatVersion: "1.0", baseVersion: 0,
                                       editor: "com.apple.mobileslideshow", adjustments: [Self.realTrim]))
        guard case .trim(let start, let end)? = info.adjustments.first?.settings else { Issue.record("no trim"); return }
        #expect(start == 0.5117666666666667 && end == 2.7659555555555557)
    }

    @Test func binaryEnvelopeAndZlibWrappedDataGiveTheSameTrim() throws {
        let expected = AdjustmentInfo(formatIdentifier: "com.apple.video", formatVersion: "1.0", baseVersion: 0,
                                      editor: "com.apple.mobileslideshow", adjustments: [Self.realTrim])
        #expect(try Self.load("binary-envelope.AAE") == expected)
        #expect(try Self.load("zlib-wrapped.AAE") == expected)
    }

    @Test func slowMotionRecordIsABinaryPlist() throws {
        let info = try Self.load("slomo.AAE")
        // 239/600 s = 0.39833… s from the start, 1114/600 s = 1.85666… s long, at 1/8 speed.
        #expect(info == AdjustmentInfo(formatIdentifier: "com.apple.video.slomo", formatVersion: "1.1", baseVersion: 0,
                                       editor: "com.apple.mobileslideshow",
                                       adjustments: [AppleAdjustment(identifier: "SlowMotion", settings: .slowMotion(
                                           rate: 0.125, regions: [SlowMotionRegion(start: 239.0 / 600, duration: 1114.0 / 600)]))]))
    }

    @Test func photoRecordWithTrimAndMute() throws {
        let info = try Self.load("photo-trim-mute.AAE")
        #expect(info == AdjustmentInfo(formatIdentifier: "com.apple.photo", formatVersion: "1.4", baseVersion: 1, editor: "com.apple.mobileslideshow",
                                       adjustments: [AppleAdjustment(identifier: "Trim", settings: .trim(start: 1.5, end: 2.8)),
                                                     AppleAdjustment(identifier: "Mute", settings: .mute)]))
    }

    @Test func cinematicRecordIsKeptByName() throws {
        let info = try Self.load("portrait.AAE")
        #expect(info.adjustments == [AppleAdjustment(identifier: "PortraitVideo", settings: .other)])
        #expect(info.undecodable == nil)
    }

    @Test func thirdPartyDataIsOpaque() throws {
        let info = try Self.load("thirdparty.AAE")
        #expect(info == AdjustmentInfo(formatIdentifier: "com.example.editor", formatVersion: "2.3", baseVersion: 0, editor: "com.example.editor",
                                       undecodable: "adjustmentData of com.example.editor is opaque (third-party editor)"))
    }

    @Test func decodedRecordsEncodeForResourcesJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let trim = String(decoding: try encoder.encode(try Self.load("trim.AAE")), as: UTF8.self)
        #expect(trim == #"{"adjustments":[{"enabled":true,"end":2.7659555555555557,"identifier":"Trim","kind":"trim","start":0.5117666666666667}],"#
                + #""baseVersion":0,"editor":"com.apple.mobileslideshow","formatIdentifier":"com.apple.video","formatVersion":"1.0"}"#)
        let slomo = String(decoding: try encoder.encode(try Self.load("slomo.AAE")), as: UTF8.self)
        #expect(slomo == #"{"adjustments":[{"enabled":true,"identifier":"SlowMotion","kind":"slowMotion","rate":0.125,"#
                + #""regions":[{"duration":1.8566666666666667,"start":0.3983333333333333}]}],"baseVersion":0,"editor":"com.apple.mobileslideshow","#
                + #""formatIdentifier":"com.apple.video.slomo","formatVersion":"1.1"}"#)
    }

    // MARK: hostile records

    /// An XML `.AAE` of `com.apple.photo` whose `adjustmentData` element holds `text` as written.
    static func xmlAAE(dataText text: String) -> Data {
        Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>adjustmentFormatIdentifier</key><string>com.apple.photo</string>
        <key>adjustmentData</key>
        \t<data>\(text)</data></dict></plist>
        """.utf8)
    }

    /// Issue 29: Foundation skips what is not base64 in `<data>`, so such data read as "empty"; it is named.
    @Test(arguments: ["this is not base64!", "!!!!", "AAAA*AAA"])
    func adjustmentDataThatIsNotBase64IsNamed(_ text: String) throws {
        let info = try AdjustmentInfo.parse(Self.xmlAAE(dataText: text), path: "x.aae")
        #expect(info.undecodable == "adjustmentData of com.apple.photo is not base64", "\(String(describing: info.undecodable))")
        #expect(info.adjustments.isEmpty)
    }

    /// Base64 wrapped over lines and indented, as Photos and plistlib write it, is still read; an empty element is empty.
    @Test func wrappedBase64IsReadAndEmptyDataIsEmpty() throws {
        let payload = try Self.payload("trim.AAE").base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        let wrapped = payload.split(separator: "\n").map { "\n\t" + $0 }.joined() + "\n"
        #expect(try AdjustmentInfo.parse(Self.xmlAAE(dataText: wrapped), path: "x.aae").adjustments == [Self.realTrim])
        #expect(try AdjustmentInfo.parse(Self.xmlAAE(dataText: ""), path: "x.aae").undecodable == "adjustmentData of com.apple.photo is empty")
    }

    @Test func deflateBombStopsAtFourMegabytesQuickly() throws {
        let began = Date()
        let info = try Self.load("hostile-bomb.AAE")
        #expect(Date().timeIntervalSince(began) < 2)
        #expect(info.undecodable == "adjustmentData of com.apple.photo is neither a binary plist nor DEFLATE data that inflates completely to at most 4 MB")
        #expect(info.adjustments.isEmpty && info.formatIdentifier == "com.apple.photo")
        // The inflater itself: the whole 8 MB under an 8 MB bound, nil under 4 MB.
        let payload = try Self.payload("hostile-bomb.AAE")
        #expect(Inflate.raw(payload, limit: 9 << 20)?.count == (8 << 20) + 18)
        #expect(Inflate.raw(payload, limit: 4 << 20) == nil)
    }

    @Test func truncatedDeflateIsAReason() throws {
        let info = try Self.load("hostile-truncated.AAE")
        #expect(info.undecodable == "adjustmentData of com.apple.video is neither a binary plist nor DEFLATE data that inflates completely to at most 4 MB")
        // Every cut of the real payload fails; the whole one inflates.
        let payload = try Self.payload("trim.AAE")
        #expect(Inflate.raw(payload, limit: 4 << 20) != nil)
        for n in 0..<payload.count { #expect(Inflate.raw(payload.prefix(n), limit: 4 << 20) == nil, "cut at \(n)") }
    }

    @Test func deepJSONInsideDeflateIsRefusedBeforeParsing() throws {
        let info = try Self.load("hostile-deep-json.AAE")
        #expect(info.undecodable == "adjustmentData of com.apple.photo inflates to JSON that is refused: nested more than 64 levels deep")
    }

    @Test func selfReferencingBinaryPlistIsAReason() throws {
        let info = try Self.load("hostile-cycle.AAE")
        #expect(info.undecodable == "adjustmentData of com.apple.video.slomo is a binary plist that cannot be read: object 6 contains itself")
    }

    /// A few thousand seeded mutations of every fixture (a few hundred of the bomb), of the whole file and of its `adjustmentData` alone (put back
    /// into a well-formed envelope, so that mutations reach the decoders): each must return or throw
    /// `invalidSidecar`, quickly. The seed makes a failure replayable.
    @Test func seededMutationsNeverCrashOrHang() throws {
        var rng = SplitMix64(seed: 0xAAE)
        var slowest = 0.0, runs = 0, decoded = 0, undecodable = 0
        var spent = 0.0  // CPU seconds of this thread: what the parser costs, whatever else the machine runs
        for name in Self.fixtureNames {
            let file = try Data(contentsOf: URL(fileURLWithPath: Self.fixture(name)))
            let payload = try Self.payload(name)
            // The bomb inflates 4 MB per try (a few ms): fewer rounds of it keep the test to seconds.
            for i in 0..<(name == "hostile-bomb.AAE" ? 100 : 1000) {
                for (original, wrap) in [(file, false), (payload, true)] {
                    var bytes = [UInt8](original)
                    Self.mutate(&bytes, round: i, rng: &rng)
                    let input = wrap ? Self.envelope(Data(bytes)) : Data(bytes)
                    let t0 = Self.threadCPU()
                    do {
                        let info = try AdjustmentInfo.parse(input, path: "m.aae")
                        if info.undecodable == nil { decoded += 1 } else { undecodable += 1 }
                        _ = try JSONEncoder().encode(info)
                    } catch let error as ExportError {
                        guard case .invalidSidecar = error else { Issue.record("\(name) #\(i): \(error)"); continue }
                    }
                    slowest = max(slowest, Self.threadCPU() - t0)
                    spent += Self.threadCPU() - t0
                    runs += 1
                }
            }
        }
        #expect(slowest < 1, "slowest input took \(slowest) s")
        #expect(spent < 60, "\(spent) CPU seconds")
        #expect(runs == (Self.fixtureNames.count - 1) * 2000 + 200)
        // The mutations reach the decoders: some still decode, many do not.
        #expect(decoded > 300 && undecodable > 1000, "decoded \(decoded), undecodable \(undecodable)")
    }

    // MARK: helpers

    /// The `adjustmentData` of a fixture (read with our binary reader or Foundation's XML decoder: trusted files).
    static func payload(_ name: String) throws -> Data {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixture(name)))
        if data.starts(with: Array("bplist".utf8)) {
            guard case .data(let d)?? = BinaryPropertyList.topLevelDictionary(data)?["adjustmentData"] else { throw CocoaError(.fileReadCorruptFile) }
            return d
        }
        struct Fields: Decodable { var adjustmentData: Data }
        return try PropertyListDecoder().decode(Fields.self, from: data).adjustmentData
    }

    /// An XML `.AAE` of `com.apple.photo` (the format whose data is JSON)... unless the payload is a binary plist,
    /// then of `com.apple.video.slomo`: either way every decoder is reached.
    static func envelope(_ payload: Data) -> Data {
        let identifier = payload.starts(with: Array("bplist".utf8)) ? "com.apple.video.slomo" : "com.apple.photo"
        return Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>adjustmentFormatIdentifier</key><string>\(identifier)</string>
        <key>adjustmentData</key><data>\(payload.base64EncodedString())</data></dict></plist>
        """.utf8)
    }

    /// One to four edits: a byte changed, a byte inserted or removed, a cut, or a run duplicated.
    static func mutate(_ bytes: inout [UInt8], round: Int, rng: inout SplitMix64) {
        for _ in 0...(round % 4) {
            guard !bytes.isEmpty else { bytes = [UInt8(truncatingIfNeeded: rng.next())]; continue }
            let at = Int(rng.next() % UInt64(bytes.count))
            switch rng.next() % 6 {
            case 0, 1: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            case 2: bytes[at] ^= 1 << UInt8(rng.next() % 8)
            case 3: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: at)
            case 4: bytes.removeSubrange(at..<min(bytes.count, at + 1 + Int(rng.next() % 16)))
            default:
                let run = bytes[at..<min(bytes.count, at + 1 + Int(rng.next() % 32))]
                bytes.insert(contentsOf: run, at: Int(rng.next() % UInt64(bytes.count)))
            }
        }
    }
}

/// A small seeded generator (SplitMix64), so that a failing mutation can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

}

extension AAEDecodeTests {
    /// The CPU time of the calling thread, in seconds (`CLOCK_THREAD_CPUTIME_ID`).
    static func threadCPU() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
