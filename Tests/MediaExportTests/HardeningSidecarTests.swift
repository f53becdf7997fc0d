import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// Issue 12, hostile sidecars, `.AAE`s and presets: every one is bounded (1 MB, 64 levels) before a parser sees it,
/// a duplicate key is an error naming it, an upload's text is never echoed at length, a bad `.AAE` fails only its own
/// asset's current version, and a still image is "not media" (65). Every input is made here.
@Suite("Hardening: sidecars and presets") struct HardeningSidecarTests {

    // MARK: inputs

    /// An XML `.AAE` as Photos writes it (declaration, DOCTYPE), with `inside` placed in its dictionary under `x`.
    static func aae(identifier: String = "com.apple.photo", inside: String = "<string>-</string>") -> Data {
        Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>adjustmentBaseVersion</key>
        \t<integer>1</integer>
        \t<key>adjustmentFormatIdentifier</key>
        \t<string>\(identifier)</string>
        \t<key>adjustmentFormatVersion</key>
        \t<string>1.4</string>
        \t<key>x</key>
        \t\(inside)
        </dict>
        </plist>

        """.utf8)
    }

    /// `n` nested arrays (in the `.AAE` above they sit at depth 2, so the deepest element is at 2 + n).
    static func arrays(_ n: Int) -> String { String(repeating: "<array>", count: n) + String(repeating: "</array>", count: n) }

    /// The 150 kB file that overflowed Foundation's parser: 10 000 nested arrays.
    static let deepAAE = aae(inside: arrays(10_000))

    static let recognised = AdjustmentInfo(formatIdentifier: "com.apple.photo", formatVersion: "1.4", baseVersion: 1)

    static func utf8(_ text: String) -> Data { Data(text.utf8) }

    /// `data` with each `@` replaced by the byte 0xFA (never valid in UTF-8).
    static func malformed(_ data: Data) -> Data { Data(data.map { $0 == UInt8(ascii: "@") ? 0xFA : $0 }) }

    /// A folder holding `landscape.mov` under each name of `clips` and the given files.
    static func folder(clips: [String], files: [String: Data] = [:]) throws -> URL {
        let dir = TestSupport.tempDir()
        for name in clips { try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: dir.appendingPathComponent(name).path) }
        for (name, data) in files { try data.write(to: dir.appendingPathComponent(name)) }
        return dir
    }

    /// Runs the tool and times it.
    static func tool(_ arguments: [String]) throws -> (TestSupport.RunResult, seconds: Double) {
        let began = Date()
        let r = try TestSupport.tool(arguments)
        return (r, Date().timeIntervalSince(began))
    }

    /// A still picture made by ffmpeg (`png`, `jpg`, `gif` with `frames` frames).
    static func picture(_ path: String, frames: Int = 1) throws {
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=5",
                                                         "-frames:v", "\(frames)", path])
        #expect(r.status == 0, "ffmpeg: \(r.stderr)")
    }

    // MARK: the .AAE (XML) read

    struct AAECase: Sendable, CustomStringConvertible {
        var description: String
        var data: Data
        /// The error expected, with the path `x.aae`; nil when the file is read.
        var error: ExportError?
    }

    static let tooDeep = ExportError.invalidSidecar(path: "x.aae", field: "-", reason: "elements nested more than 64 levels deep")
    static let notPlist = ExportError.invalidSidecar(path: "x.aae", field: "-", reason: "not a property list (XML in UTF-8, or binary)")

    static let aaeCases: [AAECase] = [
        .init(description: "a Photos .AAE", data: aae(), error: nil),
        .init(description: "10 000 nested arrays", data: deepAAE, error: tooDeep),
        .init(description: "10 000 nested dicts", data: aae(inside: String(repeating: "<dict><key>k</key>", count: 10_000) + "<true/>"
                                                             + String(repeating: "</dict>", count: 10_000)), error: tooDeep),
        .init(description: "64 levels (the limit)", data: aae(inside: arrays(62)), error: nil),
        .init(description: "65 levels", data: aae(inside: arrays(63)), error: tooDeep),
        .init(description: "10 000 empty arrays side by side", data: aae(inside: "<array>" + String(repeating: "<array/>", count: 10_000) + "</array>"),
              error: nil),
        .init(description: "nesting inside a comment", data: aae(inside: "<!-- " + arrays(10_000) + " --><true/>"), error: nil),
        .init(description: "nesting inside a CDATA string", data: aae(inside: "<string><![CDATA[" + arrays(10_000) + "]]></string>"), error: nil),
        .init(description: "nesting inside a processing instruction", data: aae(inside: "<?pi " + arrays(10_000) + " ?><true/>"), error: nil),
        // A processing instruction ends at "?>", not at the first ">": counting its fake close tags would let real
        // nesting after it through.
        .init(description: "close tags hidden in a processing instruction", data: aae(inside: "<array><?pi " + String(repeating: "</a>", count: 100)
                                                                                       + "?>" + arrays(70) + "</array>"), error: tooDeep),
        .init(description: "close tags in a bad comment", data: aae(inside: "<array><!-" + String(repeating: "</a>", count: 100) + arrays(70) + "</array>"),
              error: tooDeep),
        // Foundation's parser trapped on this (Fuzz/findings/aae-xml-integer-invalid-utf8.aae).
        .init(description: "malformed UTF-8 in an integer", data: malformed(aae(inside: "<integer>@@@@0</integer>")), error: notPlist),
        .init(description: "UTF-16 with a byte-order mark", data: Data([0xFF, 0xFE]) + aae().flatMap { [$0, 0] }, error: notPlist),
        .init(description: "an OpenStep plist", data: utf8("{ adjustmentFormatIdentifier = \"com.apple.photo\"; x = " + String(repeating: "(", count: 10_000) + "}"),
              error: notPlist),
        .init(description: "text", data: utf8("hello"), error: notPlist),
    ]

    @Test(arguments: aaeCases)
    func xmlAAEIsBoundedBeforeParsing(_ c: AAECase) throws {
        if let error = c.error {
            #expect(throws: error) { try AdjustmentInfo.parse(c.data, path: "x.aae") }
        } else {
            #expect(try AdjustmentInfo.parse(c.data, path: "x.aae") == Self.recognised)
        }
    }

    @Test func aaeTextIsCutAndLargeFilesAreRefusedUnread() throws {
        // The identifier is the uploader's text: it goes into reports and events, so it is cut.
        let info = try AdjustmentInfo.parse(Self.aae(identifier: String(repeating: "i", count: 300_000)), path: "x.aae")
        #expect(info.formatIdentifier?.hasPrefix(String(repeating: "i", count: 200)) == true)
        #expect((info.formatIdentifier?.count ?? .max) < 230)

        let dir = try Self.folder(clips: [], files: ["big.AAE": Self.aae(inside: "<data>" + String(repeating: "AAAA", count: 512 << 10) + "</data>")])
        defer { TestSupport.cleanup(dir) }
        let path = dir.appendingPathComponent("big.AAE").path
        #expect(throws: ExportError.invalidSidecar(path: path, field: "-", reason: "file is 2.0 MB; .AAE files are at most 1 MB")) {
            try AdjustmentInfo.load(path: path)
        }
    }

    // MARK: JSON: sidecars and presets

    struct JSONCase: Sendable, CustomStringConvertible {
        var description: String
        var json: Data
        /// The field and reason of the expected `invalidSidecar`/`invalidPreset`.
        var field: String
        var reason: String
    }

    static let duplicate = "duplicate key (each key may appear once in an object)"
    static let nested = "nested more than 64 levels deep"
    static let sidecarKeys = "unknown key (known: formatVersion, trim, crop, rotate, flip, mute, volume, slowMotion)"

    static let sidecarCases: [JSONCase] = [
        .init(description: "a key twice", json: utf8(#"{"formatVersion": 1, "mute": true, "mute": false}"#), field: "mute", reason: duplicate),
        .init(description: "a key twice, once escaped", json: utf8(#"{"formatVersion": 1, "mute": true, "\u006dute": false}"#), field: "mute", reason: duplicate),
        .init(description: "a nested key twice", json: utf8(#"{"formatVersion": 1, "trim": {"start": 1, "end": 2, "start": 0}}"#),
              field: "trim.start", reason: duplicate),
        .init(description: "a key twice in an object in an array", json: utf8(#"{"formatVersion": 1, "x": [0, {"a": 1, "a": 2}]}"#),
              field: "x[1].a", reason: duplicate),
        .init(description: "10 000 nested arrays", json: utf8("{\"trim\": " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"),
              field: "-", reason: nested),
        .init(description: "10 000 nested objects", json: utf8(String(repeating: "{\"a\": ", count: 10_000) + "1" + String(repeating: "}", count: 10_000)),
              field: "-", reason: nested),
        .init(description: "10 000 opening brackets only", json: utf8(String(repeating: "[", count: 10_000)), field: "-", reason: nested),
        // 64 levels pass the scan (the unknown key is the error); brackets inside strings do not count.
        .init(description: "64 levels", json: utf8("{\"formatVersion\": 1, \"deep\": " + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "}"),
              field: "deep", reason: sidecarKeys),
        .init(description: "brackets in a string", json: utf8("{\"formatVersion\": 1, \"s\": \"" + String(repeating: "[{", count: 10_000) + "\"}"),
              field: "s", reason: sidecarKeys),
        .init(description: "a terminal escape in a key", json: utf8(#"{"formatVersion": 1, "a\u001b[31mred": 1}"#), field: "a\\u{1B}[31mred", reason: sidecarKeys),
        .init(description: "UTF-16", json: Data(#"{"formatVersion": 1}"#.utf8.flatMap { [$0, 0] }), field: "-", reason: "not valid JSON (not UTF-8 text)"),
        .init(description: "malformed UTF-8", json: malformed(utf8(#"{"formatVersion": 1, "@@": 1}"#)), field: "-", reason: "not valid JSON (not UTF-8 text)"),
        .init(description: "over 1 MB", json: utf8(#"{"formatVersion": 1, "pad": ""# + String(repeating: " ", count: 3 << 20) + "\"}"),
              field: "-", reason: "file is 3.0 MB; edit sidecars are at most 1 MB"),
    ]

    @Test(arguments: sidecarCases)
    func sidecarIsRefusedNamingTheKey(_ c: JSONCase) throws {
        #expect(throws: ExportError.invalidSidecar(path: "x.edit.json", field: c.field, reason: c.reason)) {
            try EditSidecar.parse(c.json, path: "x.edit.json")
        }
    }

    static let presetCases: [JSONCase] = [
        .init(description: "a key twice", json: utf8(#"{"name": "a", "name": "b", "passthrough": true}"#), field: "name", reason: duplicate),
        .init(description: "a nested key twice", json: utf8(#"{"name": "a", "video": {"codec": "h264", "crf": 20, "crf": 40}}"#),
              field: "video.crf", reason: duplicate),
        .init(description: "10 000 nested arrays", json: utf8("{\"name\": \"a\", \"video\": {\"maxSize\": " + String(repeating: "[", count: 10_000) + "}}"),
              field: "-", reason: nested),
        .init(description: "over 1 MB", json: utf8(#"{"name": "a", "summary": ""# + String(repeating: "s", count: 2 << 20) + "\"}"),
              field: "-", reason: "file is 2.0 MB; preset files are at most 1 MB"),
    ]

    @Test(arguments: presetCases)
    func presetIsRefusedNamingTheKey(_ c: JSONCase) throws {
        let dir = try Self.folder(clips: [], files: ["p.json": c.json])
        defer { TestSupport.cleanup(dir) }
        let file = dir.appendingPathComponent("p.json")
        #expect(throws: ExportError.invalidPreset(path: file.path, field: c.field, reason: c.reason)) { try PresetCatalog.load(file: file) }
    }

    @Test func theSameKeyInTwoObjectsIsFine() throws {
        let dir = try Self.folder(clips: [], files: [
            "p.json": Self.utf8(#"{"name": "a", "video": {"codec": "h264"}, "audio": {"codec": "aac"}}"#),
        ])
        defer { TestSupport.cleanup(dir) }
        let preset = try PresetCatalog.load(file: dir.appendingPathComponent("p.json"))
        #expect(preset.video?.codec == .h264 && preset.audio?.codec == .aac)
        let sidecar = try EditSidecar.parse(Self.utf8(#"{"formatVersion": 1, "trim": {"start": 1, "end": 2}, "crop": {"x": 0, "y": 0, "width": 2, "height": 2}}"#),
                                            path: "x.edit.json")
        #expect(sidecar.trim == EditSidecar.Trim(start: 1, end: 2))
    }

    @Test func aHugeKeyIsCutInTheErrorAndTheMessage() throws {
        let key = String(repeating: "k", count: 400_000)  // twice in the second file: still under 1 MB
        for json in [#"{"formatVersion": 1, "\#(key)": 1}"#, #"{"formatVersion": 1, "\#(key)": 1, "\#(key)": 2}"#] {
            do {
                _ = try EditSidecar.parse(Self.utf8(json), path: "x.edit.json")
                Issue.record("a huge unknown key was accepted")
            } catch let error as ExportError {
                guard case .invalidSidecar(_, let field, _) = error else { Issue.record("\(error)"); continue }
                #expect(field.hasPrefix(String(repeating: "k", count: 200)) && field.count < 230, "\(error.description.prefix(300))")
                #expect(error.description.utf8.count < 1024)
            }
        }
    }

    // MARK: the tool, on uploads with a hostile file beside them

    @Test func deepAAEBesideAClipFailsOnlyThatClipsCurrentVersion() throws {
        let dir = try Self.folder(clips: ["clip.mov", "other.mov"], files: ["clip.AAE": Self.deepAAE])
        let out = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir); TestSupport.cleanup(out) }
        let clip = dir.appendingPathComponent("clip.mov").path
        func o(_ name: String) -> String { out.appendingPathComponent(name).path }

        // The current version depends on the .AAE: refused with the reason, no crash (a crash is a signal, 139).
        let (current, _) = try Self.tool(["-q", "--preset", "low", clip, o("current.mp4")])
        #expect(current.status == ExitStatus.badSidecar, "\(current.stderr)")
        #expect(current.stderr.contains("clip.AAE") && current.stderr.contains("elements nested more than 64 levels deep"), "\(current.stderr)")
        #expect(!FileManager.default.fileExists(atPath: o("current.mp4")))

        // The original does not read it.
        let (original, _) = try Self.tool(["-q", "--preset", "low", "--original", clip, o("original.mp4")])
        #expect(original.status == ExitStatus.success, "\(original.stderr)")
        #expect(try FFprobe(o("original.mp4")).video != nil)

        let (thumb, _) = try Self.tool(["thumbnail", clip, o("current.jpg")])
        #expect(thumb.status == ExitStatus.badSidecar, "\(thumb.stderr)")
        let (thumbOriginal, _) = try Self.tool(["thumbnail", "--asset-version", "original", clip, o("original.jpg")])
        #expect(thumbOriginal.status == ExitStatus.success, "\(thumbOriginal.stderr)")
        #expect(FileManager.default.fileExists(atPath: o("original.jpg")))

        // A batch plans both assets, then exports the other one and reports this one as failed; the dry run says the
        // failure it will meet (its version cannot be opened) and exits as the run does.
        let (plan, _) = try Self.tool(["batch", dir.path, "--out", o("batch"), "--preset", "low", "--dry-run"])
        #expect(plan.status == ExitStatus.exportFailed, "\(plan.stderr)")
        #expect(plan.stdout.contains("clip.mov") && plan.stdout.contains("other.mov"), "\(plan.stdout)")
        let (batch, _) = try Self.tool(["batch", dir.path, "--out", o("batch"), "--preset", "low", "-q"])
        #expect(batch.status == ExitStatus.exportFailed, "\(batch.stderr)")
        #expect(try FFprobe(o("batch/other.mp4")).video != nil)
        #expect(!FileManager.default.fileExists(atPath: o("batch/clip.mp4")))
        #expect(batch.stderr.contains("clip.AAE"), "\(batch.stderr)")

        // Batch of the originals: everything.
        let (originals, _) = try Self.tool(["batch", dir.path, "--out", o("originals"), "--preset", "low", "-q", "--asset-version", "original"])
        #expect(originals.status == ExitStatus.success, "\(originals.stderr)")
        #expect(FileManager.default.fileExists(atPath: o("originals/clip.mp4")) && FileManager.default.fileExists(atPath: o("originals/other.mp4")))
    }

    // MARK: a sidecar that is not a regular file (issue 29)

    /// What stands under a sidecar's name: never read (a FIFO would block, `/dev/zero` never ends), never ignored.
    enum Irregular: String, CaseIterable, Sendable { case fifo, linkToDevZero, directory }

    static func make(_ kind: Irregular, at path: String) throws {
        switch kind {
        case .fifo: #expect(mkfifo(path, 0o644) == 0)
        case .linkToDevZero: try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
        case .directory: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
    }

    static let irregularCases = Irregular.allCases.flatMap { kind in ["clip.edit.json", "clip.AAE"].map { (kind, $0) } }

    /// The clip's current version fails naming the sidecar (exit 79), as an unreadable one does; its original exports.
    @Test(arguments: irregularCases)
    func irregularSidecarFailsTheCurrentVersionOfASingleExport(_ kind: Irregular, _ sidecar: String) throws {
        let dir = try Self.folder(clips: ["clip.mov"])
        defer { TestSupport.cleanup(dir) }
        try Self.make(kind, at: dir.appendingPathComponent(sidecar).path)
        let clip = dir.appendingPathComponent("clip.mov").path, output = dir.appendingPathComponent("current.mp4").path
        let (current, seconds) = try Self.tool(["-q", "--preset", "low", clip, output])
        #expect(current.status == ExitStatus.badSidecar, "\(current.stderr)")
        #expect(current.stderr.contains(sidecar) && current.stderr.contains("not a regular file"), "\(current.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(seconds < 30, "took \(seconds) s")
        let (original, _) = try Self.tool(["-q", "--preset", "low", "--original", clip, dir.appendingPathComponent("original.mp4").path])
        #expect(original.status == ExitStatus.success, "\(original.stderr)")
    }

    /// A batch exports the other clip and reports this one failed, naming the sidecar, in stderr and the report.
    @Test(arguments: irregularCases)
    func irregularSidecarFailsItsAssetInABatch(_ kind: Irregular, _ sidecar: String) throws {
        let dir = try Self.folder(clips: ["clip.mov", "other.mov"])
        let out = TestSupport.tempDir(), report = out.appendingPathComponent("report.json").path
        defer { TestSupport.cleanup(dir); TestSupport.cleanup(out) }
        try Self.make(kind, at: dir.appendingPathComponent(sidecar).path)
        let batchOut = out.appendingPathComponent("batch").path
        let (batch, seconds) = try Self.tool(["batch", dir.path, "--out", batchOut, "--preset", "low", "-q", "--report", report])
        #expect(batch.status == ExitStatus.exportFailed, "\(batch.stderr)")
        #expect(seconds < 60, "took \(seconds) s")
        #expect(try FFprobe(batchOut + "/other.mp4").video != nil)
        #expect(!FileManager.default.fileExists(atPath: batchOut + "/clip.mp4"))
        #expect(batch.stderr.contains(sidecar) && batch.stderr.contains("not a regular file"), "\(batch.stderr)")
        let row = try BatchReport.read(report).first { $0.key == "clip.mov" }
        #expect(row?.status == "failed" && row?.error?.contains("\(sidecar): invalid edit sidecar") == true
                && row?.error?.contains("not a regular file") == true, "\(String(describing: row))")
    }

    @Test func largeAAEIsRefusedButTheOriginalExports() throws {
        let big = Self.aae(inside: "<data>" + String(repeating: "AAAA", count: 512 << 10) + "</data>")
        let dir = try Self.folder(clips: ["clip.mov"], files: ["clip.AAE": big])
        defer { TestSupport.cleanup(dir) }
        let clip = dir.appendingPathComponent("clip.mov").path
        let (current, _) = try Self.tool(["-q", "--preset", "low", clip, dir.appendingPathComponent("c.mp4").path])
        #expect(current.status == ExitStatus.badSidecar)
        #expect(current.stderr.contains("file is 2.0 MB; .AAE files are at most 1 MB"), "\(current.stderr)")
        let (original, _) = try Self.tool(["-q", "--preset", "low", "--original", clip, dir.appendingPathComponent("o.mp4").path])
        #expect(original.status == ExitStatus.success, "\(original.stderr)")
    }

    /// The sidecar beside the clip, or given with `--edits`.
    @Test(arguments: [false, true])
    func twentyMBSidecarIsRefusedQuicklyInOneShortLine(explicit: Bool) throws {
        var sidecar = Data(#"{"formatVersion": 1, ""#.utf8)
        sidecar.append(Data(repeating: UInt8(ascii: "k"), count: 20 << 20))
        sidecar.append(Data(#"": 1}"#.utf8))
        let name = explicit ? "edits.json" : "clip.edit.json"
        let dir = try Self.folder(clips: ["clip.mov"], files: [name: sidecar])
        defer { TestSupport.cleanup(dir) }
        let edits = explicit ? ["--edits", dir.appendingPathComponent(name).path] : []
        let (r, seconds) = try Self.tool(["-q", "--preset", "low"] + edits + [dir.appendingPathComponent("clip.mov").path, dir.appendingPathComponent("o.mp4").path])
        #expect(r.status == ExitStatus.badSidecar)
        #expect(seconds < 5, "took \(seconds) s")
        #expect(r.stderr.utf8.count < 1024, "stderr of \(r.stderr.utf8.count) bytes")
        #expect(r.stderr.contains("field '-': file is 20 MB; edit sidecars are at most 1 MB"), "\(r.stderr)")
    }

    @Test func hugeKeyAndDuplicateKeyThroughTheTool() throws {
        let key = String(repeating: "k", count: 900_000)
        let dir = try Self.folder(clips: ["clip.mov", "dup.mov", "plain.mov"], files: [
            "clip.edit.json": Self.utf8(#"{"formatVersion": 1, "\#(key)": 1}"#),
            "dup.edit.json": Self.utf8(#"{"formatVersion": 1, "rotate": 90, "rotate": 0}"#),
            "preset.json": Self.utf8(#"{"name": "mine", "video": {"codec": "h264", "crf": 23}, "name": "other"}"#),
        ])
        defer { TestSupport.cleanup(dir) }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let (huge, _) = try Self.tool(["-q", "--json", "--preset", "low", path("clip.mov"), path("c.mp4")])
        #expect(huge.status == ExitStatus.badSidecar)
        #expect(huge.stderr.utf8.count < 1024 && huge.stdout.utf8.count < 4096, "the failed event must not echo the key either")
        let (dup, _) = try Self.tool(["-q", "--preset", "low", path("dup.mov"), path("d.mp4")])
        #expect(dup.status == ExitStatus.badSidecar)
        #expect(dup.stderr.contains("dup.edit.json: invalid edit sidecar: field 'rotate': duplicate key"), "\(dup.stderr)")
        let (preset, _) = try Self.tool(["-q", "--preset", path("preset.json"), path("plain.mov"), path("p.mp4")])
        #expect(preset.status == ExitStatus.badPreset)
        #expect(preset.stderr.contains("preset.json: invalid preset: field 'name': duplicate key"), "\(preset.stderr)")
    }

    // MARK: names that are not UTF-8

    /// Writes `data` at a path that may hold raw bytes (FileManager cannot make such a name).
    static func writeRaw(_ path: String, _ data: Data) throws {
        let fd = open(FileName.cString(path), O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(fd >= 0, "cannot create \(FileName.display(path))")
        defer { close(fd) }
        let n = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        #expect(n == data.count)
    }

    @Test func latin1NamesFindTheirSidecarAndAreShownEscaped() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let base = dir.path + "/" + FileName.decode(Array("caf".utf8) + [0xE9])  // Latin-1 "café"
        try Self.writeRaw(base + ".mov", try Data(contentsOf: URL(fileURLWithPath: TestSupport.fixture("landscape.mov"))))
        try Self.writeRaw(base + ".edit.json", Self.utf8(#"{"formatVersion": 1, "mute": true}"#))
        try Self.writeRaw(base + ".AAE", Self.deepAAE)
        let asset = try Asset.discover(from: base + ".mov")
        #expect(asset.resources.map(\.kind) == [.original, .editSidecar, .adjustmentData])
        #expect(asset.resources.map(\.path) == [base + ".mov", base + ".edit.json", base + ".AAE"])
        #expect(asset.resources.allSatisfy { $0.size > 0 })
        let selection = try VersionResolver.select(input: base + ".mov", version: .current, editsPath: nil, requireCurrent: false)
        #expect(selection.edits?.mute == true && selection.report.adjustmentData == nil, "the sidecar decides; the .AAE is not read")

        let error = ExportError.invalidSidecar(path: base + ".AAE", field: "-", reason: "elements nested more than 64 levels deep")
        #expect(throws: error) { try AdjustmentInfo.load(path: base + ".AAE") }
        #expect(error.description.hasSuffix("/caf\\xE9.AAE: invalid edit sidecar: field '-': elements nested more than 64 levels deep"))
    }

    // MARK: still images

    @Test(arguments: ["png", "jpg", "JPEG"])
    func stillImageIsNotMedia(_ ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("photo.\(ext)").path
        try Self.picture(input)
        let reason = "is a still image (\(ext.lowercased())); mediaexport exports video and audio"
        #expect(throws: ExportError.notMedia(path: input, reason: reason)) {
            try VersionResolver.select(input: input, version: .current, editsPath: nil, requireCurrent: false)
        }
        let (r, _) = try Self.tool(["-q", "--preset", "low", input, dir.appendingPathComponent("o.mp4").path])
        #expect(r.status == ExitStatus.notMedia)
        #expect(r.stderr.contains(reason), "\(r.stderr)")
        let (t, _) = try Self.tool(["thumbnail", input, dir.appendingPathComponent("t.jpg").path])
        #expect(t.status == ExitStatus.notMedia)
    }

    @Test func animatedGIFIsNotCalledAStillImage() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("anim.gif").path
        try Self.picture(input, frames: 5)
        let (r, _) = try Self.tool(["-q", "--preset", "low", input, dir.appendingPathComponent("o.mp4").path])
        #expect(!r.stderr.contains("still image"), "\(r.stderr)")
    }
}
