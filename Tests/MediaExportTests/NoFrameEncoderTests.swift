import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// Issue 43, item 1: nothing hangs, and every signal is obeyed. Every encoder (x264, x265, SVT-AV1, AAC, Opus) opened
/// for an input that yields no frame ends within 10 s (SVT-AV1 1.4 waited forever for the packet of an end of stream
/// sent before any frame, and again when freed); SIGTERM ends an export within 5 s with 143 and no temporary file,
/// also one whose thread is stuck in a call that never returns. Through the built binary.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "the fixtures are made with the ffmpeg CLI"))
struct NoFrameEncoderTests {
    /// A finished run of the tool, or nil when it was still running at its deadline (then killed).
    struct Ended { var status: Int32; var stdout: String; var stderr: String; var seconds: Double }

    /// Runs the tool with stdout and stderr into files of `dir`; nil (after SIGKILL) when it runs past `deadline` s.
    /// `signal` is sent `after` seconds when given, `beforeSignal` called just before.
    static func run(_ arguments: [String], in dir: URL, deadline: Double, signal: (Int32, after: Double)? = nil,
                    beforeSignal: () -> Void = {}, stdout: FileHandle? = nil, readyWhen: () -> Bool = { true }) throws -> Ended? {
        let outURL = dir.appendingPathComponent("stdout.txt"), errURL = dir.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.binary)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try stdout ?? FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let began = Date()
        try process.run()
        var signalled = signal == nil
        var from = began
        var readySince: Date?  // `after` counts from when `readyWhen` first held (a loaded machine starts slowly)
        while process.isRunning && (!signalled || Date().timeIntervalSince(from) < deadline) {
            if readySince == nil, readyWhen() { readySince = Date() }
            if !signalled, Date().timeIntervalSince(began) > 120 { break }
            if let (sig, after) = signal, !signalled, let ready = readySince, Date().timeIntervalSince(ready) >= after {
                beforeSignal()
                kill(process.processIdentifier, sig)
                (signalled, from) = (true, Date())
            }
            usleep(20_000)
        }
        let seconds = Date().timeIntervalSince(from)
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        let text = { (url: URL) -> String in
            // An empty file is nothing to read: Foundation's read of one loses its 4 kB buffer (LeakSanitizer says so).
            guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int, size > 0 else { return "" }
            return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        }
        return Ended(status: status, stdout: text(outURL), stderr: text(errURL), seconds: seconds)
    }

    /// A MOV whose header promises 5 s of MJPEG + 8-bit PCM: `headerOnly` cut 64 bytes after its `moov` (no data
    /// at all), or its media data zeroed (every video packet there, none decodes; the PCM decodes as silence).
    static func damagedMOV(in dir: URL, headerOnly: Bool) throws -> String {
        let whole = dir.appendingPathComponent("whole.mov").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=5", "-f", "lavfi", "-i", "sine=r=7875:d=5",
                                "-c:v", "mjpeg", "-c:a", "pcm_u8", "-ar", "7875", "-movflags", "+faststart", whole])
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: whole)))
        var at = 0
        while at + 8 <= data.count {
            let size = data[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }, type = String(decoding: data[(at + 4)..<(at + 8)], as: UTF8.self)
            guard size >= 8 else { break }
            if headerOnly && type == "moov" { data = Array(data[..<min(data.count, at + size + 64)]); break }
            if !headerOnly && type == "mdat" { for i in (at + 8)..<min(data.count, at + size) { data[i] = 0 } }
            at += size
        }
        let path = dir.appendingPathComponent(headerOnly ? "header-only.mov" : "zeroed.mov").path
        try Data(data).write(to: URL(fileURLWithPath: path))
        try FileManager.default.removeItem(atPath: whole)
        return path
    }

    /// The `completed` record's payload in `--json` output.
    static func completed(_ stdout: String) -> [String: Any]? {
        stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["kind"] as? String == "completed" }?["payload"] as? [String: Any]
    }

    /// Each preset opens a video and an audio encoder (m4a: AAC alone); none gets a frame of the header-only MOV, the
    /// video encoder none of the zeroed one. The documented outcome: exit 3, a byte copy of the source (its own
    /// container), after the transcode failed (truncated, or too many corrupt packets); within 10 s.
    @Test("an encoder given no frame ends within 10 s: exit 3, a byte copy of the source",
          arguments: [("1280x720", "mp4"), ("hevc-1920x1080", "mp4"), ("av1-1280x720", "webm"), ("av1-1280x720", "mp4"), ("m4a", "m4a")],
          [true, false])
    func noFrameEndsInTime(preset: (name: String, ext: String), headerOnly: Bool) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.damagedMOV(in: dir, headerOnly: headerOnly)
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let ended = try Self.run(["--json", "--preset", preset.name, input, out.appendingPathComponent("o." + preset.ext).path],
                                 in: dir, deadline: 10)
        let run = try #require(ended, "\(preset.name) → .\(preset.ext) still running after 10 s")
        // m4a keeps the zeroed file's silence: a transcode of its audio, the video dropped.
        if preset.name == "m4a" && !headerOnly {
            #expect(run.status == 0, "\(run.stderr)")
            #expect(TestSupport.contents(out) == ["o.m4a"])
            return
        }
        #expect(run.status == 3, "\(run.stderr)")
        let record = Self.completed(run.stdout)
        #expect(record?["route"] as? String == "copy", "\(run.stdout)")
        let firstFallback = (record?["fallbacks"] as? [[String: Any]])?.first
        #expect(firstFallback?["from"] as? String == "transcode", "\(run.stdout)")
        #expect(TestSupport.contents(out) == ["o.mov"], "the byte copy in the source's container, no temporary file")
    }

    /// SIGTERM one second into a transcode: the export is cancelled, exit 143 within 5 s, nothing left in the folder.
    @Test("SIGTERM 1 s into an export: exit 143 within 5 s, no temporary file")
    func sigtermOneSecondIn() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("long.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=30", "-c:v", "libx264", "-preset", "ultrafast", input])
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let ended = try Self.run(["--preset", "av1-1280x720", input, out.appendingPathComponent("o.webm").path],
                                 in: dir, deadline: 5, signal: (SIGTERM, after: 1))
        let run = try #require(ended, "still running 5 s after SIGTERM")
        #expect(run.status == 143, "\(run.stderr)")
        #expect(TestSupport.contents(out).isEmpty, "\(TestSupport.contents(out))")
    }

    /// The stall watchdog stops a route whose thread never comes back (blocked writing to a full stdout, as in
    /// `sigtermWhileStuck`): `StallWatchdog.stuckGrace` (more than the timeout) later the process says so, removes its temporary file and exits 1.
    @Test("a stalled export stuck in a call: exit 1 within --stall-timeout + 5 s, its temporary file removed")
    func stalledAndStuck() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("long.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=30", "-c:v", "libx264", "-preset", "ultrafast", input])
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let stdout = try Self.fullPipe(room: 1000)
        defer { close(stdout.read); close(stdout.write) }
        let ended = try Self.run(["--json", "--stall-timeout", "1", "--preset", "highest", input, out.appendingPathComponent("o.mp4").path],
                                 in: dir, deadline: 15, stdout: FileHandle(fileDescriptor: stdout.write, closeOnDealloc: false))
        let run = try #require(ended, "still running after 15 s")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("export stalled") && run.stderr.contains("abandoned"), "\(run.stderr)")
        #expect(TestSupport.contents(out).isEmpty, "\(TestSupport.contents(out))")
    }

    /// A pipe of one page with `room` bytes free: a writer blocks once it has written more.
    static func fullPipe(room: Int) throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        try #require(fcntl(fds[1], 1031 /* F_SETPIPE_SZ */, 4096) == 4096, "the pipe could not be made one page")
        let filler = [UInt8](repeating: 0x20, count: 4096 - room)
        try #require(write(fds[1], filler, filler.count) == filler.count)
        return (fds[0], fds[1])
    }

    /// An export whose thread never comes back (here: blocked writing its `--json` records to a full pipe nobody
    /// reads): SIGTERM cancels, and after the grace (`SignalCancellation.grace`) the process removes its temporary
    /// file and exits 143, abandoning the thread.
    @Test("SIGTERM to an export stuck in a call: exit 143 within 5 s, its temporary file removed")
    func sigtermWhileStuck() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("long.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=30", "-c:v", "libx264", "-preset", "ultrafast", input])
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        // A pipe of one page, filled but for 1000 bytes: the `started` record (about 600) and a few progress records
        // fit, then the exporting thread blocks in write(2) with its temporary file open.
        let stdout = try Self.fullPipe(room: 1000)
        defer { close(stdout.read); close(stdout.write) }
        var inFlight: [String] = []
        let ended = try Self.run(["--json", "--preset", "highest", input, out.appendingPathComponent("o.mp4").path], in: dir, deadline: 5,
                                 signal: (SIGTERM, after: 3), beforeSignal: { inFlight = TestSupport.contents(out) },
                                 stdout: FileHandle(fileDescriptor: stdout.write, closeOnDealloc: false),
                                 readyWhen: { TestSupport.contents(out).contains { $0.contains(".mediaexport-tmp-") } })
        let run = try #require(ended, "still running 5 s after SIGTERM")
        #expect(run.status == 143, "\(run.stderr)")
        #expect(run.stderr.contains("abandoned"), "the export thread was not stuck: \(run.stderr)")
        #expect(inFlight.count == 1 && inFlight[0].contains(".mediaexport-tmp-"), "a temporary file was being written: \(inFlight)")
        #expect(TestSupport.contents(out).isEmpty, "\(TestSupport.contents(out))")
    }
}
