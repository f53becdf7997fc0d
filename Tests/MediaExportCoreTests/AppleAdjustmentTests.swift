import Foundation
import Testing
@testable import MediaExportCore

/// Issue 16, item 1: the typed decoding of an `.AAE`'s `adjustmentData`, from hand-made bytes. Core has no zlib: the
/// inflater here passes its input through, so "deflated" JSON is the JSON itself (the real inflater is tested in
/// `MediaExportTests/AAEDecodeTests`).
@Suite struct AppleAdjustmentTests {

    // MARK: inputs

    /// An inflater that returns its input (bounded like the real one).
    static func passThrough(_ data: Data, _ limit: Int) -> Data? { data.count <= limit ? data : nil }
    /// An inflater for which nothing is DEFLATE.
    static func failing(_ data: Data, _ limit: Int) -> Data? { nil }

    /// An XML `.AAE` as Photos writes it, with `payload` as its `adjustmentData` (base64 in `<data>`).
    static func aae(identifier: String = "com.apple.photo", version: String = "1.4", payload: Data?,
                    editor: String? = "com.apple.mobileslideshow", dataElement: String? = nil) -> Data {
        var entries = """
        \t<key>adjustmentBaseVersion</key>
        \t<integer>0</integer>
        \t<key>adjustmentFormatIdentifier</key>
        \t<string>\(identifier)</string>
        \t<key>adjustmentFormatVersion</key>
        \t<string>\(version)</string>

        """
        if let editor { entries += "\t<key>adjustmentEditorBundleID</key>\n\t<string>\(editor)</string>\n" }
        if let payload { entries += "\t<key>adjustmentData</key>\n\t<data>\(payload.base64EncodedString())</data>\n" }
        if let dataElement { entries += "\t<key>adjustmentData</key>\n\t\(dataElement)\n" }
        return Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \(entries)</dict>
        </plist>

        """.utf8)
    }

    static func json(_ text: String) -> Data { Data(text.utf8) }

    static func cmtime(_ value: Int64, _ timescale: Int64, flags: Int64 = 1) -> String {
        #"{"value":\#(value),"timescale":\#(timescale),"flags":\#(flags),"epoch":0}"#
    }

    /// The real Trim record (APPLE-EDITS.md).
    static let realTrim = #"{"identifier":"Trim","formatVersion":1,"settings":{"startTime":{"value":46059,"timescale":90000,"flags":3,"epoch":0},"endTime":{"value":248936,"timescale":90000,"flags":3,"epoch":0}}}"#

    /// Decodes `payload` as the `adjustmentData` of an XML `.AAE` of `identifier`.
    static func decode(_ payload: Data, identifier: String = "com.apple.photo",
                       inflate: (Data, Int) -> Data? = passThrough) throws -> AdjustmentInfo {
        try AdjustmentInfo.parse(aae(identifier: identifier, payload: payload), path: "x.aae", inflate: inflate)
    }

    /// A binary plist written by Foundation (writing is safe; only Foundation's binary *parser* is not).
    static func bplist(_ object: Any) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
    }

    /// A binary plist from raw objects (1-byte offsets and references): for structures no writer makes.
    static func rawBPlist(_ objects: [[UInt8]], top: Int = 0) -> Data {
        var body = Array("bplist00".utf8)
        var offsets: [Int] = []
        for o in objects { offsets.append(body.count); body += o }
        let wide = body.count > 255
        let table = body.count
        for o in offsets { body += wide ? [UInt8(o >> 8), UInt8(o & 0xFF)] : [UInt8(o)] }
        body += [0, 0, 0, 0, 0, 0, wide ? 2 : 1, 1]
        for v in [objects.count, top, table] { body += (0..<8).reversed().map { UInt8((v >> ($0 * 8)) & 0xFF) } }
        return Data(body)
    }

    /// An ASCII string object of a raw plist.
    static func ascii(_ s: String) -> [UInt8] { [0x50 | UInt8(s.utf8.count)] + Array(s.utf8) }

    // MARK: the JSON envelopes

    @Test func legacyVideoEnvelopeGivesTheRealTrimInSeconds() throws {
        let info = try Self.decode(Self.json(#"{"adjustments":[\#(Self.realTrim)]}"#), identifier: "com.apple.video")
        #expect(info.undecodable == nil)
        #expect(info.editor == "com.apple.mobileslideshow")
        #expect(info.adjustments == [AppleAdjustment(identifier: "Trim", settings: .trim(start: 46059.0 / 90000, end: 248936.0 / 90000))])
        guard case .trim(let start, let end)? = info.adjustments.first?.settings else { Issue.record("not a trim"); return }
        #expect(abs(start - 0.511766) < 1e-6 && abs(end - 2.765955) < 1e-6)
    }

    @Test func photoEnvelopeKeepsOrderUnknownIdentifiersAndDisabledAdjustments() throws {
        let text = """
        {"formatVersion":1,"metadata":{"masterWidth":1920,"masterHeight":1080,"orientation":1},"versionInfo":{"appVersion":"9.0"},
         "adjustments":[
          {"identifier":"SmartTone","settings":{"inputLight":0.2},"auto":{"inputLight":0.1},"formatVersion":1},
          \(Self.realTrim),
          {"identifier":"Mute","enabled":true,"settings":{}},
          {"identifier":"VideoStabilize","enabled":false,"settings":{}},
          {"identifier":"Crop","settings":{"xOrigin":10,"yOrigin":20.5,"width":1280,"height":720,"straightenAngle":0}},
          {"identifier":"SlowMotion","settings":{"rate":0.25,"regions":[{"timeRange":{"start":\(Self.cmtime(600, 600)),"duration":\(Self.cmtime(300, 600))}}]}},
          {"identifier":"VideoPosterFrame","settings":{"time":\(Self.cmtime(45, 30))}},
          {"identifier":"LivePhotoKeyFrame","settings":\(Self.cmtime(1, 2))},
          {"identifier":"Mute","enabled":0}
         ]}
        """
        let info = try Self.decode(Self.json(text))
        #expect(info.undecodable == nil)
        #expect(info.adjustments == [
            AppleAdjustment(identifier: "SmartTone", settings: .other),
            AppleAdjustment(identifier: "Trim", settings: .trim(start: 46059.0 / 90000, end: 248936.0 / 90000)),
            AppleAdjustment(identifier: "Mute", settings: .mute),
            AppleAdjustment(identifier: "VideoStabilize", enabled: false, settings: .other),
            AppleAdjustment(identifier: "Crop", settings: .crop(x: 10, y: 20.5, width: 1280, height: 720)),
            AppleAdjustment(identifier: "SlowMotion", settings: .slowMotion(rate: 0.25, regions: [SlowMotionRegion(start: 1, duration: 0.5)])),
            AppleAdjustment(identifier: "VideoPosterFrame", settings: .posterFrame(1.5)),
            AppleAdjustment(identifier: "LivePhotoKeyFrame", settings: .posterFrame(0.5)),
            AppleAdjustment(identifier: "Mute", enabled: false, settings: .mute),
        ])
    }

    /// (metadata.orientation, adjustments' JSON, the adjustments expected).
    @Test(arguments: [
        ("1", "", [AppleAdjustment]()),
        ("6", "", [AppleAdjustment(identifier: "Orientation", settings: .orientation(6))]),
        ("9", "", [AppleAdjustment(identifier: "Orientation", settings: .unreadable("metadata.orientation is not an EXIF orientation (1 to 8)"))]),
        ("\"3\"", "", [AppleAdjustment(identifier: "Orientation", settings: .unreadable("metadata.orientation is not an EXIF orientation (1 to 8)"))]),
        // The list's own Orientation wins over the metadata's.
        ("6", #"{"identifier":"Orientation","settings":{"value":8}}"#, [AppleAdjustment(identifier: "Orientation", settings: .orientation(8))]),
    ])
    func metadataOrientationOtherThanOneIsAnAdjustment(_ orientation: String, _ list: String, _ expected: [AppleAdjustment]) throws {
        let info = try Self.decode(Self.json(#"{"formatVersion":1,"metadata":{"orientation":\#(orientation)},"adjustments":[\#(list)]}"#))
        #expect(info.undecodable == nil)
        #expect(info.adjustments == expected)
    }

    // MARK: CMTime

    /// (startTime's JSON, the settings expected); endTime is 10 s, valid.
    @Test(arguments: [
        (cmtime(46059, 90000, flags: 3), AppleAdjustment.Settings.trim(start: 46059.0 / 90000, end: 10)),
        (cmtime(46059, 90000, flags: 1), .trim(start: 46059.0 / 90000, end: 10)),
        (#"{"value":46059.0,"timescale":90000,"flags":1,"epoch":0}"#, .trim(start: 46059.0 / 90000, end: 10)),
        (cmtime(1, 0), .unreadable("settings.startTime: timescale 0 is not positive")),
        (cmtime(1, -600), .unreadable("settings.startTime: timescale -600 is not positive")),
        (cmtime(1, 4_294_967_296), .unreadable("settings.startTime: timescale 4294967296 is not positive")),
        (cmtime(1, 600, flags: 0), .unreadable("settings.startTime: flags 0 lack the valid bit")),
        (cmtime(1, 600, flags: 2), .unreadable("settings.startTime: flags 2 lack the valid bit")),
        (cmtime(1, 600, flags: 5), .unreadable("settings.startTime: flags 5 mark an infinite or indefinite time")),
        (cmtime(1, 600, flags: 17), .unreadable("settings.startTime: flags 17 mark an infinite or indefinite time")),
        (#"{"timescale":600,"flags":1}"#, .unreadable("settings.startTime.value is missing or not an integer")),
        (#"{"value":1.5,"timescale":600,"flags":1}"#, .unreadable("settings.startTime.value is missing or not an integer")),
        (#"{"value":1,"flags":1}"#, .unreadable("settings.startTime.timescale is missing or not an integer")),
        (#"{"value":1,"timescale":600}"#, .unreadable("settings.startTime.flags is missing or not an integer")),
        (#"{"value":1e300,"timescale":600,"flags":1}"#, .unreadable("settings.startTime.value is missing or not an integer")),
        ("12", .unreadable("settings.startTime is not a dictionary")),
        (cmtime(6000, 600), .unreadable("settings.endTime 10.0 s is not after settings.startTime 10.0 s")),
    ])
    func cmTimeValidity(_ start: String, _ expected: AppleAdjustment.Settings) throws {
        let trim = #"{"identifier":"Trim","settings":{"startTime":\#(start),"endTime":\#(Self.cmtime(6000, 600))}}"#
        let info = try Self.decode(Self.json(#"{"adjustments":[\#(trim)]}"#))
        #expect(info.undecodable == nil)
        #expect(info.adjustments == [AppleAdjustment(identifier: "Trim", settings: expected)])
    }

    @Test func unreadableSettingsKeepTheAdjustmentWithItsReason() throws {
        let text = #"""
        {"adjustments":[{"identifier":"Trim"},{"identifier":"Crop","settings":{"xOrigin":0,"yOrigin":0,"width":0,"height":10}},
         {"identifier":"SlowMotion","settings":{"rate":-1,"regions":[]}},{"settings":{}},"Trim",
         {"identifier":"SlowMotion","settings":{"rate":0.5,"regions":[{"timeRange":{"start":{"value":0,"timescale":600,"flags":1},"duration":{"value":-6,"timescale":600,"flags":1}}}]}}]}
        """#
        let info = try Self.decode(Self.json(text))
        #expect(info.adjustments == [
            AppleAdjustment(identifier: "Trim", settings: .unreadable("settings is missing")),
            AppleAdjustment(identifier: "Crop", settings: .unreadable("settings.width or settings.height is not positive")),
            AppleAdjustment(identifier: "SlowMotion", settings: .unreadable("rate is missing or not a positive number")),
            AppleAdjustment(identifier: "", settings: .unreadable("adjustments[3] has no identifier")),
            AppleAdjustment(identifier: "", settings: .unreadable("adjustments[4] has no identifier")),
            AppleAdjustment(identifier: "SlowMotion", settings: .unreadable("regions[0].timeRange.duration is negative")),
        ])
    }

    // MARK: the slo-mo binary plist

    static var slomoPlist: [String: Any] { [
        "slowMotion": [
            "rate": 0.125,
            "regions": [["timeRange": ["start": ["value": 239, "timescale": 600, "flags": 1, "epoch": 0],
                                       "duration": ["value": 1114, "timescale": 600, "flags": 1, "epoch": 0]]]],
        ] as [String: Any],
    ] }

    @Test func slowMotionBinaryPlistIsOneSlowMotionAdjustment() throws {
        let info = try Self.decode(try Self.bplist(Self.slomoPlist), identifier: "com.apple.video.slomo", inflate: Self.failing)
        #expect(info.undecodable == nil)
        #expect(info.adjustments == [AppleAdjustment(identifier: "SlowMotion",
                                                     settings: .slowMotion(rate: 0.125, regions: [SlowMotionRegion(start: 239.0 / 600, duration: 1114.0 / 600)]))])
    }

    @Test func slowMotionBinaryPlistStructureIsChecked() throws {
        func reason(_ object: Any) throws -> String? {
            try Self.decode(try Self.bplist(object), identifier: "com.apple.video.slomo", inflate: Self.failing).undecodable
        }
        #expect(try reason(["other": 1]) == "adjustmentData of com.apple.video.slomo is a binary plist with neither slowMotion nor adjustments")
        #expect(try reason([1, 2]) == "adjustmentData of com.apple.video.slomo is a binary plist whose top object is not a dictionary")
        #expect(try reason(["$archiver": "NSKeyedArchiver", "$objects": [1]])
                == "adjustmentData of com.apple.video.slomo is an NSKeyedArchiver archive (slo-mo format 1.0), not read")
        // A slowMotion that is not a dictionary is kept as an unreadable SlowMotion.
        let info = try Self.decode(try Self.bplist(["slowMotion": "fast"]), identifier: "com.apple.video.slomo", inflate: Self.failing)
        #expect(info.adjustments == [AppleAdjustment(identifier: "SlowMotion", settings: .unreadable("slowMotion is not a dictionary"))])
    }

    // MARK: the binary plist reader's bounds

    @Test func binaryPlistReaderRefusesCyclesDepthAndSharedExplosions() throws {
        // {"slowMotion": A} with A = [A]: a container that holds itself.
        let cycle = Self.rawBPlist([[0xD1, 1, 2], Self.ascii("slowMotion"), [0xA1, 2]])
        #expect(throws: BinaryPropertyList.Malformed(reason: "object 2 contains itself")) { try BinaryPropertyList.decode(cycle) }
        // A dictionary holding itself.
        let selfDict = Self.rawBPlist([[0xD1, 1, 0], Self.ascii("k")])
        #expect(throws: BinaryPropertyList.Malformed(reason: "object 0 contains itself")) { try BinaryPropertyList.decode(selfDict) }
        // 70 arrays, each holding the next.
        let chain: [[UInt8]] = (0..<69).map { (i: Int) -> [UInt8] in [0xA1, UInt8(i + 1)] } + [[0xA0]]
        let deep = Self.rawBPlist(chain)
        #expect(throws: BinaryPropertyList.Malformed(reason: "nested more than 64 levels deep")) { try BinaryPropertyList.decode(deep) }
        // 40 arrays each holding the next twice: 2^40 values if shared objects were expanded without a budget.
        let pairs: [[UInt8]] = (0..<39).map { (i: Int) -> [UInt8] in [0xA2, UInt8(i + 1), UInt8(i + 1)] } + [[0x10, 7]]
        let shared = Self.rawBPlist(pairs)
        let began = Date()
        #expect(throws: BinaryPropertyList.Malformed(reason: "more than 100000 values")) { try BinaryPropertyList.decode(shared) }
        #expect(Date().timeIntervalSince(began) < 5)
        // References and offsets out of range, a key that is not a string, a key given twice.
        #expect(throws: BinaryPropertyList.Malformed(reason: "object 9: reference or offset out of range")) {
            try BinaryPropertyList.decode(Self.rawBPlist([[0xA1, 9]]))
        }
        #expect(throws: BinaryPropertyList.Malformed(reason: "dictionary 0 has a key that is not a string")) {
            try BinaryPropertyList.decode(Self.rawBPlist([[0xD1, 1, 1], [0x10, 1]]))
        }
        #expect(throws: BinaryPropertyList.Malformed(reason: "dictionary 0 has the key k twice")) {
            try BinaryPropertyList.decode(Self.rawBPlist([[0xD2, 1, 1, 2, 2], Self.ascii("k"), [0x09]]))
        }
        // Through the .AAE: the cycle is a reason, not a crash or a loop.
        let info = try Self.decode(cycle, identifier: "com.apple.video.slomo", inflate: Self.failing)
        #expect(info.undecodable == "adjustmentData of com.apple.video.slomo is a binary plist that cannot be read: object 2 contains itself")
        #expect(info.adjustments.isEmpty)
    }

    @Test func binaryPlistReaderSurvivesEveryTruncationAndSeededMutations() throws {
        let valid = try Self.bplist(Self.slomoPlist)
        #expect(throws: Never.self) { try BinaryPropertyList.decode(valid) }
        for n in 0..<valid.count { _ = try? BinaryPropertyList.decode(valid.prefix(n)) }
        var rng = SplitMix64(seed: 16)
        var bytes = [UInt8](valid)
        for i in 0..<20_000 {
            if i % 50 == 0 { bytes = [UInt8](valid) }
            bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            _ = try? BinaryPropertyList.decode(Data(bytes))
            _ = BinaryPropertyList.topLevelDictionary(Data(bytes))
            _ = AdjustmentDataDecoder.decode(Data(bytes), identifier: "com.apple.video.slomo", inflate: Self.failing)
        }
    }

    // MARK: what is not decoded

    @Test func opaqueAndBrokenDataIsAReasonNotAnError() throws {
        let opaque = Data([0x00, 0x6F, 0x70, 0x61, 0x71, 0x75, 0x65, 0x01])
        #expect(try Self.decode(opaque, identifier: "com.example.editor").undecodable == "adjustmentData of com.example.editor is opaque (third-party editor)")
        #expect(try Self.decode(opaque, identifier: "com.apple.photos.crop").undecodable == "adjustmentData of com.apple.photos.crop is opaque (an Apple format not read here)")
        #expect(try Self.decode(opaque, inflate: Self.failing).undecodable
                == "adjustmentData of com.apple.photo is neither a binary plist nor DEFLATE data that inflates completely to at most 4 MB")
        #expect(try Self.decode(Data(), inflate: Self.failing).undecodable == "adjustmentData of com.apple.photo is empty")
        #expect(try Self.decode(Self.json("[1,2]")).undecodable == "adjustmentData of com.apple.photo is not a dictionary of adjustments")
        #expect(try Self.decode(Self.json(#"{"adjustments":{}}"#)).undecodable == "adjustmentData of com.apple.photo has adjustments that are not a list")
        #expect(try Self.decode(Self.json("{adjustments")).undecodable == "adjustmentData of com.apple.photo inflates to data that is not JSON")
        #expect(try Self.decode(Data([0xFF, 0xFE, 0x7B, 0x00])).undecodable
                == "adjustmentData of com.apple.photo inflates to JSON that is refused: not valid JSON (not UTF-8 text)")
        #expect(try Self.decode(Self.json(#"{"adjustments":[],"adjustments":[]}"#)).undecodable
                == "adjustmentData of com.apple.photo inflates to JSON that is refused: adjustments: duplicate key (each key may appear once in an object)")
        // 10 000 levels: refused by the scan before a recursive parser sees them.
        let deep = Self.json(String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000))
        #expect(try Self.decode(deep).undecodable == "adjustmentData of com.apple.photo inflates to JSON that is refused: nested more than 64 levels deep")
        // adjustmentData that is not <data>.
        let text = try AdjustmentInfo.parse(Self.aae(payload: nil, dataElement: "<string>abc</string>"), path: "x.aae", inflate: Self.passThrough)
        #expect(text.undecodable == "adjustmentData of com.apple.photo is not a data value" && text.adjustments.isEmpty)
        // No adjustmentData: nothing to say.
        let none = try AdjustmentInfo.parse(Self.aae(payload: nil, editor: ""), path: "x.aae", inflate: Self.passThrough)
        #expect(none == AdjustmentInfo(formatIdentifier: "com.apple.photo", formatVersion: "1.4", baseVersion: 0))
    }

    /// zlib-wrapped data is tried when raw inflation fails: its header is stripped, and its Adler-32 must match.
    @Test func zlibWrappedDataIsCheckedByItsChecksum() throws {
        let json = Self.json(#"{"adjustments":[{"identifier":"Mute"}]}"#)
        // An inflater that refuses the zlib header as raw DEFLATE (as zlib does) and "inflates" the stream after it.
        let inflate: (Data, Int) -> Data? = { data, _ in data.first == 0x78 ? nil : json }
        func wrapped(adler: UInt32) -> Data { Data([0x78, 0x9C, 0x01, 0x02]) + withUnsafeBytes(of: adler.bigEndian) { Data($0) } }
        let good = try Self.decode(wrapped(adler: 602_476_121), inflate: inflate)
        #expect(good.undecodable == nil && good.adjustments == [AppleAdjustment(identifier: "Mute", settings: .mute)])
        let bad = try Self.decode(wrapped(adler: 602_476_122), inflate: inflate)
        #expect(bad.undecodable == "adjustmentData of com.apple.photo is zlib data whose checksum does not match")
        // zlib's values (Python's zlib.adler32), the largest input without overflow traps.
        #expect(AdjustmentDataDecoder.adler32(Data()) == 1)
        #expect(AdjustmentDataDecoder.adler32(Data("Wikipedia".utf8)) == 300_286_872)
        #expect(AdjustmentDataDecoder.adler32(Data(repeating: 0xFF, count: 4 << 20)) == 1_124_973_678)
    }

    @Test func atMostAThousandAdjustments() throws {
        func list(_ n: Int) -> Data { Self.json(#"{"adjustments":["# + Array(repeating: #"{"identifier":"Mute"}"#, count: n).joined(separator: ",") + "]}") }
        #expect(try Self.decode(list(1000)).adjustments.count == 1000)
        let over = try Self.decode(list(1001))
        #expect(over.undecodable == "adjustmentData of com.apple.photo has 1001 adjustments; at most 1000 are read" && over.adjustments.isEmpty)
    }

    /// Inflated JSON may be 4 MB: millions of values are refused before they are built, and the time stays short.
    @Test func largeInflatedJSONIsBoundedQuickly() throws {
        func decode(_ json: String) throws -> (AdjustmentInfo, seconds: Double) {
            let inflated = Data(json.utf8)
            let began = Date()
            let info = try AdjustmentInfo.parse(Self.aae(payload: Data("x".utf8)), path: "x.aae",
                                                inflate: { _, limit in inflated.count <= limit ? inflated : nil })
            return (info, Date().timeIntervalSince(began))
        }
        let numbers = try decode(#"{"adjustments":[],"x":["# + Array(repeating: "1", count: 1_900_000).joined(separator: ",") + "]}")
        #expect(numbers.0.undecodable == "adjustmentData of com.apple.photo inflates to JSON of more than 100000 values")
        let many = try decode(#"{"adjustments":["# + Array(repeating: #"{"identifier":"Mute","settings":{"a":[1,{"b":"c"}]}}"#, count: 70_000).joined(separator: ",") + "]}")
        #expect(many.0.undecodable == "adjustmentData of com.apple.photo inflates to JSON of more than 100000 values")
        let long = try decode(#"{"adjustments":[{"identifier":"Mute","settings":{"note":""# + String(repeating: "x", count: 4_000_000) + #""}}]}"#)
        #expect(long.0.adjustments == [AppleAdjustment(identifier: "Mute", settings: .mute)])
        for (name, seconds) in [("numbers", numbers.seconds), ("adjustments", many.seconds), ("long string", long.seconds)] {
            #expect(seconds < 3, "\(name): \(seconds) s")
        }
    }

    @Test func untrustedStringsAreCut() throws {
        let long = String(repeating: "x", count: 5000)
        let info = try AdjustmentInfo.parse(Self.aae(payload: Self.json(#"{"adjustments":[{"identifier":"\#(long)"}]}"#), editor: long),
                                            path: "x.aae", inflate: Self.passThrough)
        #expect((info.editor?.count ?? .max) < 230)
        #expect((info.adjustments.first?.identifier.count ?? .max) < 230)
    }

    // MARK: JSON for events and `resources --json`

    @Test func encodesFlatAndReadsOldEvents() throws {
        let info = AdjustmentInfo(formatIdentifier: "com.apple.video.slomo", formatVersion: "1.1", baseVersion: 0, editor: "com.apple.mobileslideshow",
                                  adjustments: [AppleAdjustment(identifier: "SlowMotion", settings: .slowMotion(rate: 0.125, regions: [SlowMotionRegion(start: 0.5, duration: 1.25)])),
                                                AppleAdjustment(identifier: "Trim", enabled: false, settings: .trim(start: 1.5, end: 2.75)),
                                                AppleAdjustment(identifier: "Mute", settings: .mute),
                                                AppleAdjustment(identifier: "Crop", settings: .crop(x: 1, y: 2, width: 3, height: 4)),
                                                AppleAdjustment(identifier: "Orientation", settings: .orientation(6)),
                                                AppleAdjustment(identifier: "VideoPosterFrame", settings: .posterFrame(0.25)),
                                                AppleAdjustment(identifier: "SmartTone", settings: .other),
                                                AppleAdjustment(identifier: "Trim", settings: .unreadable("why"))])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(info), as: UTF8.self)
        #expect(text.contains(#"{"enabled":true,"identifier":"SlowMotion","kind":"slowMotion","rate":0.125,"regions":[{"duration":1.25,"start":0.5}]}"#))
        #expect(text.contains(#"{"enabled":false,"end":2.75,"identifier":"Trim","kind":"trim","start":1.5}"#))
        #expect(text.contains(#"{"enabled":true,"identifier":"Trim","kind":"unreadable","reason":"why"}"#))
        #expect(try JSONDecoder().decode(AdjustmentInfo.self, from: Data(text.utf8)) == info)
        // An event written before these fields existed.
        let old = try JSONDecoder().decode(AdjustmentInfo.self, from: Self.json(#"{"formatIdentifier":"com.apple.photo","formatVersion":"1.4","baseVersion":1}"#))
        #expect(old == AdjustmentInfo(formatIdentifier: "com.apple.photo", formatVersion: "1.4", baseVersion: 1))
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
