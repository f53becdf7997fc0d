import CFFmpeg
import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// Issue 12, items 4, 5 and 8 (long names): outputs written through the folder's descriptor, signals and
/// closed pipes, and temporary files that killed processes left behind.
@Suite("Hardening: outputs and signals", .serialized)
struct HardeningOutputTests {
    let clip = TestSupport.fixture("landscape.mov")

    // MARK: Temporary names

    /// Names up to NAME_MAX bytes, ASCII, two-byte UTF-8, four-byte UTF-8 and raw Latin-1 bytes.
    static let longNames: [(label: String, name: String)] = [
        ("short", "clip.mp4"),
        ("213 bytes", String(repeating: "a", count: 209) + ".mp4"),
        ("224 bytes", String(repeating: "a", count: 220) + ".mp4"),
        ("255 bytes", String(repeating: "a", count: 251) + ".mp4"),
        ("255 bytes of é", "a" + String(repeating: "é", count: 125) + ".mp4"),
        ("252 bytes of emoji", String(repeating: "🎬", count: 62) + ".mp4"),
        ("255 raw Latin-1 bytes", FileName.decode([UInt8](repeating: 0xE9, count: 251) + Array(".mp4".utf8))),
    ]

    @Test(arguments: longNames.map(\.label))
    func temporaryNameStaysWithinNameMax(label: String) throws {
        let name = try #require(Self.longNames.first { $0.label == label }).name
        let tmp = TemporaryFiles.temporaryName(for: name, pid: Int32.max, token: String(UInt64.max, radix: 36))
        let bytes = FileName.bytes(tmp)
        #expect(bytes.count <= Int(NAME_MAX), "\(bytes.count) bytes")
        #expect(TemporaryFiles.writerPID(bytes) == Int32.max)
        // NAME is kept from its start, whole characters only: a shortened one ends in "~" and decodes to no
        // raw byte the name did not have (a cut inside "é" or "🎬" would leave one).
        let suffix = ".mediaexport-tmp-\(Int32.max)-\(String(UInt64.max, radix: 36))"
        let namePart = Array(bytes.dropFirst().dropLast(suffix.utf8.count))
        let nameBytes = FileName.bytes(name)
        if nameBytes.count + suffix.utf8.count + 1 > Int(NAME_MAX) {
            #expect(namePart.last == 0x7E /* ~ */)
            let cut = Array(namePart.dropLast())
            #expect(nameBytes.starts(with: cut))
            #expect(cut.count > 150, "still recognisable")
            #expect(FileName.hasRawBytes(FileName.decode(cut)) == FileName.hasRawBytes(name), "a UTF-8 sequence was cut")
        } else {
            #expect(namePart == nameBytes)
        }
    }

    /// Legal names of up to 255 bytes export (224–255 were refused: the temporary name was too long).
    @Test(arguments: longNames.map(\.label))
    func longOutputNamesExport(label: String) throws {
        let name = try #require(Self.longNames.first { $0.label == label }).name
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let completed = try TestSupport.export(clip, to: dir.path + "/" + name, preset: "passthrough")
        #expect(FileName.bytes(completed.output) == FileName.bytes(dir.path + "/" + name))
        #expect(FileSystem.contents(ofDirectory: dir.path) == [name])
    }

