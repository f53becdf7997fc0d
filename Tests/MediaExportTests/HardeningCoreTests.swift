import Dispatch
import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// File names as bytes, the cancel flag and the stall watchdog's clock (issue 12, items 7 and 9).
@Suite("Hardening: names, cancel flag, watchdog")
struct HardeningCoreTests {
    // MARK: File names as bytes

    @Test("Names that are not UTF-8 round-trip byte for byte", arguments: [
        [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6D, 0x70, 0x34] as [UInt8],  // Latin-1 "café.mp4"
        Array("clip – été.mov".utf8),                                  // valid UTF-8 stays as it is
        [0xFF, 0xFE, 0x80, 0x41],                                      // bytes that never start UTF-8
        [0xE2, 0x82],                                                  // a sequence cut short
        [0xC0, 0xAF],                                                  // an overlong "/"
        [0xED, 0xA0, 0x80],                                            // an encoded surrogate
        Array("\u{10FFE9}x".utf8),                                     // a real scalar of the escape block
    ])
    func roundTrip(bytes: [UInt8]) {
        let name = FileName.decode(bytes)
        #expect(FileName.bytes(name) == bytes)
        #expect(FileName.cString(name).dropLast().map { UInt8(bitPattern: $0) } == bytes)
        #expect(FileName.cString(name).last == 0)
    }

    @Test("Random byte strings round-trip")
    func randomRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let count = Int.random(in: 0...24, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 1...255, using: &generator) }
            #expect(FileName.bytes(FileName.decode(bytes)) == bytes)
        }
    }

    @Test("Valid UTF-8 decodes to the ordinary string")
    func ordinaryNames() {
        #expect(FileName.decode(Array("IMG_1234 été.MOV".utf8)) == "IMG_1234 été.MOV")
        #expect(!FileName.hasRawBytes("IMG_1234 été.MOV"))
        #expect(FileName.hasRawBytes(FileName.decode([0x61, 0xE9])))
    }

    @Test("Display escapes raw bytes and control characters")
    func display() {
        #expect(FileName.display(FileName.decode([0x63, 0x61, 0x66, 0xE9])) == "caf\\xE9")
        #expect(FileName.display("a\nb\u{1B}[31m") == "a\\u{A}b\\u{1B}[31m")
        #expect(FileName.display("plain.mov") == "plain.mov")
    }

    @Test("JSON lines and the human summary show a name's raw bytes as \\xE9, never as private-use scalars")
    func rawBytesInRenderedOutput() throws {
        let path = "/out/" + FileName.decode([0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6D, 0x34, 0x61])  // Latin-1 "café.m4a"
        let completed = ExportEvent.Completed(output: path, bytes: 1, duration: 1, codecs: ["aac"], width: nil, height: nil,
                                              wallTime: 0, skippedPackets: 0, notes: [], version: nil)
        let line = ExportEvent.completed(completed).jsonLine()
        #expect(!FileName.hasRawBytes(line))
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect((object?["payload"] as? [String: Any])?["output"] as? String == "/out/caf\\xE9.m4a")
        #expect(HumanSummary.completed(completed).hasPrefix("Exported /out/caf\\xE9.m4a: aac"))
    }

    @Test("Clip cuts long user text and says how long it was")
    func clip() {
        let long = String(repeating: "k", count: 100_000)
        let clipped = FileName.clip(long)
        #expect(clipped.utf8.count < 260)
        #expect(clipped.hasSuffix("… (100000 bytes)"))
        #expect(FileName.clip("short") == "short")
    }

    @Test("A Latin-1 name is a real file through FileSystem")
    func latin1File() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let name = dir.path + "/" + FileName.decode([0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6D, 0x70, 0x34])
        let fd = open(FileName.cString(name), O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(fd >= 0)
        close(fd)
        #expect(FileSystem.isRegularFile(name))
        #expect(FileSystem.contents(ofDirectory: dir.path) == [(name as NSString).lastPathComponent])
        #expect(FileSystem.realPath(name).map(FileName.bytes) == FileSystem.realPath(dir.path).map { FileName.bytes($0 + "/") + [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6D, 0x70, 0x34] })
    }

    @Test("Reading a small file refuses one over the limit before reading it")
    func boundedRead() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = dir.appendingPathComponent("big.json").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(count: 2_000_000)))
        #expect(throws: FileSystem.ReadError.tooLarge(size: 2_000_000, limit: 1 << 20)) { try FileSystem.read(path, limit: 1 << 20) }
        #expect(try FileSystem.read(path, limit: 4 << 20).count == 2_000_000)
    }

    // MARK: Cancel flag and watchdog (item 9)

    /// The SIGILL of a long series of exports: the watchdog read the clock, then the last progress; a
    /// `touch()` in between put the progress after "now" and the unsigned subtraction trapped.
    @Test("The watchdog's idle time never traps when progress is newer than its clock reading")
    func idleNeverTraps() {
        let now = DispatchTime.now()
        let later = DispatchTime(uptimeNanoseconds: now.uptimeNanoseconds + 5_000)
        #expect(StallWatchdog.idleSeconds(now: now, since: later) == 0)
        #expect(StallWatchdog.idleSeconds(now: later, since: now) > 0)
    }

    @Test("A stall never replaces a cancellation, and clearing a stall never clears a cancellation")
    func cancelStands() {
        let flag = CancelToken()
        #expect(flag.markStalled())
        #expect(flag.value == CancelToken.stalled)
        flag.clearStall()
        #expect(!flag.isSet)
        flag.cancel()
        #expect(!flag.markStalled())
        flag.clearStall()
        #expect(flag.value == CancelToken.cancelled)
    }

    @Test("A watchdog touched from another thread many times a millisecond neither traps nor stalls")
    func touchedWatchdog() async {
        let flag = CancelToken()
        // A timeout well above a descheduled thread's pause on a loaded machine: the test is about the touches.
        let watchdog = StallWatchdog(timeout: 1.5, token: flag)
        let deadline = Date().addingTimeInterval(1.0)
        while Date() < deadline { watchdog.touch() }
        watchdog.stop()
        #expect(!flag.isSet)
    }
}
