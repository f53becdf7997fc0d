import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Audio stays on its pictures across breaks in its timestamps (issue 29): missing packets become silence at their
/// place, audio whose timestamps go back over audio already placed is dropped, and both are named in the warnings.
/// The oracle is the source's own timeline: after a break, the output's audio at time t must match the source's
/// audio at time t, found by cross-correlating both decoded to mono 8 kHz PCM.
@Suite struct AudioGapTests {
    /// Sample rate of the PCM the measurements decode to.
    static let rate = 8000

    /// 8 s of testsrc2 with pink noise (seeded: the same every run; structure at every lag, so a correlation peak
    /// is unambiguous), H.264 + mono AAC in Matroska; `bsf` rewrites the audio's timestamps.
    static func makeClip(_ path: String, audioBSF: String? = nil) throws {
        let base = path + ".base.mkv"
        try TimestampTests.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:d=8:r=25", "-f", "lavfi", "-i", "anoisesrc=d=8:c=pink:r=48000:a=0.3:seed=7",
                                   "-c:v", "libx264", "-preset", "ultrafast", "-bf", "0", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "1", base])
        guard let audioBSF else { try FileManager.default.moveItem(atPath: base, toPath: path); return }
        try TimestampTests.ffmpeg(["-i", base, "-c", "copy", "-bsf:a", audioBSF, path])
        try FileManager.default.removeItem(atPath: base)
    }

    /// Mono 8 kHz PCM of `path`'s first audio stream; `timeline`: placed by its timestamps (silence where they jump
    /// ahead, overlaps dropped: the source's own timeline), else sample after sample as stored.
    static func pcm(_ path: String, timeline: Bool) throws -> [Float] {
        let filter = timeline ? ["-af", "aresample=async=1:min_hard_comp=0.01:first_pts=0"] : []
        let out = path + ".pcm"
        try TimestampTests.ffmpeg(["-i", path, "-vn"] + filter + ["-f", "s16le", "-ac", "1", "-ar", "\(rate)", out])
        defer { try? FileManager.default.removeItem(atPath: out) }
        let data = try Data(contentsOf: URL(fileURLWithPath: out))
        return data.withUnsafeBytes { raw in raw.bindMemory(to: Int16.self).map { Float($0) } }
    }

    /// The lag (seconds, within ±`range`) at which `reference` best matches `signal`'s window [`at`, `at` + 0.5 s):
    /// 0 when the signal plays there what the reference plays at the same time; positive when it plays early.
    static func lag(of signal: [Float], against reference: [Float], at: Double, range: Double = 2.5) -> Double {
        let n = rate / 2, start = Int(at * Double(rate)), span = Int(range * Double(rate))
        precondition(start + n <= signal.count, "the window lies past the signal's end")
        return signal.withUnsafeBufferPointer { a in
            reference.withUnsafeBufferPointer { b in
                var best = (lag: 0, score: -Float.infinity)
                for lag in -span...span where start + lag >= 0 && start + lag + n <= b.count {
                    var dot: Float = 0, energy: Float = 0
                    for i in 0..<n {
                        let y = b[start + lag + i]
                        dot += a[start + i] * y
                        energy += y * y
                    }
                    let score = dot / (energy.squareRoot() + 1)
                    if score > best.score { best = (lag, score) }
                }
                return Double(best.lag) / Double(rate)
            }
        }
    }

    /// Root mean square of `signal` over [`from`, `to`) seconds.
    static func rms(_ signal: [Float], from: Double, to: Double) -> Float {
        let part = signal[Int(from * Double(rate))..<Int(to * Double(rate))]
        return (part.reduce(0) { $0 + $1 * $1 } / Float(part.count)).squareRoot()
    }

    /// The seconds of audio dropped and where, from a warning about a break in audio stream #1.
    static func dropped(_ warning: String) -> (seconds: Double, at: Double)? {
        guard let m = warning.firstMatch(of: /^audio stream #1: ([0-9.]+) s of audio dropped at ([0-9.]+) s where its timestamps go back/),
              let seconds = Double(m.1), let at = Double(m.2) else { return nil }
        return (seconds, at)
    }

    /// The warnings about breaks in audio.
    static func gapWarnings(_ c: ExportEvent.Completed) -> [String] { c.warnings.filter { $0.hasPrefix("audio stream #") } }

    @Test func missingPacketsBecomeSilenceAtTheirPlace() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("gap.mkv").path, out = dir.appendingPathComponent("out.mp4").path
        // The audio jumps 2 s ahead at 3 s: 3 s of packets, none for 2 s, then the rest.
        try Self.makeClip(input, audioBSF: "setts=ts=TS+gte(TS*TB\\,3)*2/TB")
        let completed = try TestSupport.export(input, to: out, preset: "highest")
        #expect(completed.route == .transcode)
        let warnings = Self.gapWarnings(completed)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("audio stream #1: 2.0") == true && warnings.first?.contains("s of silence inserted at 3.0") == true,
                "\(warnings)")
        #expect(warnings.first?.hasSuffix("where packets are missing") == true)
        let source = try Self.pcm(input, timeline: true), output = try Self.pcm(out, timeline: false)
        for at in [1.0, 5.5, 6.5, 7.3] {
            let lag = Self.lag(of: output, against: source, at: at)
            #expect(abs(lag) <= 0.04, "at \(at) s the output plays the source's audio of \(at + lag) s")
        }
        // Silence where packets are missing; and independently of ffmpeg's placing, the clip's own audio 2 s later.
        #expect(Self.rms(output, from: 3.1, to: 4.9) < 1)
        let cleanInput = dir.appendingPathComponent("clean.mkv").path
        try Self.makeClip(cleanInput)
        let clean = try Self.pcm(cleanInput, timeline: false)
        #expect(abs(Self.lag(of: output, against: clean, at: 6.0) + 2) <= 0.04)
    }

    /// A range cut around the break: the silence is named where it is in the output, and the audio after it plays
    /// what the source plays 2 s later (the range's start).
    @Test func aRangeAcrossTheGapKeepsItInPlace() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("gap.mkv").path, out = dir.appendingPathComponent("out.mp4").path
        try Self.makeClip(input, audioBSF: "setts=ts=TS+gte(TS*TB\\,3)*2/TB")
        let completed = try TestSupport.export(input, to: out, preset: "highest", range: TimeRange(start: 2, end: 7))
        let warnings = Self.gapWarnings(completed)
        #expect(warnings.count == 1 && warnings.first?.hasPrefix("audio stream #1: 2.00 s of silence inserted at 1.0") == true, "\(warnings)")
        let source = try Self.pcm(input, timeline: true), output = try Self.pcm(out, timeline: false)
        for at in [0.5, 3.5, 4.3] {
            let lag = Self.lag(of: output, against: source, at: at)
            #expect(abs(lag - 2) <= 0.04, "at \(at) s the output plays the source's audio of \(at + lag) s")
        }
    }

    @Test func audioGoingBackOverPlacedAudioIsDroppedAndNamed() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("back.mkv").path, out = dir.appendingPathComponent("out.mp4").path
        // From 3 s on, the audio's timestamps are 0.5 s earlier: half a second of it overlaps the audio before.
        try Self.makeClip(input, audioBSF: "setts=ts=TS-gte(TS*TB\\,3)*0.5/TB")
        let completed = try TestSupport.export(input, to: out, preset: "highest")
        // The Matroska muxer that wrote it clamped the timestamps that went back to the last one before (2.986 s, 23
        // packets): those frames overlap; the first of them is within `AudioResampler.tolerance`, the rest is dropped.
        let warnings = Self.gapWarnings(completed)
        #expect(warnings.count == 1)
        let dropped = try #require(warnings.first.flatMap(Self.dropped))
        #expect(dropped.seconds > 0.44 && dropped.seconds <= 0.5 && dropped.at > 3.0 && dropped.at < 3.05, "\(warnings)")
        let source = try Self.pcm(input, timeline: true), output = try Self.pcm(out, timeline: false)
        for at in [1.0, 4.0, 6.0] {
            let lag = Self.lag(of: output, against: source, at: at)
            #expect(abs(lag) <= 0.04, "at \(at) s the output plays the source's audio of \(at + lag) s")
        }
    }

    @Test func audioWithoutBreaksIsLeftAlone() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = dir.appendingPathComponent("clean.mkv").path
        try Self.makeClip(input)
        let a = dir.appendingPathComponent("a.mp4").path, b = dir.appendingPathComponent("b.mp4").path
        let completed = try TestSupport.export(input, to: a, preset: "highest")
        #expect(completed.warnings.isEmpty, "\(completed.warnings)")
        #expect(completed.timestampRepairs == 0)
        let source = try Self.pcm(input, timeline: false), output = try Self.pcm(a, timeline: false)
        for at in [1.0, 4.0, 7.0] { #expect(Self.lag(of: output, against: source, at: at, range: 0.5) == 0) }
        // Every AAC frame starts where the previous one ends; a second export is the same file.
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts", "-of", "csv=p=0", a])
        let pts = r.stdout.split(separator: "\n").compactMap { Int($0.split(separator: ",").first ?? "") }.sorted()
        #expect(pts.count > 300 && zip(pts.dropFirst(), pts).allSatisfy { $0 - $1 == 1024 })
        _ = try TestSupport.export(input, to: b, preset: "highest")
        #expect(try TestSupport.sha256(a) == TestSupport.sha256(b))
    }

    /// 64 KiB zeroed in the middle of a Matroska file (a cluster lost), exported by the real tool: the completed
    /// record names the silence, the exit status is 0, and after the damage the audio plays what the undamaged
    /// clip plays at the same time.
    @Test func damagedMatroskaStaysInSyncThroughTheTool() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let clean = dir.appendingPathComponent("clean.mkv").path, damaged = dir.appendingPathComponent("damaged.mkv").path
        let out = dir.appendingPathComponent("out.mp4").path
        try Self.makeClip(clean)
        var data = try Data(contentsOf: URL(fileURLWithPath: clean))
        data.replaceSubrange(data.count / 2..<data.count / 2 + 65536, with: Data(count: 65536))
        try data.write(to: URL(fileURLWithPath: damaged))
        let r = try TestSupport.tool(["--json", "--preset", "highest", damaged, out])
        #expect(r.status == 0, "\(r.stderr)")
        let last = try #require(r.stdout.split(separator: "\n").last)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect(record["kind"] as? String == "completed")
        let warnings = (record["payload"] as? [String: Any])?["warnings"] as? [String] ?? []
        let line = try #require(warnings.first { $0.contains("s of silence inserted at") }, "\(warnings)")
        let m = try #require(line.firstMatch(of: /audio stream #1: ([0-9.]+) s of silence inserted at ([0-9.]+) s where packets are missing/))
        let resumes = try #require(Double(m.2)) + (try #require(Double(m.1)))
        let reference = try Self.pcm(clean, timeline: false), output = try Self.pcm(out, timeline: false)
        for at in [1.0, resumes + 0.3, 7.3] where at < 7.5 {
            let lag = Self.lag(of: output, against: reference, at: at)
            #expect(abs(lag) <= 0.04, "at \(at) s the output plays the clip's audio of \(at + lag) s")
        }
    }

    @Test func warningsNameEachBreak() {
        let gaps = [AudioGap(stream: 1, at: 3.008, seconds: 2.0), AudioGap(stream: 1, at: 6.5, seconds: -0.25),
                    AudioGap(stream: 2, at: 1, seconds: 0.1), AudioGap(stream: 2, at: 2, seconds: 0.2)]
        #expect(Accounting.gapWarnings(gaps) == [
            "audio stream #1: 2.00 s of silence inserted at 3.01 s where packets are missing",
            "audio stream #1: 0.25 s of audio dropped at 6.50 s where its timestamps go back over audio already placed",
            "audio stream #2: 0.30 s of silence inserted in 2 places (at 1.00 s, 2.00 s) where packets are missing",
        ])
    }
}
