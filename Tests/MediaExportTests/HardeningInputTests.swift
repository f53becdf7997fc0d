import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 12, item 1: inputs that name other files (playlists, lists, image sequences, session descriptions)
/// are refused before anything they name is opened; names that look like FFmpeg URLs are plain file names;
/// every container we export from still opens.
@Suite("Hardening: inputs") struct HardeningInputTests {
    /// An upload that is not one file of media but names others.
    enum Referencing: String, CaseIterable, CustomStringConvertible, Sendable {
        case hlsLocal, hlsRemote, concatList, imageSequence, sdp

        var description: String { rawValue }

        /// The upload's file name.
        var name: String {
            switch self {
            case .hlsLocal: return "upload.mov"
            case .hlsRemote: return "remote.m3u8"
            case .concatList: return "list.mov"
            // BMP, not PNG: a name with a photo extension is refused earlier, as a still image, before any open.
            case .imageSequence: return "frame%03d.bmp"
            case .sdp: return "session.mov"
            }
        }

        /// The exact `notMedia` reason.
        var reason: String {
            switch self {
            case .hlsLocal, .hlsRemote: return "is an HLS playlist (hls): inputs that name other files are refused"
            case .concatList: return "is a concat list (concat): inputs that name other files are refused"
            case .imageSequence: return "is an image sequence (image2): inputs that name other files are refused"
            case .sdp: return "is an SDP session description (sdp): inputs that name network streams are refused"
            }
        }

        /// Writes the upload into `dir`, naming `target` (a local media file, or a FIFO nobody writes to) where
        /// the format names a local file. Returns the upload's path.
        func make(in dir: URL, target: String) throws -> String {
            let upload = dir.appendingPathComponent(name).path
            switch self {
            case .hlsLocal:
                try text("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:1.0,\n\(target)\n#EXT-X-ENDLIST\n", upload)
            case .hlsRemote:
                try text("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:1.0,\nhttp://127.0.0.1:9/segment.ts\n#EXT-X-ENDLIST\n", upload)
            case .concatList:
                // Relative: FFmpeg's concat demuxer refuses absolute names in safe mode, not relative ones.
                let relative = target.hasPrefix(dir.path + "/") ? String(target.dropFirst(dir.path.count + 1)) : target
                try text("ffconcat version 1.0\nfile '\(relative)'\n", upload)
            case .imageSequence:
                // The pattern's name is a real file (a PNG), with the sequence it names beside it.
                try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=1", "-frames:v", "1", "-update", "1", upload])
                for n in 1...3 { try FileManager.default.copyItem(atPath: upload, toPath: dir.appendingPathComponent(String(format: "frame%03d.bmp", n)).path) }
            case .sdp:
                try text("v=0\no=- 0 0 IN IP4 127.0.0.1\ns=upload\nc=IN IP4 127.0.0.1\nt=0 0\nm=video 5004 RTP/AVP 96\na=rtpmap:96 H264/90000\n", upload)
            }
            return upload
        }
    }

    // MARK: Refused, through every way in