    @Test func nameLongerThanNameMaxIsRefused() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.path + "/" + String(repeating: "a", count: 252) + ".mp4"
        do {
            try TestSupport.export(clip, to: out, preset: "passthrough")
            Issue.record("a 256-byte name was accepted")
        } catch let ExportError.outputUnwritable(_, reason) {
            #expect(reason.contains("longer than 255 bytes"))
        }
        #expect(TestSupport.contents(dir).isEmpty)
    }

    // MARK: Writing through the folder's descriptor

    /// Every container and route still writes a complete file, faststart included, and leaves no temporary file.
    @Test(arguments: [("out.mp4", "low"), ("out.mov", "passthrough"), ("out.m4v", "low"), ("out.m4a", "m4a"), ("out.mkv", "low")])
    func exportsWriteCompleteFilesThroughTheDescriptor(name: String, preset: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent(name).path
        try TestSupport.export(clip, to: out, preset: preset)
        let probe = try FFprobe(out)
        #expect(probe.duration > 1.9 && probe.duration < 2.1)
        if !name.hasSuffix(".mkv") { #expect(try FFprobe.isFaststart(out), "moov after mdat") }
        #expect(TestSupport.contents(dir) == [name])
    }

    @Test func overwriteAndNoClobber() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("o.mp4").path
        try "keep".write(toFile: out, atomically: false, encoding: .utf8)
        #expect(throws: ExportError.outputExists(path: out)) { try TestSupport.export(clip, to: out, preset: "passthrough") }
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "keep")
        try TestSupport.export(clip, to: out, preset: "passthrough", overwrite: true)
        #expect(try FFprobe(out).video?.codec == "h264")
        #expect(TestSupport.contents(dir) == ["o.mp4"])

        // No-clobber when the name appears while exporting: the link fails, the file that appeared stays.
        let late = dir.appendingPathComponent("late.mp4").path
        let target = try OutputTarget(output: late, inputs: [], overwrite: false, sandbox: nil, defaultExtension: "mp4")
        try target.write(Data("partial".utf8))
        try "appeared".write(toFile: late, atomically: false, encoding: .utf8)
        #expect(throws: ExportError.outputExists(path: late)) { try target.commit() }
        #expect(try String(contentsOfFile: late, encoding: .utf8) == "appeared")
        #expect(TestSupport.contents(dir) == ["late.mp4", "o.mp4"])
    }

    @Test func byteCopyWritesThroughTheTarget() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // landscape.mov already fits `low`: under `needed`, into its own container, the export is a byte copy.
        var preset = try TestSupport.preset("low")
        preset.defaultExtension = "mov"
        var request = ExportRequest(input: clip, output: dir.appendingPathComponent("copy.mov").path, preset: preset)
        request.policy = .needed
        let completed = try ExportSession(request: request).run()
        #expect(completed.output.hasSuffix("/copy.mov"))
        #expect(try TestSupport.sha256(completed.output) == TestSupport.sha256(clip))
        #expect(completed.sha256 == (try TestSupport.sha256(clip)))
        #expect(TestSupport.contents(dir) == ["copy.mov"])
    }

    @Test func thumbnailsWriteThroughTheTargetAndKeepToTheSandbox() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let sandbox = dir.appendingPathComponent("sandbox"), outside = dir.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: sandbox, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: sandbox.path + "/escape", withDestinationPath: outside.path)
        let result = try Thumbnailer.make(ThumbnailRequest(input: clip, output: sandbox.path + "/p.png", sandbox: sandbox.path))
        let png = try Data(contentsOf: URL(fileURLWithPath: result.output))
        #expect(png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(throws: ExportError.outputOutsideSandbox(path: sandbox.path + "/escape/p.jpg", sandbox: sandbox.path)) {
            try Thumbnailer.make(ThumbnailRequest(input: clip, output: sandbox.path + "/escape/p.jpg", sandbox: sandbox.path))
        }
        #expect(TestSupport.contents(sandbox) == ["escape", "p.png"])
        #expect(TestSupport.contents(outside).isEmpty)
    }

    /// The muxer's io_open reopens the temporary file only, only for reading, and only while it is the same file.
    @Test func ffmpegMayReopenOnlyTheTemporaryFile() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        try "other".write(toFile: dir.path + "/other.mp4", atomically: false, encoding: .utf8)
        let target = try OutputTarget(output: dir.path + "/x.mp4", inputs: [], overwrite: false, sandbox: nil, defaultExtension: "mp4")
        let muxer = try Muxer(target: target, container: .mp4, cancel: nil)
        let ctx = muxer.context
        let open = try #require(ctx.pointee.io_open), close = try #require(ctx.pointee.io_close2)
        var pb: UnsafeMutablePointer<AVIOContext>? = nil
        #expect(open(ctx, &pb, "other.mp4", AVIO_FLAG_READ, nil) == cff_averror(EPERM))
        #expect(open(ctx, &pb, "../x.mp4", AVIO_FLAG_READ, nil) == cff_averror(EPERM))
        let tmp = target.temporaryName
        #expect(tmp.withUnsafeBufferPointer { open(ctx, &pb, $0.baseAddress, AVIO_FLAG_WRITE, nil) } == cff_averror(EPERM))
        #expect(pb == nil)
        #expect(tmp.withUnsafeBufferPointer { open(ctx, &pb, $0.baseAddress, AVIO_FLAG_READ, nil) } == 0)
        #expect(pb != nil)
        #expect(close(ctx, pb) == 0)
        // The name now points at another file: refused, not read.
        #expect(renameat(target.directory, "other.mp4", target.directory, tmp) == 0)
        pb = nil
        #expect(tmp.withUnsafeBufferPointer { open(ctx, &pb, $0.baseAddress, AVIO_FLAG_READ, nil) } == cff_averror(ESTALE))
        #expect(pb == nil)
    }

    /// A thread swaps the output folder for a symlink to an outside folder in a loop while exports run (40 at
    /// least, and until it has swapped 40 times):
    /// every export lands inside the sandbox or is refused, and nothing at all appears outside.
    @Test func folderSwapRaceWritesNothingOutsideTheSandbox() throws {
        let root = TestSupport.tempDir()
        defer { TestSupport.cleanup(root) }
        let sandbox = root.appendingPathComponent("sandbox").path, outside = root.appendingPathComponent("outside").path
        let out = sandbox + "/out", parked = sandbox + "/out.parked"
        for d in [out, outside] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }

        let stop = StopFlag()
        let swaps = SwapCount()
        let swapper = Thread {
            while !stop.isSet {
                rename(out, parked)
                symlink(outside, out)
                usleep(300)
                unlink(out)
                rename(parked, out)
                swaps.add()
                usleep(300)
            }
        }
        swapper.start()
        // At least 40 exports, and on until the swapper has swapped 40 times (a busy machine runs it less often
        // than the exports), within a bound.
        var written = 0, refused = 0, exports = 0
        let began = Date()
        while exports < 40 || (swaps.value <= 40 && exports < 1000 && Date().timeIntervalSince(began) < 120) {
            let i = exports
            exports += 1
            do {
                try TestSupport.export(clip, to: "\(out)/clip-\(i).mp4", preset: i % 4 == 0 ? "low" : "passthrough", sandbox: sandbox)
                written += 1
            } catch ExportError.outputOutsideSandbox, ExportError.outputUnwritable {
                refused += 1
            }
        }
        stop.set()
        while !swapper.isFinished { usleep(1000) }
        if FileSystem.lstat(out).map({ ($0.st_mode & S_IFMT) == S_IFLNK }) == true { unlink(out) }
        if FileSystem.exists(parked) { rename(parked, out) }

        #expect(TestSupport.contents(URL(fileURLWithPath: outside)).isEmpty, "written outside: \(TestSupport.contents(URL(fileURLWithPath: outside)))")
        #expect(TestSupport.contents(root) == ["outside", "sandbox"])
        let inside = try FileManager.default.subpathsOfDirectory(atPath: sandbox)
        #expect(!inside.contains { $0.contains(".mediaexport-tmp-") }, "\(inside)")
        #expect(inside.filter { $0.hasSuffix(".mp4") }.count == written)
        #expect(written + refused == exports)
        #expect(written > 0 && refused > 0, "the race did not happen: \(written) written, \(refused) refused")
        #expect(swaps.value > 40)
    }

    // MARK: Stale temporary files

    enum Leftover: String, CaseIterable {
        case deadWriter, reusedOwnPID, liveOwnFile, liveOtherProcess, lockedByWriter, symlink, folder, notOurName
        var removed: Bool { self == .deadWriter || self == .reusedOwnPID }
    }

    /// The sweep removes a temporary file only when nobody holds its lock and its writer is gone.
    @Test func sweepRemovesOnlyWhatKilledProcessesLeft() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let dead = try Self.deadPID(), me = getpid(), parent = getppid()
        var holders: [Int32] = []
        defer { for fd in holders { close(fd) } }
        var names: [Leftover: String] = [:]
        for kind in Leftover.allCases {
            let name: String
            switch kind {
            case .deadWriter: name = ".a.mp4.mediaexport-tmp-\(dead)-abc"
            case .reusedOwnPID: name = ".b.mp4.mediaexport-tmp-\(me)-abc"
            case .liveOwnFile: name = ".c.mp4.mediaexport-tmp-\(me)-def"
            case .liveOtherProcess: name = ".d.mp4.mediaexport-tmp-\(parent)-abc"
            case .lockedByWriter: name = ".e.mp4.mediaexport-tmp-\(dead)-def"
            case .symlink: name = ".f.mp4.mediaexport-tmp-\(dead)-abc"
            case .folder: name = ".g.mp4.mediaexport-tmp-\(dead)-abc"
            case .notOurName: name = "h.mp4.mediaexport-tmp-\(dead)-abc"
            }
            names[kind] = name
            let path = dir.path + "/" + name
            switch kind {
            case .symlink: try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: clip)
            case .folder: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            default: try "partial".write(toFile: path, atomically: false, encoding: .utf8)
            }
            if kind == .reusedOwnPID {
                // Last written an hour before this process started: another process with our PID wrote it.
                let start = try #require(TemporaryFiles.processStartTime(me))
                var times = [timespec(tv_sec: Int(start) - 3600, tv_nsec: 0), timespec(tv_sec: Int(start) - 3600, tv_nsec: 0)]
                #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
            }
            if kind == .lockedByWriter {
                let fd = open(path, O_RDONLY)
                #expect(flock(fd, LOCK_EX) == 0)
                holders.append(fd)
            }
        }
        let removed = Set(TemporaryFiles.sweep(directory: dir.path))
        for kind in Leftover.allCases {
            let name = try #require(names[kind])
            #expect(removed.contains(name) == kind.removed, "\(kind)")
            #expect(FileSystem.exists(dir.path + "/" + name) == !kind.removed, "\(kind)")
        }
        #expect(FileSystem.exists(clip), "the symlink's target is untouched")
    }

    // MARK: Signals with the real binary

    enum Interruption: String, CaseIterable {
        case sigint, sigterm, sighup, sigkill, closedPipe

        var signal: Int32 {
            switch self {
            case .sigint: return SIGINT
            case .sigterm: return SIGTERM
            case .sighup: return SIGHUP
            case .sigkill: return SIGKILL
            case .closedPipe: return SIGPIPE
            }
        }
        /// 128 + the signal; SIGKILL ends the process before it can say anything.
        var status: Int32 { 128 + signal }
    }

    /// After SIGINT, SIGTERM, SIGHUP, a closed stdout (`| head -1`) or SIGKILL mid-export, the next export
    /// into that folder leaves no temporary file there.
    @Test func interruptedExportsLeaveNoTemporaryFile() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.slowInput(in: dir)
        for kind in Interruption.allCases {
            let out = dir.appendingPathComponent(kind.rawValue)
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let output = out.appendingPathComponent("o.mp4").path
            let status: Int32
            if kind == .closedPipe {
                // The reader goes away after the first line, as `head -1` does.
                let r = try TestSupport.run("/bin/bash", ["-c", "\"$0\" --json --preset highest \"$1\" \"$2\" | head -1 >/dev/null; exit ${PIPESTATUS[0]}",
                                                          TestSupport.binary, input, output])
                status = r.status
            } else {
                status = try TestSupport.interrupt(arguments: ["--json", "--preset", "highest", input, output], with: kind.signal) {
                    #expect(TestSupport.contents(out).contains { $0.contains(".mediaexport-tmp-") }, "\(kind): not mid-export")
                }.status
            }
            if kind == .sigkill {
                #expect(TestSupport.contents(out).contains { $0.contains(".mediaexport-tmp-") }, "SIGKILL leaves the temporary file")
            } else {
                #expect(status == kind.status, "\(kind)")
                #expect(TestSupport.contents(out).isEmpty, "\(kind) left: \(TestSupport.contents(out))")
            }
            let next = try TestSupport.tool(["--preset", "passthrough", "-q", clip, out.appendingPathComponent("next.mov").path])
            #expect(next.status == 0, "\(next.stderr)")
            #expect(TestSupport.contents(out) == ["next.mov"], "\(kind): \(TestSupport.contents(out))")
        }
    }

    // MARK: Helpers

    /// A PID no process has: a child's, after it was reaped.
    private static func deadPID() throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        return p.processIdentifier
    }

    /// 20 s of 640x360 noise: long and heavy enough for an export with `highest` to be mid-way for seconds.
    private static func slowInput(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("slow.mp4").path
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=640x360:rate=30:duration=20",
                                                        "-f", "lavfi", "-i", "sine=frequency=440:duration=20",
                                                        "-vf", "noise=alls=60:allf=t", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "35",
                                                        "-c:a", "aac", "-shortest", path])
        guard r.status == 0 else { throw NSError(domain: "ffmpeg", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: r.stderr]) }
        return path
    }
}

private final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

private final class SwapCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
