import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// Damage told truly on every route (issue 43): corrupt packets, lost frames and lost audio counted apart; a damaged
/// input is salvaged (never remuxed with its damage unseen); every decoder error but a few is a corrupt packet; a
/// demuxer that lost its sync reads on.
@Suite("Damage accounting on every route")
struct DamageAccountTests {
    /// A 10 s 640x360 clip (x264 with a keyframe every 2 s, AAC) as `name` (its extension picks the container).
    static func clip(_ name: String, in dir: URL, seconds: Int = 10, size: String = "640x360") throws -> String {
        let path = dir.appendingPathComponent(name).path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=\(size):r=25:d=\(seconds)", "-f", "lavfi", "-i", "sine=f=440:d=\(seconds)",
                                "-c:v", "libx264", "-g", "50", "-pix_fmt", "yuv420p", "-c:a", "aac", path])
        return path
    }

    /// `path` with `bytes` zero bytes written at `fraction` of its length (its length unchanged), as `name`.
    static func zeroed(_ path: String, bytes: Int, at fraction: Double, as name: String) throws -> String {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let from = Int(Double(data.count) * fraction)
        data.replaceSubrange(from..<min(data.count, from + bytes), with: Data(count: min(bytes, data.count - from)))
        let out = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(name)
        try data.write(to: out)
        return out.path
    }

    /// The `completed` record's damage account.
    static func damage(_ payload: [String: Any]) -> [String: Any] { payload["damage"] as? [String: Any] ?? [:] }

    @Test("An MP4 or MOV with 128 kB zeroed at 40 %: salvage, exit 3, an account whose frames match what ffmpeg decodes",
          arguments: ["mp4", "mov"])
    func zeroedQuickTimeIsSalvaged(ext: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.zeroed(try Self.clip("clean.\(ext)", in: dir), bytes: 128 << 10, at: 0.4, as: "zeroed.\(ext)")
        let out = dir.appendingPathComponent("out.mp4").path
        let r = try TestSupport.tool(["--json", "-p", "low", input, out])
        let (kind, payload, fallbacks) = VerificationTests.outcome(r)
        #expect(r.status == ExitStatus.completedWithFallback && kind == "completed", "\(r.stdout)\n\(r.stderr)")
        #expect(payload["route"] as? String == "salvage" && fallbacks.count == 1, "never a remux of the damage: \(fallbacks)")
        let damage = Self.damage(payload)
        #expect((damage["corruptPackets"] as? Int ?? 0) > 0, "\(damage)")
        let delivered = damage["videoFrames"] as? Int ?? 0, decodes = try SalvageTests.decodableFrames(out)
        #expect(delivered > 150 && abs(delivered - decodes) <= decodes / 50, "account \(delivered) frames, ffmpeg decodes \(decodes)")
        #expect((payload["partial"] as? [String: Any]) != nil)
        let human = try TestSupport.tool(["-p", "low", input, dir.appendingPathComponent("again.mp4").path])
        #expect(human.stderr.contains("WARNING: partial output: ") && human.stdout.contains("(damage: "), "\(human.stdout)\(human.stderr)")
    }

    @Test("A remux sees a zeroed MP4's damage without decoding (NAL lengths of 0): passthrough goes to the salvage, counted")
    func remuxCountsZeroedPackets() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = try Self.zeroed(try Self.clip("clean.mp4", in: dir), bytes: 128 << 10, at: 0.4, as: "zeroed.mp4")
        let r = try TestSupport.tool(["--json", "-p", "passthrough", input, dir.appendingPathComponent("out.mp4").path])
        let (_, payload, fallbacks) = VerificationTests.outcome(r)
        #expect(r.status == ExitStatus.completedWithFallback && payload["route"] as? String == "salvage", "\(r.stdout)\n\(r.stderr)")
        #expect(fallbacks.count == 1 && (Self.damage(payload)["corruptPackets"] as? Int ?? 0) > 25, "\(fallbacks) \(payload)")
        #expect((payload["warnings"] as? [String] ?? []).contains { $0.hasSuffix("corrupt packets or frames copied as they are") })
    }

    @Test("In a batch, a zeroed upload's row says salvage with its damage account, in the JSON and the CSV report")
    func batchRowSaysTheDamage() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        let clean = try Self.clip("clean.mp4", in: dir)
        _ = try Self.zeroed(clean, bytes: 128 << 10, at: 0.4, as: "uploads/zeroed.mp4")
        let json = dir.appendingPathComponent("report.json").path, csv = dir.appendingPathComponent("report.csv").path
        let r = try TestSupport.tool(["batch", uploads.path, "--out", dir.appendingPathComponent("out").path, "--preset", "low", "-q",
                                      "--report", json])
        #expect(r.status == ExitStatus.completedWithFallback, "\(r.stdout)\n\(r.stderr)")
        let row = try #require(try BatchReport.read(json).first { $0.key == "zeroed.mp4" })
        #expect(row.route == "salvage" && row.account?.partial != nil, "\(row)")
        #expect((row.account?.damage?.corruptPackets ?? 0) > 0, "\(String(describing: row.account))")
        _ = try TestSupport.tool(["batch", uploads.path, "--out", dir.appendingPathComponent("out").path, "--preset", "low", "-q",
                                  "--report", csv])
        let text = try String(contentsOfFile: csv, encoding: .utf8)
        #expect(text.hasPrefix(BatchReport.columns.joined(separator: ",")) && text.contains("corrupt packets"), "\(text)")
    }

    @Test("One AAC packet the decoder answers with EPERM (decode_pce on a flipped bit): transcoded at 640x360, 1 corrupt packet")
    func aacErrorOtherThanInvalidDataIsOneCorruptPacket() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let clean = try Self.clip("clean.mp4", in: dir, seconds: 3, size: "1280x720")
        // The AAC packet at 1.904 s, its bit 35 flipped: a program config element that overreads (-1, EPERM).
        let probe = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts_time,pos",
                                                             "-of", "csv=p=0", clean])
        let position = probe.stdout.split(separator: "\n").first { $0.hasPrefix("1.904036,") }.flatMap { Int($0.split(separator: ",")[1]) }
        let at = try #require(position, "no AAC packet at 1.904 s")
        var data = try Data(contentsOf: URL(fileURLWithPath: clean))
        data[at + 4] ^= 0x10
        let input = dir.appendingPathComponent("eperm.mp4").path
        try data.write(to: URL(fileURLWithPath: input))
        let cli = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "error", "-i", input, "-f", "null", "-"])
        try #require(cli.stderr.contains("Operation not permitted"), "the fixture no longer makes EPERM: \(cli.stderr)")

        let r = try TestSupport.tool(["--json", "-p", "low", input, dir.appendingPathComponent("out.mp4").path])
        let (kind, payload, fallbacks) = VerificationTests.outcome(r)
        #expect(r.status == ExitStatus.success && kind == "completed" && fallbacks.isEmpty, "\(r.stdout)\n\(r.stderr)")
        #expect(payload["route"] as? String == "transcode" && payload["width"] as? Int == 640)
        #expect(Self.damage(payload)["corruptPackets"] as? Int == 1, "\(payload)")
        #expect((payload["warnings"] as? [String] ?? []).contains { $0.hasPrefix("1 corrupt packet") })
    }

    @Test("An MPEG-TS with 400 kB zeroed: the demuxer reads on past it; low → .mp4 by salvage; --damaged fail writes nothing")
    func transportStreamResyncs() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let ts = dir.appendingPathComponent("clean.ts").path
        try TestSupport.ffmpeg(["-i", try Self.clip("clean.mp4", in: dir), "-c", "copy", ts])
        let input = try Self.zeroed(ts, bytes: 400 << 10, at: 0.4, as: "zeroed.ts")
        let out = dir.appendingPathComponent("out.mp4").path
        let r = try TestSupport.tool(["--json", "-p", "low", input, out])
        let (_, payload, _) = VerificationTests.outcome(r)
        #expect(r.status == ExitStatus.completedWithFallback && payload["route"] as? String == "salvage", "\(r.stdout)\n\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: out) && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.ts").path))
        let cli = try SalvageTests.decodableFrames(input), got = try SalvageTests.decodableFrames(out)
        #expect(cli > 100 && abs(got - cli) <= cli / 20, "delivered \(got) frames, the ffmpeg CLI decodes \(cli)")
        let damage = Self.damage(payload)
        #expect((damage["unreadableBytes"] as? Int ?? 0) > 0 && (damage["lostFrames"] as? Int ?? 0) > 0, "\(damage)")

        let failed = try TestSupport.tool(["--damaged", "fail", "-p", "low", input, dir.appendingPathComponent("fail.mp4").path])
        #expect(failed.status == ExitStatus.exportFailed, "\(failed.stderr)")
        #expect(!TestSupport.contents(dir).contains { $0.hasPrefix("fail") }, "\(TestSupport.contents(dir))")
    }

    @Test("An MKV with a zeroed stretch: its lost frames count, so --damaged fail writes nothing, and a remux is no escape")
    func matroskaHoleCounts() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let mkv = dir.appendingPathComponent("clean.mkv").path
        try TestSupport.ffmpeg(["-i", try Self.clip("clean.mp4", in: dir), "-c", "copy", mkv])
        let input = try Self.zeroed(mkv, bytes: 128 << 10, at: 0.4, as: "zeroed.mkv")
        let failed = try TestSupport.tool(["--damaged", "fail", "-p", "low", input, dir.appendingPathComponent("fail.mp4").path])
        #expect(failed.status == ExitStatus.exportFailed, "\(failed.stdout)\n\(failed.stderr)")
        #expect(!TestSupport.contents(dir).contains { $0.hasPrefix("fail") })

        let copied = try TestSupport.tool(["--json", "-p", "passthrough", input, dir.appendingPathComponent("copy.mp4").path])
        let (_, payload, _) = VerificationTests.outcome(copied)
        #expect(copied.status == ExitStatus.completedWithFallback && payload["route"] as? String == "salvage", "\(copied.stdout)")
        #expect((Self.damage(payload)["lostFrames"] as? Int ?? 0) > 40, "\(payload)")
    }

    @Test("A clean `ffmpeg -t 2 -c copy` cut (MP4, MPEG-TS) and a clean MKV copy are no damage, on the transcode and the remux",
          arguments: ["low", "passthrough"])
    func cleanCutsAreNoDamage(preset: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let clean = try Self.clip("clean.mp4", in: dir)
        let cut = dir.appendingPathComponent("cut.mp4").path, mkv = dir.appendingPathComponent("whole.mkv").path
        let cutTS = dir.appendingPathComponent("cut.ts").path
        try TestSupport.ffmpeg(["-i", clean, "-t", "2", "-c", "copy", cut])
        try TestSupport.ffmpeg(["-i", clean, "-t", "2", "-c", "copy", cutTS])
        try TestSupport.ffmpeg(["-i", clean, "-c", "copy", mkv])
        for input in [cut, cutTS, mkv] {
            let r = try TestSupport.tool(["--json", "-p", preset, input, dir.appendingPathComponent("out-\(preset).mp4").path, "--overwrite"])
            let (kind, payload, _) = VerificationTests.outcome(r)
            #expect(r.status == ExitStatus.success && kind == "completed", "\(input): \(r.stdout)\n\(r.stderr)")
            #expect(payload["damage"] == nil && payload["skippedPackets"] as? Int == 0, "\(input): \(payload)")
            let warnings = payload["warnings"] as? [String] ?? []
            #expect(!warnings.contains { $0.contains("corrupt") || $0.contains("frames missing") || $0.contains("frame missing") }, "\(input): \(warnings)")
        }
    }
}
