import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// Asset discovery, versions (current / original) and the JSON edit sidecar, checked on probed outputs.
@Suite struct AssetVersionTests {
    static let assets = TestSupport.fixtures.appendingPathComponent("assets")
    static func asset(_ name: String) -> String { assets.appendingPathComponent(name).path }

    /// Exports and returns the completed event and the collected events.
    static func export(_ input: String, to out: String, preset: String = "low", version: AssetVersion = .current,
                       edits: String? = nil, requireCurrent: Bool = false, range: TimeRange? = nil) throws -> (ExportEvent.Completed, EventCollector) {
        let collector = EventCollector()
        let session = ExportSession(request: ExportRequest(input: input, output: out, preset: try TestSupport.preset(preset), timeRange: range,
                                                           version: version, editsPath: edits, requireCurrent: requireCurrent))
        session.onEvent = { collector.append($0) }
        return (try session.run(), collector)
    }

    /// Copies fixtures into a fresh folder under new names.
    static func folder(_ files: [String: String]) throws -> URL {
        let dir = TestSupport.tempDir()
        for (name, source) in files {
            if source.hasPrefix("{") || source.hasPrefix("<") || source.hasPrefix("[") || source.isEmpty || !source.contains("/") {
                try source.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
            } else {
                try FileManager.default.copyItem(atPath: source, toPath: dir.appendingPathComponent(name).path)
            }
        }
        return dir
    }

    // MARK: discovery

    @Test func discoveryFindsEveryResourceFromAnyMember() throws {
        let a = try Asset.discover(from: Self.asset("IMG_0002.MOV"))
        let b = try Asset.discover(from: Self.asset("IMG_E0002.MOV"))
        #expect(a == b)
        #expect(a.baseName == "IMG_0002")
        #expect(a.resources.map(\.kind) == [.original, .renderedEdit])
        #expect(a.resources.allSatisfy { $0.size > 0 && $0.container == "mov" })

        let live = try Asset.discover(from: Self.asset("IMG_0004.JPG"))
        #expect(live.resources.map(\.kind) == [.pairedVideo, .photo])
        #expect(try Asset.discover(from: Self.asset("IMG_0004.MOV")) == live)

        let sidecar = try Asset.discover(from: Self.asset("IMG_0001.edit.json"))
        #expect(sidecar.resources.map(\.kind) == [.original, .editSidecar])
        #expect(try Asset.discover(from: Self.asset("IMG_0003.MOV")).resources.map(\.kind) == [.original, .adjustmentData])
    }

    @Test func namingVariantsAndCaseAreRecognised() throws {
        let dir = try Self.folder([
            "clip.mov": TestSupport.fixture("landscape.mov"),
            "CLIP_edited.MOV": TestSupport.fixture("odd-322x242.mov"),
            "Clip.MOV.edit.json": #"{"formatVersion": 1, "mute": true}"#,
            "other.mov": TestSupport.fixture("landscape.mov"),
        ])
        defer { TestSupport.cleanup(dir) }
        let asset = try Asset.discover(from: dir.appendingPathComponent("clip.mov").path)
        #expect(asset.resources.map(\.kind) == [.original, .renderedEdit, .editSidecar])
        #expect(asset.resources.map { ($0.path as NSString).lastPathComponent } == ["clip.mov", "CLIP_edited.MOV", "Clip.MOV.edit.json"])
    }

    @Test func resourcesCommandListsKindsPathsSizes() throws {
        let r = try TestSupport.tool(["resources", "--json", Self.asset("IMG_E0002.MOV")])
        #expect(r.status == 0)
        let asset = try JSONDecoder().decode(Asset.self, from: Data(r.stdout.utf8))
        #expect(asset.resources.map(\.kind) == [.original, .renderedEdit])
        let text = try TestSupport.tool(["resources", Self.asset("IMG_0003.MOV")])
        #expect(text.stdout.contains("adjustmentData") && text.stdout.contains("IMG_0003.AAE"))
    }

    // MARK: versions