    @Test(arguments: Referencing.allCases)
    func probeRefusesAnInputThatNamesOthers(_ c: Referencing) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let secret = try Self.secret(in: dir)
        let upload = try c.make(in: dir, target: secret)
        #expect(throws: ExportError.notMedia(path: upload, reason: c.reason)) { try MediaProbe.probe(path: upload) }
    }

    @Test(arguments: Referencing.allCases)
    func exportRefusesAnInputThatNamesOthers(_ c: Referencing) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let secret = try Self.secret(in: dir)
        let upload = try c.make(in: dir, target: secret)
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        #expect(throws: ExportError.notMedia(path: upload, reason: c.reason)) {
            try TestSupport.export(upload, to: out.appendingPathComponent("export.mp4").path, preset: "low")
        }
        #expect(TestSupport.contents(out).isEmpty, "no output and no temporary file: \(TestSupport.contents(out))")
    }

    /// The CLI: exit 65, one line on stderr that says why, nothing written. Where the format names a local file,
    /// that file is a FIFO with no writer: opening it to read would block, so a run that ends proves nothing
    /// opened it (the deadline turns a block into a failure instead of a hung suite).
    @Test(arguments: Referencing.allCases)
    func cliRefusesAnInputThatNamesOthersWithoutOpeningIt(_ c: Referencing) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let fifo = dir.appendingPathComponent("named.ts").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let upload = try c.make(in: dir, target: fifo)
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        for command in [["--preset", "low", upload, out.appendingPathComponent("export.mp4").path], ["probe", upload]] {
            let r = try Self.tool(command, deadline: 60)
            #expect(!r.timedOut, "\(command): blocked (opened the FIFO the input names?)")
            #expect(r.status == ExitStatus.notMedia, "\(command): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(command): \(r.stderr)")
            #expect(lines.first?.hasSuffix(c.reason) == true, "\(command): \(r.stderr)")
            #expect(lines.first?.contains(c.name) == true, "\(command): names the upload: \(r.stderr)")
        }
        #expect(TestSupport.contents(out).isEmpty, "no output and no temporary file: \(TestSupport.contents(out))")
    }

    /// Batch: the playlist fails with the reason, the folder's good clip is exported, nothing else is written.
    @Test func batchRejectsThePlaylistAndExportsTheRest() async throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let secret = try Self.secret(in: dir)
        let uploads = dir.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: uploads.appendingPathComponent("good.mov").path)
        _ = try Referencing.hlsLocal.make(in: uploads, target: secret)  // uploads/upload.mov, naming ../secret.ts
        let out = dir.appendingPathComponent("out")
        let options = BatchOptions(inputs: [uploads.path], outputDirectory: out.path, preset: try TestSupport.preset("low"), jobs: 1)
        let result = try await BatchRunner(options: options).run()
        let rows = Dictionary(uniqueKeysWithValues: result.rows.map { ($0.key, $0) })
        #expect(rows["good.mov"]?.status == "exported")
        let playlist = try #require(rows["upload.mov"])
        #expect(playlist.status == "rejected", "not media mediaexport exports: never tried, named")
        #expect(playlist.error?.contains(Referencing.hlsLocal.reason) == true, "\(playlist.error ?? "no error")")
        #expect(playlist.output.map { FileManager.default.fileExists(atPath: $0) } != true, "no output for the playlist")
        #expect(result.counts.rejectedAssets == ["upload.mov"])
        let written = TestSupport.contents(out).filter { !$0.hasPrefix(".mediaexport") }
        #expect(written == ["good.mp4"], "\(written)")
    }

    // MARK: The second layer

    /// A demuxer that does open other files, let through the format whitelist on purpose: the io_open guard
    /// refuses its nested open, and the refusal names what the input asked for.
    @Test func nestedOpenIsRefusedEvenForAWhitelistedDemuxer() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let secret = try Self.secret(in: dir)
        let upload = try Referencing.hlsLocal.make(in: dir, target: secret)
        #expect(throws: ExportError.notMedia(path: upload, reason: "names another file (\(secret)): inputs that name other files are refused")) {
            _ = try Demuxer(path: upload, cancel: nil, formats: "hls," + InputFormats.whitelist)
        }
    }

    // MARK: What still opens

    /// Names that FFmpeg would take for URLs (`concat:`, `tee:`, `subfile,…:`, `file:`) are file names: the file
    /// itself is read, not the one the "URL" names. Relative names, so the CLI runs in the folder.
    @Test(arguments: ["concat:a.mp4", "tee:a.mp4", "subfile,,start,0,end,0,,:a.mp4", "file:a.mp4", "a.mp4|a.mp4"])
    func namesThatLookLikeURLsAreFiles(_ name: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: dir.appendingPathComponent("a.mp4").path)
        try FileManager.default.copyItem(atPath: TestSupport.fixture("colors.mp4"), toPath: dir.appendingPathComponent(name).path)
        let r = try Self.tool(["probe", "--json", name], cwd: dir, deadline: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let info = try JSONDecoder().decode(MediaInfo.self, from: Data(r.stdout.utf8))
        let expected = try MediaProbe.probe(path: TestSupport.fixture("colors.mp4"))
        #expect(info.streams.count == expected.streams.count && info.duration == expected.duration,
                "read \(name) itself (colors.mp4), not a.mp4: \(info.streams.count) streams, \(info.duration ?? -1) s")
        #expect(info.size == expected.size)
    }

    /// Every fixture the other suites export still opens, as the QuickTime/MP4 family.
    @Test(arguments: try FileManager.default.contentsOfDirectory(atPath: TestSupport.fixtures.path).filter { ["mov", "mp4", "m4a"].contains(($0 as NSString).pathExtension) }.sorted()
            + ["audio-only.m4a", "clip with spaces – été.mov", "cut-at-half.mp4", "flipped-bytes.mp4", "no-decoder.mp4"].map { "bad/" + $0 }
            + ["IMG_0001.MOV", "IMG_0002.MOV", "IMG_0003.MOV", "IMG_0004.MOV", "IMG_E0002.MOV"].map { "assets/" + $0 }
            + ["slomo.MOV", "trim.MOV"].map { "edits/" + $0 })
    func fixturesStillOpen(_ fixture: String) throws {
        let info = try MediaProbe.probe(path: TestSupport.fixture(fixture))
        #expect(info.container == "mov,mp4,m4a,3gp,3g2,mj2")
        #expect(!info.streams.isEmpty)
        #expect(InputFormats.isAllowed(info.container))
    }

    /// One tiny file per container on the whitelist that ffmpeg can write here: each opens, detected as expected.
    @Test(arguments: [
        ("t.mkv", ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "libopus", "-b:a", "16k"], "matroska,webm"),
        ("t.webm", ["-c:v", "libvpx", "-b:v", "50k", "-c:a", "libvorbis"], "matroska,webm"),
        ("t.ts", ["-c:v", "mpeg2video", "-c:a", "mp2"], "mpegts"),
        ("t.mpg", ["-c:v", "mpeg2video", "-c:a", "mp2"], "mpeg"),
        ("t.avi", ["-c:v", "mjpeg", "-c:a", "pcm_s16le"], "avi"),
        ("t.flv", ["-c:v", "flv1", "-c:a", "libmp3lame", "-ar", "11025"], "flv"),
        ("t.wmv", ["-c:v", "wmv2", "-c:a", "wmav2"], "asf"),
        ("t.nut", ["-c:v", "mpeg4", "-c:a", "pcm_s16le"], "nut"),
        ("t.3gp", ["-c:v", "mpeg4", "-c:a", "aac", "-ar", "8000"], "mov,mp4,m4a,3gp,3g2,mj2"),
        ("t.y4m", ["-an", "-pix_fmt", "yuv420p"], "yuv4mpegpipe"),
        ("t.gif", ["-an"], "gif"),
        ("t.h264", ["-an", "-c:v", "libx264", "-preset", "ultrafast"], "h264"),
        ("t.ivf", ["-an", "-c:v", "libvpx"], "ivf"),
        ("t.wav", ["-vn"], "wav"),
        ("t.flac", ["-vn"], "flac"),
        ("t.mp3", ["-vn", "-c:a", "libmp3lame"], "mp3"),
        ("t.ogg", ["-vn", "-c:a", "libvorbis"], "ogg"),
        ("t.opus", ["-vn", "-c:a", "libopus"], "ogg"),
        ("t.aac", ["-vn", "-c:a", "aac"], "aac"),
        ("t.ac3", ["-vn", "-c:a", "ac3"], "ac3"),
        ("t.aiff", ["-vn"], "aiff"),
    ] as [(String, [String], String)])
    func whitelistedContainersOpen(_ name: String, _ codecArgs: [String], _ container: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = dir.appendingPathComponent(name).path
        try Self.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=0.5",
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=0.5"] + codecArgs + [path])
        let info = try MediaProbe.probe(path: path)
        #expect(info.container == container)
        #expect(!info.streams.isEmpty)
    }

    /// Not a playlist, but not media either: a still image named `.mov` is refused at open, with the reason.
    @Test func stillImageIsRefusedWithItsFormat() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = dir.appendingPathComponent("photo.mov").path
        try Self.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x48:rate=1", "-frames:v", "1", "-f", "image2", "-update", "1", "-c:v", "png", path])
        #expect(throws: ExportError.notMedia(path: path, reason: "is a still image (png_pipe), not video or audio")) {
            try MediaProbe.probe(path: path)
        }
    }

    /// Names as bytes: a Latin-1 name (not UTF-8) opens, and the size is the opened file's.
    @Test func nonUTF8NameOpens() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = FileName.decode(Array(dir.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".mov".utf8))
        #expect(FileName.hasRawBytes(path))
        let source = try Data(contentsOf: URL(fileURLWithPath: TestSupport.fixture("landscape.mov")))
        let fd = open(FileName.cString(path), O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        _ = source.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let info = try MediaProbe.probe(path: path)
        #expect(info.size == Int64(source.count))
        #expect(info.streams.count == 2)
    }

    /// Missing, a folder, a FIFO, empty: the same errors as before the guard.
    @Test func unreadableInputsKeepTheirErrors() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let fifo = dir.appendingPathComponent("fifo.mov").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let empty = dir.appendingPathComponent("empty.mov").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let missing = dir.appendingPathComponent("missing.mov").path
        #expect(throws: ExportError.inputUnreadable(path: missing, reason: "No such file or directory")) { try MediaProbe.probe(path: missing) }
        #expect(throws: ExportError.inputUnreadable(path: dir.path, reason: "is a directory")) { try MediaProbe.probe(path: dir.path) }
        #expect(throws: ExportError.inputUnreadable(path: fifo, reason: "not a regular file")) { try MediaProbe.probe(path: fifo) }
        #expect(throws: ExportError.notMedia(path: empty, reason: "file is empty (0 bytes)")) { try MediaProbe.probe(path: empty) }
    }

    // MARK: Helpers

    /// A local media file someone might want to read through an upload: 1 s of a fixture as MPEG-TS.
    static func secret(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("secret.ts").path
        try ffmpeg(["-i", TestSupport.fixture("landscape.mov"), "-t", "1", "-c", "copy", "-f", "mpegts", path])
        return path
    }

    static func ffmpeg(_ arguments: [String]) throws {
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments)
        guard r.status == 0 else { throw HelperError.failed("ffmpeg \(arguments.joined(separator: " ")): \(r.stderr)") }
    }

    static func text(_ content: String, _ path: String) throws {
        try content.write(toFile: path, atomically: false, encoding: .utf8)
    }

    enum HelperError: Error { case failed(String) }

    struct ToolResult { var status: Int32; var stdout: String; var stderr: String; var timedOut: Bool }

    /// Runs the built tool in `cwd` with a deadline; a run past it is killed and reported as timed out.
    static func tool(_ arguments: [String], cwd: URL? = nil, deadline seconds: Double) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.binary)
        process.arguments = arguments
        if let cwd { process.currentDirectoryURL = cwd }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both pipes are drained on their own threads, so neither fills up while the deadline is watched here.
        let outData = DataBox(), errData = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { outData.set(out.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData.set(err.fileHandleForReading.readDataToEndOfFile()); group.leave() }
        let end = Date().addingTimeInterval(seconds)
        var timedOut = false
        while process.isRunning {
            if Date() > end {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(20_000)
        }
        process.waitUntilExit()
        group.wait()
        return ToolResult(status: process.terminationStatus, stdout: String(decoding: outData.value, as: UTF8.self),
                          stderr: String(decoding: errData.value, as: UTF8.self), timedOut: timedOut)
    }

    /// Bytes handed from a reader thread to the test.
    final class DataBox: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
        var value: Data { lock.lock(); defer { lock.unlock() }; return data }
    }
}
