import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// `regress --html` as a CI page in headless Chromium: short, with the failures and their causes on the first screen.
@Suite struct RegressHTMLPageTests {
    /// A 480×270 grayscale picture, the size the report gives a 1080p worst frame.
    static func picture(in dir: URL) throws -> Data {
        let path = dir.appendingPathComponent("frame.png").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc=s=480x270", "-frames:v", "1", "-pix_fmt", "gray", path])
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Ten cases of 1080p transcodes, each with its worst frame and 300 frames of scores: the first and the sixth fail
    /// (a preset changed; a sample changed within tolerance), the rest pass.
    static func cases(picture: Data) -> (cases: [RegressCase], baseline: Baseline) {
        var m = RegressHTMLTests.measurement(psnr: 40)
        m.width = 1920; m.height = 1080; m.estimatedBytes = 1200; m.estimateError = 0.2
        let frames = (0..<300).map { QualityDetail.Frame(time: Double($0) / 30, psnr: 40 + sin(Double($0) / 9), ssim: 0.97) }
        let quality = QualityDetail(frames: frames, worstIndex: 40, worstSourceTime: 1.333, outputPNG: picture, sourcePNG: picture)
        var baseline = Baseline(ffmpeg: ["libavcodec 59.37.100"])
        let cases = (1...10).map { n -> RegressCase in
            let key = "samples/IMG_00\(n + 10).MOV|low"
            baseline.entries[key] = Baseline.Entry(measurement: m)
            var c = RegressCase(key: key, sample: "samples/IMG_00\(n + 10).MOV", preset: "low", status: .pass, differences: [],
                                measurement: m, message: nil, seconds: 2.5, quality: quality)
            if n == 1 {
                c.status = .fail
                c.cause = RegressCause(kind: .presetChanged, detail: "video.crf 28 → 36, video.encoderPreset veryfast → slow")
                c.differences = [Difference(property: "psnr", expected: .number(40), measured: .number(36.2), unit: .decibels, tolerance: 0.5, toleranceSide: .below),
                                 Difference(property: "size", expected: .number(1000), measured: .number(610), unit: .bytes, tolerance: 100)]
            } else if n == 6 {
                c.status = .fail
                c.cause = RegressCause(kind: .sampleChanged, detail: "SHA-256 3f2706b84165… → 956495b6a95f…")
            }
            return c
        }
        return (cases, baseline)
    }

    @Test("a 10-case report with 2 failures is under 3,000 px tall at 1280 px wide, and its first screen shows both failures and their causes",
          .enabled(if: RegressHTMLTests.chromium != nil, "needs Debian's chromium (scripts/install-deps.sh installs it)"))
    func aCIPageIsShortWithTheFailuresFirst() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let (cases, baseline) = Self.cases(picture: try Self.picture(in: dir))
        let page = RegressHTML.Page(cases: cases, baseline: baseline, context: RegressHTMLTests.context, date: Date(timeIntervalSince1970: 1_795_867_200))
        let html = RegressHTML.render(page)
        let path = dir.appendingPathComponent("report.html").path
        try html.write(toFile: path, atomically: true, encoding: .utf8)
        // A copy that measures itself: the page's height, and the failures' causes wholly inside the first 1280×800.
        let probe = """
        <script>
        const b = document.body, seen = [...document.querySelectorAll('table.index td.cause')]
          .filter(e => { const r = e.getBoundingClientRect(); return r.bottom <= 800 && r.right <= 1280 && r.height > 0; });
        b.dataset.height = document.documentElement.scrollHeight;
        b.dataset.seen = seen.map(e => e.textContent).join(' | ');
        </script>
        </body>
        """
        let measured = dir.appendingPathComponent("measured.html").path
        try html.replacingOccurrences(of: "</body>", with: probe).write(toFile: measured, atomically: true, encoding: .utf8)
        let dom = try RegressHTMLTests.dom(measured, in: dir, width: 1280, height: 800)
        let height = try #require(Self.attribute("data-height", in: dom).flatMap { Int($0) }, "\(dom.prefix(300))")
        #expect(height < 3_000, "the page is \(height) px tall")
        let seen = try #require(Self.attribute("data-seen", in: dom))
        #expect(seen.contains("preset changed (video.crf 28 → 36, video.encoderPreset veryfast → slow); psnr: baseline 40.00 dB"), "\(seen)")
        #expect(seen.contains("sample changed (SHA-256 3f2706b84165… → 956495b6a95f…)"), "\(seen)")
        // What the first screen shows: both failures' red badges in the index (and more), as pixels.
        let shown = try RegressHTMLTests.screenshot(path, in: dir, width: 1280, height: 800)
        var red = 0
        for i in stride(from: 0, to: shown.count - 2, by: 3)
        where abs(Int(shown[i]) - 0xC6) < 12 && abs(Int(shown[i + 1]) - 0x28) < 12 && abs(Int(shown[i + 2]) - 0x28) < 12 { red += 1 }
        #expect(red > 2_000, "the FAIL badges: \(red) pixels")
    }

    /// The value of `name="…"` in `dom`, its character references read back.
    static func attribute(_ name: String, in dom: String) -> String? {
        guard let start = dom.range(of: "\(name)=\"") else { return nil }
        let value = dom[start.upperBound...].prefix { $0 != "\"" }
        return value.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }
}