    @Test func sidecarTrimCropRotateMuteForCurrentFullForOriginal() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let current = dir.appendingPathComponent("current.mp4").path
        let (done, events) = try Self.export(Self.asset("IMG_0001.MOV"), to: current, preset: "highest")
        let probe = try FFprobe(current)
        #expect(abs(probe.duration - 2.0) <= 1 / 30.0 + 0.001, "trim 1–3 s gives \(probe.duration)")
        #expect(probe.audio == nil, "mute drops the audio")
        let v = try #require(probe.video)
        #expect(v.width == 160 && v.height == 90, "the crop's size")
        #expect(v.rotation == -90, "rotate 90 clockwise (FFmpeg reports counter-clockwise)")
        #expect(done.version?.requested == .current && done.version?.delivered == .current)
        #expect(done.version?.sidecar?.hasSuffix("IMG_0001.edit.json") == true)
        #expect(events.started?.version == done.version)
        #expect(events.started?.streams.first { $0.type == "audio" }?.reason == "muted by the edit sidecar")

        let original = dir.appendingPathComponent("original.mp4").path
        let (o, _) = try Self.export(Self.asset("IMG_0001.MOV"), to: original, preset: "highest", version: .original)
        let op = try FFprobe(original)
        #expect(abs(op.duration - 4.0) <= 1 / 30.0 + 0.001)
        #expect(op.audio != nil && op.video?.width == 320 && (op.video?.rotation ?? 0) == 0)
        #expect(o.version?.delivered == .original && o.version?.sidecar == nil)
    }

    @Test func cropIsInDisplayedCoordinatesOfARotatedSource() throws {
        // portrait-rotated.mov is coded 320x180 and shown 180x320; crop the shown picture and compare pixels
        // with ffmpeg's own rotate-then-crop of the source.
        let dir = try Self.folder(["edits.json": #"{"formatVersion": 1, "crop": {"x": 20, "y": 40, "width": 100, "height": 160}}"#])
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("crop.mp4").path
        _ = try Self.export(TestSupport.fixture("portrait-rotated.mov"), to: out, preset: "highest", edits: dir.appendingPathComponent("edits.json").path)
        let v = try #require(try FFprobe(out).video)
        #expect(v.rotation == 90 && v.width == 160 && v.height == 100, "shown 100x160")
        let expected = try rawFrame(["-i", TestSupport.fixture("portrait-rotated.mov"), "-vf", "crop=100:160:20:40"])
        let actual = try rawFrame(["-i", out])
        #expect(expected.count == 100 * 160 && actual.count == expected.count)
        let diff = zip(expected, actual).map { abs(Int($0) - Int($1)) }.reduce(0, +) / max(1, expected.count)
        #expect(diff < 12, "mean difference \(diff)")
    }

    @Test func renderedEditIsCurrentOriginalIsOriginal() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let current = dir.appendingPathComponent("c.mp4").path
        let (c, _) = try Self.export(Self.asset("IMG_0002.MOV"), to: current)
        let cp = try FFprobe(current)
        #expect(cp.video?.width == 240 && cp.video?.height == 136 && abs(cp.duration - 2.0) < 0.04)
        #expect(c.version?.resourceKind == .renderedEdit && c.version?.delivered == .current)

        let original = dir.appendingPathComponent("o.mp4").path
        // Giving the rendered edit as input and asking for the original finds the original.
        let (o, _) = try Self.export(Self.asset("IMG_E0002.MOV"), to: original, version: .original)
        let op = try FFprobe(original)
        #expect(op.video?.width == 320 && abs(op.duration - 3.0) < 0.04)
        #expect(o.version?.resource.hasSuffix("IMG_0002.MOV") == true)
    }

    @Test func renderedEditTakesItsMetadataFromTheOriginal() throws {
        let dir = try Self.folder(["IMG_0001.MOV": Self.asset("IMG_0002.MOV"), "IMG_E0001.MOV": Self.asset("IMG_E0002.MOV"),
                                   "IMG_0001.MP4": TestSupport.fixture("landscape.mov"), "lone_edited.mov": Self.asset("IMG_E0002.MOV")])
        defer { TestSupport.cleanup(dir) }
        let original = dir.appendingPathComponent("IMG_0001.MOV").path, edit = dir.appendingPathComponent("IMG_E0001.MOV").path
        // The current version is the rendered edit, from the original or the edit given: metadata from the original.
        for input in [original, edit] {
            let current = try VersionResolver.select(input: input, version: .current, editsPath: nil, requireCurrent: false)
            #expect(current.report.resource == edit && current.report.resourceKind == .renderedEdit)
            #expect(current.metadataSource == original)
            #expect(current.report.reason.contains("rendered edit IMG_E0001.MOV of IMG_0001.MOV"), "\(current.report.reason)")
        }
        // The original itself needs none; the MP4 of the same base is another asset (its edit is the MOV's).
        #expect(try VersionResolver.select(input: edit, version: .original, editsPath: nil, requireCurrent: false).metadataSource == nil)
        let mp4 = try VersionResolver.select(input: dir.appendingPathComponent("IMG_0001.MP4").path, version: .current, editsPath: nil, requireCurrent: false)
        #expect(mp4.report.resource.hasSuffix("/IMG_0001.MP4") && mp4.metadataSource == nil)
        // A rendered edit without its original has nowhere to take it from.
        let lone = try VersionResolver.select(input: dir.appendingPathComponent("lone_edited.mov").path, version: .current, editsPath: nil, requireCurrent: false)
        #expect(lone.report.resourceKind == .renderedEdit && lone.metadataSource == nil)
    }

    @Test func aaeOnlyDeliversOriginalAndSaysSoOrFailsWhenRequired() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("a.mp4").path
        let (done, _) = try Self.export(Self.asset("IMG_0003.MOV"), to: out)
        #expect(done.version?.requested == .current && done.version?.delivered == .original)
        #expect(done.version?.reason.contains("IMG_0003.AAE") == true)
        // The fixture's adjustmentData is not a real slo-mo record: it cannot be decoded, so nothing can be rendered.
        #expect(done.version?.adjustmentData == AdjustmentInfo(
            formatIdentifier: "com.apple.video.slomo", formatVersion: "1.1", baseVersion: 0, editor: "com.apple.mobileslideshow",
            undecodable: "adjustmentData of com.apple.video.slomo is neither a binary plist nor DEFLATE data that inflates completely to at most 4 MB"))
        #expect(abs(try FFprobe(out).duration - 1.0) < 0.04)

        let strict = dir.appendingPathComponent("strict.mp4").path
        #expect(throws: ExportError.self) { try Self.export(Self.asset("IMG_0003.MOV"), to: strict, requireCurrent: true) }
        #expect(!FileManager.default.fileExists(atPath: strict))
        let r = try TestSupport.tool(["-q", "--require-current", Self.asset("IMG_0003.MOV"), strict])
        #expect(r.status == ExitStatus.versionUnavailable)
        #expect(r.stderr.contains("IMG_0003.AAE"))
        // The CLI summary warns when the version delivered is not the one asked for.
        let warn = try TestSupport.tool(["-q", Self.asset("IMG_0003.MOV"), dir.appendingPathComponent("w.mp4").path])
        #expect(warn.stderr.contains("WARNING version: original delivered (asked current)") && warn.stdout.isEmpty)
    }

    @Test func binaryAAEIsRecognised() throws {
        let dir = try Self.folder(["IMG_0009.MOV": TestSupport.fixture("landscape.mov")])
        defer { TestSupport.cleanup(dir) }
        let plist: [String: Any] = ["adjustmentFormatIdentifier": "com.apple.photo", "adjustmentFormatVersion": "1.4", "adjustmentBaseVersion": 1]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        try data.write(to: dir.appendingPathComponent("IMG_0009.aae"))
        let info = try AdjustmentInfo.load(path: dir.appendingPathComponent("IMG_0009.aae").path)
        #expect(info == AdjustmentInfo(formatIdentifier: "com.apple.photo", formatVersion: "1.4", baseVersion: 1))
        // A fuzzer-found binary plist whose top object is a set crashed Foundation's parser: now a clear error,
        // and the original stays reachable.
        let finding = TestSupport.repoRoot.appendingPathComponent("Fuzz/findings/aae-bplist-set-segv.aae")
        try FileManager.default.removeItem(at: dir.appendingPathComponent("IMG_0009.aae"))
        try FileManager.default.copyItem(at: finding, to: dir.appendingPathComponent("IMG_0009.AAE"))
        #expect(throws: ExportError.self) { try AdjustmentInfo.load(path: dir.appendingPathComponent("IMG_0009.AAE").path) }
        let r = try TestSupport.tool(["-q", dir.appendingPathComponent("IMG_0009.MOV").path, dir.appendingPathComponent("c.mp4").path])
        #expect(r.status == ExitStatus.badSidecar && r.stderr.contains("IMG_0009.AAE"))
        // A fuzzer-found XML .AAE whose version is a huge real trapped a Double → Int conversion.
        let xml = TestSupport.repoRoot.appendingPathComponent("Fuzz/findings/aae-xml-huge-real-version.aae")
        let xmlCopy = dir.appendingPathComponent("xml.aae")
        try FileManager.default.copyItem(at: xml, to: xmlCopy)
        _ = try? AdjustmentInfo.load(path: xmlCopy.path)  // must return or throw, never trap
        let o = try TestSupport.tool(["-q", "--original", dir.appendingPathComponent("IMG_0009.MOV").path, dir.appendingPathComponent("o.mp4").path])
        #expect(o.status == 0, "\(o.stderr)")
    }

    @Test func livePhotoExportsItsPairedVideo() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("live.mp4").path
        let (done, _) = try Self.export(Self.asset("IMG_0004.JPG"), to: out)
        #expect(done.version?.resourceKind == .pairedVideo)
        let p = try FFprobe(out)
        #expect(p.video?.width == 320 && p.video?.height == 240 && abs(p.duration - 1.5) < 0.04)
    }

    @Test func passthroughTrimRotatesLosslesslyAndRefusesCrop() throws {
        let dir = try Self.folder([
            "IMG_0100.MOV": TestSupport.fixture("landscape.mov"),
            "IMG_0100.edit.json": #"{"formatVersion": 1, "trim": {"start": 1.5, "end": 2.0}, "rotate": 180, "flip": "horizontal"}"#,
            "crop.json": #"{"formatVersion": 1, "crop": {"x": 0, "y": 0, "width": 100, "height": 100}, "volume": 0.5}"#,
        ])
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("p.mov").path
        let (done, events) = try Self.export(dir.appendingPathComponent("IMG_0100.MOV").path, to: out, preset: "passthrough")
        #expect(done.notes.contains { $0.contains("keyframe at 1.000") })
        #expect(events.started?.streams.first?.reason?.contains("display matrix") == true)
        let p = try FFprobe(out)
        // The trim's half second: read from the keyframe at 1 s, the lead-in hidden by the edit list.
        #expect(p.video?.width == 320 && abs(p.duration - 0.5) <= 1 / 30.0 + 0.001)
        let matrix = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream_side_data=displaymatrix", "-of", "default=nw=1", out]).stdout
        // rotate 180 then a horizontal flip = a vertical mirror: x kept, y negated.
        #expect(matrix.contains("00000000:        65536           0           0"), "\(matrix)")
        #expect(matrix.contains("00000001:            0      -65536           0"), "\(matrix)")

        let refused = dir.appendingPathComponent("c.mov").path
        do {
            _ = try Self.export(dir.appendingPathComponent("IMG_0100.MOV").path, to: refused, preset: "passthrough",
                                edits: dir.appendingPathComponent("crop.json").path)
            Issue.record("passthrough applied a crop")
        } catch let ExportError.editNeedsTranscode(path, edits) {
            #expect(path.hasSuffix("crop.json") && edits == ["crop", "volume"])
        }
        #expect(!FileManager.default.fileExists(atPath: refused))
    }

    @Test func volumeScalesTheAudio() throws {
        let dir = try Self.folder(["quiet.json": #"{"formatVersion": 1, "volume": 0.25}"#])
        defer { TestSupport.cleanup(dir) }
        func meanVolume(_ path: String) throws -> Double {
            let r = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "info", "-nostats", "-i", path, "-map", "0:a", "-af", "volumedetect", "-f", "null", "-"])
            let line = try #require(r.stderr.split(separator: "\n").first { $0.contains("mean_volume") })
            return Double(line.split(separator: " ").dropLast().last ?? "") ?? 0
        }
        let normal = dir.appendingPathComponent("n.mp4").path, quiet = dir.appendingPathComponent("q.mp4").path
        try TestSupport.export(TestSupport.fixture("landscape.mov"), to: normal, preset: "low")
        _ = try Self.export(TestSupport.fixture("landscape.mov"), to: quiet, edits: dir.appendingPathComponent("quiet.json").path)
        let drop = try meanVolume(normal) - meanVolume(quiet)
        #expect(abs(drop - 12.04) < 1.0, "0.25× is −12 dB, measured −\(drop) dB")
    }

    // MARK: broken sidecars

    @Test(arguments: [
        ("{ not json", "-", "not valid JSON"),
        (#"{"formatVersion": 2}"#, "formatVersion", "unsupported version 2"),
        (#"{"trim": {"start": 1, "end": 2}}"#, "formatVersion", "required key is missing"),
        (#"{"formatVersion": 1, "trim": {"start": "one", "end": 2}}"#, "trim.start", "expected"),
        (#"{"formatVersion": 1, "trim": {"start": 1.5, "end": 9}}"#, "trim.end", "past the end"),
        (#"{"formatVersion": 1, "trim": {"start": 3, "end": 2}}"#, "trim.end", "after trim.start"),
        (#"{"formatVersion": 1, "crop": {"x": 300, "y": 0, "width": 100, "height": 100}}"#, "crop", "outside the 320x180 picture"),
        (#"{"formatVersion": 1, "rotate": 45}"#, "rotate", "multiple of 90"),
        (#"{"formatVersion": 1, "flip": "diagonal"}"#, "flip", "Flip"),
        (#"{"formatVersion": 1, "mute": "yes"}"#, "mute", "expected Bool"),
        (#"{"formatVersion": 1, "speed": 2}"#, "speed", "unknown key"),
        (#"{"formatVersion": 1, "volume": -1}"#, "volume", "between 0 and 16"),
        // Found by the fuzzer (Fuzz/findings): values that overflowed later arithmetic.
        (#"{"formatVersion":1,"crop":{"x":9223372036854775807,"y":0,"width":2,"height":2}}"#, "crop.x", "between 0 and 65536"),
        (#"{"formatVersion":1,"trim":{"start":1e300,"end":1e301}}"#, "trim.start", "between 0 and"),
    ])
    func brokenSidecarNamesFileAndFieldAndLeavesNothing(json: String, field: String, reason: String) throws {
        let dir = try Self.folder(["IMG_0200.MOV": TestSupport.fixture("landscape.mov"), "IMG_0200.edit.json": json])
        defer { TestSupport.cleanup(dir) }
        let sidecar = dir.appendingPathComponent("IMG_0200.edit.json").path
        let out = dir.appendingPathComponent("out.mp4").path
        do {
            _ = try Self.export(dir.appendingPathComponent("IMG_0200.MOV").path, to: out)
            Issue.record("accepted \(json)")
        } catch let ExportError.invalidSidecar(path, f, r) {
            #expect(path == sidecar)
            #expect(f == field)
            #expect(r.contains(reason), "\(r)")
        }
        #expect(TestSupport.contents(dir) == ["IMG_0200.MOV", "IMG_0200.edit.json"])
        // The original is still reachable without edits.
        _ = try Self.export(dir.appendingPathComponent("IMG_0200.MOV").path, to: out, version: .original)
        #expect(FileManager.default.fileExists(atPath: out))
        let r = try TestSupport.tool(["-q", "-y", dir.appendingPathComponent("IMG_0200.MOV").path, out])
        #expect(r.status == ExitStatus.badSidecar && r.stderr.contains(sidecar))
    }
}

/// The first frame of a file as 8-bit gray pixels, decoded by the ffmpeg CLI (which applies the display matrix).
func rawFrame(_ args: [String]) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-v", "error"] + args + ["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Array(data)
}
