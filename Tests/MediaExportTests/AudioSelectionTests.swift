import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// `--audio-language` and `--audio first`: which audio streams an export keeps, checked with ffprobe.
@Suite struct AudioSelectionTests {
    /// H.264 + AAC English (default) + AAC German, in Matroska.
    static func twoLanguages(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("two.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1",
                                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
                                "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=1",
                                "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                                "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=ger",
                                "-disposition:a:0", "default", "-disposition:a:1", "0", path])
        return path
    }

    struct AudioTrack: Equatable { var language: String?; var isDefault: Bool }

    static func audioTracks(_ path: String) throws -> [AudioTrack] {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a", "-print_format", "json", "-show_streams", path])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return (json["streams"] as? [[String: Any]] ?? []).map { s in
            AudioTrack(language: (s["tags"] as? [String: String])?["language"], isDefault: (s["disposition"] as? [String: Int])?["default"] == 1)
        }
    }

    @Test func everyAudioTrackByDefault() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        try TestSupport.export(try Self.twoLanguages(in: dir), to: out, preset: "1280x720")
        #expect(try Self.audioTracks(out).map(\.language) == ["eng", "ger"])
    }

    @Test(arguments: ["deu", "de", "ger"])
    func onlyTheLanguageAskedForIsKeptAndIsTheDefault(code: String) throws {
        let dir = TestSupport.tempDir("lang\(code)")
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let r = try TestSupport.tool(["--preset", "1280x720", "--audio-language", code, try Self.twoLanguages(in: dir), out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.audioTracks(out) == [AudioTrack(language: "ger", isDefault: true)])
    }

    /// The list's order is the output's: German first (and the default), in a transcode and in a stream copy alike;
    /// the verifier checks each output stream against the stream planned in its place.
    @Test(arguments: ["1280x720", "passthrough"])
    func theLanguageListOrdersTheAudioTracks(preset: String) throws {
        let dir = TestSupport.tempDir("order-\(preset)")
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mkv").path
        let r = try TestSupport.tool(["--preset", preset, "--audio-language", "de,en", "--json", try Self.twoLanguages(in: dir), out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.audioTracks(out) == [AudioTrack(language: "ger", isDefault: true), AudioTrack(language: "eng", isDefault: false)])
        // The 660 Hz tone is the German track's: the streams were moved, not just relabelled.
        let probe = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=index,codec_type", "-of", "csv=p=0", out])
        #expect(probe.stdout.split(separator: "\n").map(String.init) == ["0,video", "1,audio", "2,audio"])
        #expect(r.stdout.contains(#""passed":true"#))
    }

    @Test func passthroughHonoursTheSelectionToo() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        var request = ExportRequest(input: try Self.twoLanguages(in: dir), output: dir.appendingPathComponent("out.mkv").path,
                                    preset: try TestSupport.preset("passthrough"))
        request.tracks = TrackSelection(audioLanguages: ["deu"])
        let completed = try ExportSession(request: request).run()
        #expect(try Self.audioTracks(completed.output).map(\.language) == ["ger"])
    }

    @Test func firstKeepsOneTrack() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let r = try TestSupport.tool(["--preset", "1280x720", "--audio", "first", "--json", try Self.twoLanguages(in: dir), out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.audioTracks(out).map(\.language) == ["eng"])
        #expect(r.stdout.contains("--audio first keeps only audio stream #1"))
    }

    @Test func aLanguageTheFileDoesNotHaveIsAnErrorNamingWhatItHas() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let r = try TestSupport.tool(["--preset", "1280x720", "--audio-language", "fra", try Self.twoLanguages(in: dir), out])
        #expect(r.status == ExportError.noUsableStreams(path: "", reason: "").exitCode)
        #expect(r.stderr.contains("no audio stream in fra (the file has: eng, ger)"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let bad = try TestSupport.tool(["--preset", "1280x720", "--audio-language", "français", try Self.twoLanguages(in: dir), out])
        #expect(bad.status == 64)
    }

    @Test func batchKeepsTheSelectionForEveryFile() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        _ = try Self.twoLanguages(in: input)
        let out = dir.appendingPathComponent("out")
        let r = try TestSupport.tool(["batch", input.path, "--out", out.path, "--preset", "low", "--audio-language", "deu", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let made = TestSupport.contents(out).filter { $0.hasSuffix(".mp4") }
        #expect(made.count == 1)
        #expect(try Self.audioTracks(out.appendingPathComponent(made[0]).path).map(\.language) == ["ger"])
    }

    @Test func languageCodesMatchInEitherForm() {
        let s = TrackSelection(audioLanguages: ["de", "eng"])
        #expect(s.wants(language: "ger") && s.wants(language: "deu") && s.wants(language: "en") && !s.wants(language: "fra") && !s.wants(language: nil))
        #expect(TrackSelection.all.wants(language: nil))
        // A stream without a language is `und`, as the error names it.
        #expect(TrackSelection(audioLanguages: ["und"]).wants(language: nil))
    }
}
