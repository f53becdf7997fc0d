import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// The exit status of the real binary when a signal arrives: 128 + the signal for work it cancelled, the
/// work's own status for work that was already over (found by scripts/stress.sh).
@Suite("Signal exit status") struct SignalExitTests {
    /// A running `mediaexport` whose stdout and stderr are collected as they come.
    private final class Running: @unchecked Sendable {
        let process = Process()
        private let out = LockedBox(Data()), err = LockedBox(Data())
        private let done = DispatchGroup()

        init(_ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: TestSupport.binary)
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            let outPipe = Pipe(), errPipe = Pipe()
            process.standardOutput = outPipe
            process.standardError = errPipe
            try process.run()
            collect(outPipe, toStderr: false)
            collect(errPipe, toStderr: true)
        }

        private func collect(_ pipe: Pipe, toStderr: Bool) {
            done.enter()
            DispatchQueue.global().async { [self] in
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    if toStderr { err.withLock { $0.append(chunk) } } else { out.withLock { $0.append(chunk) } }
                }
                done.leave()
            }
        }

        var stdout: String { out.withLock { String(decoding: $0, as: UTF8.self) } }
        var stderr: String { err.withLock { String(decoding: $0, as: UTF8.self) } }

        /// Waits up to `timeout` seconds for `text` on stderr (or stdout); false if it never came.
        func await(_ text: String, onStdout: Bool = false, timeout: Double = 60) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if (onStdout ? stdout : stderr).contains(text) { return true }
                if !process.isRunning {
                    // The process is gone; its last output may still be in the pipe: wait for the readers (a group
                    // may be waited on any number of times).
                    _ = done.wait(timeout: .now() + 5)
                    return (onStdout ? stdout : stderr).contains(text)
                }
                usleep(10_000)
            }
            return false
        }

        /// Waits for the end; the exit status, or 128 + the signal that killed it.
        func finish() -> Int32 {
            process.waitUntilExit()
            done.wait()
            return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        }
    }

    @Test("a batch waiting for another batch's lock exits 128 + the signal, nothing written",
          arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130)), (SIGHUP, Int32(129))])
    func waitingBatchSignalled(signal: Int32, expected: Int32) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads").path
        try FileManager.default.createDirectory(atPath: uploads, withIntermediateDirectories: true)
        for name in ["landscape.mov", "odd-322x242.mov"] {
            try FileManager.default.copyItem(atPath: TestSupport.fixture(name), toPath: uploads + "/" + name)
        }
        let out = dir.appendingPathComponent("out").path
        try BatchPlanner.makeDirectories(out)
        // Another batch: this process holds the folder's lock (an flock on out/.mediaexport.lock) throughout.
        let held = try BatchLock.acquire(directory: try BatchPlanner.outputRoot(out, create: false), wait: false)
        defer { held.release() }

        let batch = try Running(["batch", uploads, "--out", out, "--preset", "passthrough", "--jobs", "2", "-q", "--wait"])
        #expect(batch.await("waiting for it"), "the batch never said it was waiting: \(batch.stderr)")
        kill(batch.process.processIdentifier, signal)
        let status = batch.finish()
        #expect(status == expected, "\(batch.stderr)")
        #expect(batch.stderr.contains("cancelled"), "\(batch.stderr)")
        #expect(TestSupport.contents(URL(fileURLWithPath: out)) == [BatchLock.fileName], "no database, no output")
    }

    /// A signal that arrives once the output is committed ("Exported …" printed) no longer changes the
    /// outcome: exit 0 and the file stays. (A race before the fix: it exited 130 when the signal landed after
    /// the handlers were reset to their default action; now it must never.)
    @Test("a signal after the export is committed: exit 0, the output kept", arguments: [SIGINT, SIGTERM, SIGHUP])
    func lateSignalKeepsOutcome(signal: Int32) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let output = dir.appendingPathComponent("result.mov").path
        let export = try Running(["--preset", "passthrough", "--stall-timeout", "1", "--overwrite",
                                  TestSupport.fixture("landscape.mov"), output])  // not -q: it prints nothing on success
        #expect(export.await("Exported", onStdout: true), "no summary: \(export.stderr)")
        if export.process.isRunning { kill(export.process.processIdentifier, signal) }
        let status = export.finish()
        #expect(status == 0, "\(export.stderr)")
        #expect(FileManager.default.fileExists(atPath: output))
        #expect(TestSupport.contents(dir) == ["result.mov"], "no temporary file left")
    }

    /// A process stopped (Ctrl-Z, a frozen cgroup, a paused VM) for longer than `--stall-timeout` made no
    /// progress because it did not run: once continued, the transcode goes on and is delivered, not abandoned for
    /// a remux (issue 29, item 5).
    @Test("a transcode stopped longer than --stall-timeout, then continued, is delivered as a transcode")
    func stoppedIsNotStalled() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("clip.mp4").path, output = dir.appendingPathComponent("out.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=4", "-c:v", "libx264", "-preset", "ultrafast", input])
        // A timeout no loaded machine's pause between two packets reaches (2 s did, with two test processes on two
        // cores), and a stop well past it.
        let export = try Running(["--json", "--preset", "highest", "--stall-timeout", "6", "--overwrite", input, output])
        #expect(export.await("\"progress\"", onStdout: true), "no progress: \(export.stderr)")
        kill(export.process.processIdentifier, SIGSTOP)
        sleep(9)
        // A stopped process cannot end: still running here means the stop really came in the middle of the transcode.
        let stoppedMidway = export.process.isRunning
        kill(export.process.processIdentifier, SIGCONT)
        let status = export.finish()
        #expect(stoppedMidway, "the export ended before it was stopped: make the clip longer")
        #expect(status == 0, "\(export.stderr)")
        let completed = export.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { $0["kind"] as? String == "completed" }?["payload"] as? [String: Any]
        #expect(completed?["route"] as? String == "transcode", "\(export.stdout)")
        #expect((completed?["fallbacks"] as? [Any])?.isEmpty ?? true, "\(completed ?? [:])")
    }
}
