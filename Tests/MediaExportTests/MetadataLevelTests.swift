import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// `--metadata all|sharing|none` (issue 35), checked with ffprobe over the container's and every stream's tags.
@Suite struct MetadataLevelTests {
    /// An iPhone-like clip: location, make, model, software, an author, the Live Photo identifier, a creation time,
    /// and a video turned 90° by its display matrix (`rotated: false`: none — FFmpeg 5.1's Matroska muxer cannot write
    /// one, so such a clip cannot go to .mkv at all, whatever the metadata level).
    static func iPhoneClip(in dir: URL, rotated: Bool = true) throws -> String {
        let plain = dir.appendingPathComponent("plain.mov").path, path = dir.appendingPathComponent("IMG_0200.MOV").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:d=1", "-f", "lavfi", "-i", "sine=d=1",
                                "-c:v", "libx264", "-c:a", "aac", "-movflags", "use_metadata_tags",
                                "-metadata", "com.apple.quicktime.make=Apple", "-metadata", "com.apple.quicktime.model=iPhone 15",
                                "-metadata", "com.apple.quicktime.software=17.1",
                                "-metadata", "com.apple.quicktime.location.ISO6709=+48.8584+002.2945/",
                                "-metadata", "com.apple.quicktime.author=Jane Doe",
                                "-metadata", "com.apple.quicktime.content.identifier=ABCD-1234",
                                "-metadata", "creation_time=2024-05-01T12:34:56Z", plain])
        if !rotated { return plain }
        // FFmpeg 5.1 writes the display matrix of a stream copy's `rotate` tag.
        try TestSupport.ffmpeg(["-i", plain, "-c", "copy", "-map_metadata", "0", "-movflags", "use_metadata_tags",
                                "-metadata:s:v:0", "rotate=90", path])
        return path
    }

    /// Every tag key, container and streams, and the video's rotation, as ffprobe reads them (the independent oracle).
    static func tagsAndRotation(_ path: String) throws -> (keys: [String], tags: [String: String], rotation: Int?) {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-print_format", "json", "-show_entries",
                                                         "format_tags:stream_tags:stream=codec_type:stream_side_data=rotation", path])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let format = (json["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
        let streams = json["streams"] as? [[String: Any]] ?? []
        var keys = format.keys.map { $0 }
        for (i, s) in streams.enumerated() { keys += ((s["tags"] as? [String: String]) ?? [:]).keys.map { "#\(i):\($0)" } }
        let video = streams.first { $0["codec_type"] as? String == "video" }
        let rotation = (video?["side_data_list"] as? [[String: Any]])?.compactMap { $0["rotation"] as? Int }.first
        return (keys.sorted(), format, rotation)
    }

    static func noLocation(_ keys: [String]) -> Bool {
        !keys.contains { k in ["location", "gps", "xyz", "author", "identifier"].contains { k.lowercased().contains($0) } }
    }

    @Test("--metadata sharing drops location in every form, keeps creation time, make and model", arguments: ["mp4", "mov", "mkv"])
    func sharingDropsLocation(ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.iPhoneClip(in: dir, rotated: ext != "mkv")
        let before = try Self.tagsAndRotation(input)
        #expect(before.keys.contains("com.apple.quicktime.location.ISO6709") && (before.rotation != nil) == (ext != "mkv"))
        let out = dir.appendingPathComponent("shared.\(ext)").path
        let r = try TestSupport.tool(["--json", "--preset", "low", "--metadata", "sharing", input, out])
        #expect(r.status == 0, "\(r.stderr)")
        let after = try Self.tagsAndRotation(out)
        #expect(Self.noLocation(after.keys), "\(after.keys)")
        let lower = Dictionary(after.tags.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(lower["creation_time"]?.hasPrefix("2024-05-01T12:34:56") == true)
        #expect(lower["com.apple.quicktime.make"] == "Apple" && lower["com.apple.quicktime.model"] == "iPhone 15")
        #expect(after.rotation == before.rotation)
        // The completed record names the dropped keys, never their values; the verifier checked them.
        let completed = try #require(r.stdout.split(separator: "\n").last.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        let payload = try #require(completed["payload"] as? [String: Any])
        let metadata = try #require(payload["metadata"] as? [String: Any])
        #expect(metadata["level"] as? String == "sharing")
        #expect(metadata["dropped"] as? [String] == ["com.apple.quicktime.author", "com.apple.quicktime.content.identifier",
                                                     "com.apple.quicktime.location.ISO6709"])
        #expect(!r.stdout.contains("Jane Doe") && !r.stdout.contains("+48.8584"))
        let checks = ((payload["verification"] as? [String: Any])?["checks"] as? [[String: Any]]) ?? []
        #expect(checks.contains { $0["name"] as? String == "metadata sharing" && $0["outcome"] as? String == "passed" })
    }

    @Test("--metadata none keeps no descriptive tag and the rotation", arguments: ["mp4", "mov", "mkv"])
    func noneKeepsRotationOnly(ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.iPhoneClip(in: dir, rotated: ext != "mkv")
        let out = dir.appendingPathComponent("bare.\(ext)").path
        let r = try TestSupport.tool(["--preset", "low", "--metadata", "none", input, out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("note: no metadata: dropped"), "\(r.stderr)")
        let after = try Self.tagsAndRotation(out)
        // What is left is what the muxer writes of its own (brands, encoder, handlers, Matroska's durations).
        let muxer: Set<String> = ["major_brand", "minor_version", "compatible_brands", "encoder", "handler_name", "vendor_id", "duration", "language"]
        let descriptive = after.keys.filter { !muxer.contains(String($0.split(separator: ":").last ?? "").lowercased()) }
        #expect(descriptive.isEmpty, "\(after.keys)")
        if ext != "mkv" { #expect(after.rotation == 90 || after.rotation == -90, "still plays rotated: \(String(describing: after.rotation))") }
    }

    @Test("--metadata all gives the same bytes as no option")
    func allIsToday() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.iPhoneClip(in: dir)
        var sums: [String] = []
        for (n, extra) in [[], ["--metadata", "all"]].enumerated() {
            let out = dir.appendingPathComponent("out-\(n).mp4").path
            let r = try TestSupport.tool(["-q", "--json", "--preset", "low"] + extra + [input, out])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(!r.stdout.contains("\"metadata\""), "no metadata report at all")
            sums.append(try TestSupport.sha256(out))
        }
        #expect(sums[0] == sums[1])
        #expect(try Self.tagsAndRotation(dir.appendingPathComponent("out-1.mp4").path).keys.contains("com.apple.quicktime.location.ISO6709"))
    }

    @Test("a Matroska stream's GPS and location tags are dropped for sharing, its language kept")
    func streamTagsDropped() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("gps.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:d=1", "-f", "lavfi", "-i", "sine=d=1", "-c:v", "libx264", "-c:a", "aac",
                                "-metadata", "LOCATION=+48.8584+002.2945/", "-metadata", "title=Paris",
                                "-metadata:s:v:0", "GPS_POSITION=48.8584,2.2945", "-metadata:s:a:0", "location=+48.8584+002.2945/",
                                "-metadata:s:a:0", "language=fra", input])
        for ext in ["mkv", "mp4"] {
            let out = dir.appendingPathComponent("o.\(ext)").path
            let r = try TestSupport.tool(["--json", "--preset", "passthrough", "--metadata", "sharing", input, out])
            #expect(r.status == 0, "\(r.stderr)")
            let after = try Self.tagsAndRotation(out)
            #expect(Self.noLocation(after.keys), "\(ext): \(after.keys)")
            #expect(after.keys.contains { $0.lowercased() == "title" }, "the title stays")
            #expect(r.stdout.lowercased().contains("stream #0: gps_position") && r.stdout.lowercased().contains("stream #1: location"), "\(r.stdout.suffix(800))")
        }
    }

    @Test("batch: changing --metadata exports again, the report names the level")
    func batchReExportsOnLevelChange() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads"), out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        _ = try Self.iPhoneClip(in: uploads)
        try FileManager.default.removeItem(at: uploads.appendingPathComponent("plain.mov"))
        func run(_ extra: [String], _ n: Int) throws -> BatchReportRow {
            let report = dir.appendingPathComponent("r\(n).json").path
            let r = try TestSupport.tool(["batch", uploads.path, "--out", out.path, "--preset", "low", "-q", "--report", report] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return try #require(try BatchReport.read(report).first)
        }
        #expect(try run([], 1).status == "exported")
        #expect(try run(["--metadata", "all"], 2).status == "unchanged", "all is the default: same settings")
        let shared = try run(["--metadata", "sharing"], 3)
        #expect(shared.status == "exported", "\(shared.reason)")
        #expect(shared.account?.metadata?.level == .sharing)
        #expect(shared.account?.metadata?.dropped.contains("com.apple.quicktime.location.ISO6709") == true)
        #expect(try run(["--metadata", "sharing"], 4).status == "unchanged")
        #expect(Self.noLocation(try Self.tagsAndRotation(out.appendingPathComponent("IMG_0200.mp4").path).keys))
    }

    @Test("a byte copy cannot drop tags: with --metadata sharing the last fallback fails, nothing is written")
    func byteCopyRefused() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let wav = dir.appendingPathComponent("x.wav").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "sine=d=1", "-c:a", "pcm_s16le", wav])
        var bytes = try Data(contentsOf: URL(fileURLWithPath: wav))
        bytes[22] = 0; bytes[23] = 0  // no channels: no route but the byte copy can take it (PlannerAgreementTests)
        try bytes.write(to: URL(fileURLWithPath: wav))
        let r = try TestSupport.tool(["-q", "--metadata", "sharing", wav, dir.appendingPathComponent("out.mp4").path])
        #expect(r.status != 0 && r.status != ExitStatus.completedWithFallback, "\(r.stderr)")
        #expect(r.stderr.contains("a byte copy keeps every tag: it cannot drop metadata (--metadata sharing)"), "\(r.stderr)")
        #expect(TestSupport.contents(dir).sorted() == ["x.wav"])
    }
}
