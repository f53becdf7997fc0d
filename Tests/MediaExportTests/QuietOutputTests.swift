import Foundation
import Testing
@testable import MediaExportCore
@testable import mediaexport

/// Quiet by default, loud when it matters (issue 46): what the request chose is said once, in the plan, never as a
/// WARNING; a fallback's plan does not say again what the first one said; the progress shows no size before media
/// is written, and on a terminal its line keeps one width that fits.
@Suite struct QuietOutputTests {
    @Test("--preset m4a on a clip with video: the plan says once that the video is left out; no WARNING")
    func audioOnlyPresetLeavesOutTheVideoWithoutAWarning() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("o.m4a").path
        let r = try TestSupport.tool(["-p", "m4a", TestSupport.fixture("landscape.mov"), out])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.components(separatedBy: "\n")
        #expect(lines.filter { $0 == "  #0 video h264: dropped (preset m4a has no video)" }.count == 1, "\(r.stderr)")
        #expect(!r.stderr.contains("WARNING") && !r.stdout.contains("WARNING"), "\(r.stdout)\(r.stderr)")
        #expect(try FFprobe(out).streams.map(\.type) == ["audio"])
    }

    @Test("A cut file's transcode that falls back to a salvage says each plan line once, and the fallback")
    func salvageSaysItsPlanOnce() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let cut = try SalvageTests.cutMOV(in: dir)
        let r = try TestSupport.tool(["-p", "1280x720", cut, dir.appendingPathComponent("out.mp4").path])
        #expect(r.status == ExitStatus.completedWithFallback, "\(r.stderr)")
        let lines = r.stderr.components(separatedBy: "\n")
        let plan = lines.filter { $0.hasSuffix(" [1280x720]") || $0.hasPrefix("  #") }
        #expect(plan.count == 3 && plan.first?.hasSuffix("out.mp4 [1280x720]") == true, "\(r.stderr)")
        #expect(plan.dropFirst() == ["  #0 video h264 → h264 640x360", "  #1 audio aac → aac (44100 → 48000 Hz)"], "\(r.stderr)")
        #expect(lines.filter { $0.hasPrefix("mediaexport: fallback: transcode → salvage: ") }.count == 1, "\(r.stderr)")
    }

    @Test("Progress lines in a pipe show no size until media is written (not the header's 48 B)")
    func noSizeBeforeMedia() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let r = try TestSupport.tool(["-p", "1280x720", TestSupport.fixture("landscape.mov"), dir.appendingPathComponent("o.mp4").path])
        #expect(r.status == 0, "\(r.stderr)")
        let progress = r.stderr.components(separatedBy: "\n").filter { $0.hasPrefix("progress ") }
        #expect(progress.count >= 2, "\(r.stderr)")
        // A size under a kilobyte is a header and nothing else: never shown.
        #expect(!progress.contains { $0.range(of: #"  \d+ B(  |$)"#, options: .regularExpression) != nil }, "\(progress)")
        #expect(progress.last?.contains(" kB") == true, "\(progress)")
    }

    @Test("The bar keeps one width from the first update (no rate, size or ETA yet) to the last, and fits the terminal")
    func barKeepsItsWidth() {
        let first = ExportEvent.Progress(fraction: 0, outputTime: 0, speed: 0, fps: 0, elapsed: 0.2)
        let later = ExportEvent.Progress(fraction: 0.62, outputTime: 6.2, speed: 1.37, fps: 41, elapsed: 754, eta: 458, bytesWritten: 172_900)
        for columns in [40, 60, 80, 120] {
            for video in [true, false] {
                let a = ProgressRenderer.bar(first, columns: columns, framesPerSecond: video)
                let b = ProgressRenderer.bar(later, columns: columns, framesPerSecond: video)
                #expect(a.count == b.count && b.count <= columns - 1 && a.hasPrefix("[") && b.hasPrefix("["), "\(columns):\n\(a)\n\(b)")
                #expect(b.contains("62%") && b.contains("ETA 7:38"), "\(columns): \(b)")
            }
        }
        let wide = ProgressRenderer.bar(later, columns: 80, framesPerSecond: true)
        #expect(wide.contains("41 fps") && wide.contains("12:34") && wide.contains("172.9 kB"), "\(wide)")
        #expect(!ProgressRenderer.bar(later, columns: 40, framesPerSecond: true).contains("kB"), "the size goes before the bar does")
    }

    @Test("On a terminal of 40 columns (COLUMNS=40) the drawn bar keeps one width within 39 columns",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script (util-linux) for a pseudo-terminal"))
    func barOnATerminalOf40Columns() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let command = "'\(TestSupport.binary)' -p 1280x720 '\(TestSupport.fixture("landscape.mov"))' '\(dir.path)/o.mp4'"
        // script(1) runs the tool on a pseudo-terminal of no size (its stdin is none), so the tool reads $COLUMNS.
        let r = try TestSupport.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["COLUMNS": "40", "TERM": "xterm"])
        #expect(r.status == 0, "\(r.stdout)")
        let bars = r.stdout.components(separatedBy: "\r").map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }.filter { $0.hasPrefix("[") }
        #expect(bars.count >= 2, "\(r.stdout)")
        #expect(Set(bars.map(\.count)).count == 1 && bars.allSatisfy { $0.count <= 39 }, "\(bars)")
    }
}
