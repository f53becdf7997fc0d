import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import mediaexport

/// `mediaexport regress --html`: the page's content (pure), a real run's report, and what Chromium shows of it.
@Suite struct RegressHTMLTests {
    /// Debian's `chromium` (scripts/install-deps.sh installs it), for the screenshot test.
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The PNG signature and an IHDR of 2×1: enough bytes for the page to carry.
    static let tinyPNG = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 2, 0, 0, 0, 1])

    static func measurement(psnr: Double) -> MediaExportCore.Measurement {
        MediaExportCore.Measurement(container: "mp4", codecs: ["h264", "aac"], width: 320, height: 180, frameCount: 5, duration: 0.2,
                                    rotation: 0, timestampsIncreasing: true, size: 1000, route: "transcode", psnr: psnr, ssim: 0.95,
                                    color: .init(hdr: .sdr, transfer: "bt709"))
    }

    /// Four cases, one of each status; the failing one has a hostile name, a PSNR difference and a quality detail.
    static func cases() -> (cases: [RegressCase], baseline: Baseline) {
        let name = "<script>alert(\"x\")</script> & 'q'.mov"
        let frames = (0..<5).map { QualityDetail.Frame(time: Double($0) * 0.04, psnr: 40 - Double($0 % 3), ssim: 0.97 - Double($0 % 3) / 100) }
        let quality = QualityDetail(frames: frames, worstIndex: 2, worstSourceTime: 0.08, outputPNG: tinyPNG, sourcePNG: tinyPNG)
        var fail = RegressCase(key: "\(name)|low", sample: name, preset: "low", status: .fail,
                               differences: [Difference(property: "psnr", expected: .number(99), measured: .number(39.2), unit: .decibels,
                                                        tolerance: 0.5, toleranceSide: .below)],
                               measurement: measurement(psnr: 39.2), message: nil, seconds: 1.25, quality: quality)
        fail.cause = RegressCause(kind: .presetChanged, detail: "video.crf 28 → 36")
        var measured = measurement(psnr: 41)
        measured.estimatedBytes = 900
        measured.estimateError = 900.0 / 1000 - 1
        let pass = RegressCase(key: "b.mov|low", sample: "b.mov", preset: "low", status: .pass, differences: [],
                               measurement: measured, message: nil, seconds: 0.5)
        let missing = RegressCase(key: "c.mov|low", sample: "c.mov", preset: "low", status: .missing, differences: [],
                                  measurement: measurement(psnr: 41), message: "not in the baseline", seconds: 0.5)
        let error = RegressCase(key: "d.mov|low", sample: "d.mov", preset: "low", status: .error, differences: [],
                                measurement: nil, message: "decode failed: <bad> data", seconds: 0.1)
        var baseline = Baseline(ffmpeg: ["libavcodec 59"])
        baseline.entries["\(name)|low"] = Baseline.Entry(measurement: measurement(psnr: 99))
        baseline.entries["b.mov|low"] = Baseline.Entry(measurement: measurement(psnr: 41.1))
        return ([pass, fail, missing, error], baseline)
    }

    static let context = RegressContext(tool: "mediaexport 0.1.0", baseline: "regress.json", libav: ["libavcodec 59.37.100"],
                                        environment: RegressEnvironment(ffmpeg: "5.1.9", libraries: ["libx264.so.164"], cpu: ["sse2", "avx2"],
                                                                        cores: 2, deterministic: true),
                                        commandLine: ["mediaexport", "regress", "samples/", "--preset", "low"])

    /// The page of `cases` on 28 November 2026 at noon (UTC).
    static func page(_ cases: [RegressCase], _ baseline: Baseline, date: Date = Date(timeIntervalSince1970: 1_795_867_200)) -> RegressHTML.Page {
        RegressHTML.Page(cases: cases, baseline: baseline, notChecked: ["e.mov|low"], context: context, date: date)
    }

    @Test("the page escapes names, counts the cases, plots the series, and refers to nothing outside itself")
    func renderIsSelfContainedAndEscaped() throws {
        let (cases, baseline) = Self.cases()
        let html = RegressHTML.render(Self.page(cases, baseline))
        #expect(!html.contains("<script"), "a sample name is text, never markup")
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;.mov"))
        #expect(html.contains("decode failed: &lt;bad&gt; data"))
        #expect(html.contains("1 passed, 3 failed"))
        #expect(html.components(separatedBy: "<svg").count - 1 == 2, "a PSNR and an SSIM plot")
        let polylines = html.components(separatedBy: "<polyline class=\"series\" points=\"").dropFirst()
        #expect(polylines.count == 2)
        #expect(polylines.allSatisfy { $0.prefix { $0 != "\"" }.split(separator: " ").count == 5 }, "one point per frame")
        #expect(html.components(separatedBy: "src=\"data:image/png;base64,\(Self.tinyPNG.base64EncodedString())\"").count - 1 == 2)
        #expect(html.contains("<tr class=\"beyond\"><th>psnr</th><td>99.00 dB</td><td>39.20 dB</td></tr>"), "the failing property is marked")
        #expect(html.contains("<tr><th>color.transfer</th><td>bt709</td><td>bt709</td></tr>"), "nested fields are flattened")
        #expect(html.contains("<tr class=\"within\"><th>psnr</th><td>41.10 dB</td><td>41.00 dB</td></tr>"), "a change within tolerance is shown")
        #expect(html.contains("<tr><th>duration</th><td>0.200 s</td><td>0.200 s</td></tr>") && html.contains("<td>1000 bytes</td>"),
                "seconds to the millisecond, bytes whole")
        #expect(html.contains("<tr class=\"info\"><th>estimatedBytes</th><td>—</td><td>900 bytes</td></tr>")
                && html.contains("<tr class=\"info\"><th>estimateError</th><td>—</td><td>-10.0 %</td></tr>"), "never compared: not highlighted")
        // The cause first: in the index of failures and at the head of the failing case.
        let headline = "preset changed (video.crf 28 → 36); psnr: baseline 99.00 dB, actual 39.20 dB (may drop 0.50 dB)"
        #expect(html.contains("<td class=\"cause\"><a href=\"#case-2\">\(headline)</a></td>"))
        #expect(html.contains("</h3>\n<p class=\"headline\">\(headline)</p>"))
        // Failures first, passes collapsed; the environment, baseline, command line and date at the top.
        let failing = try #require(html.range(of: "<section id=\"case-2\"")), passing = try #require(html.range(of: "<details id=\"case-1\" class=\"case pass\">"))
        #expect(failing.lowerBound < passing.lowerBound)
        #expect(html.components(separatedBy: "<section ").count - 1 == 3, "the failure, the missing and the error case in full")
        for fact in ["<th>date</th><td>2026-11-28T12:00:00Z</td>", "<th>command</th><td>mediaexport regress samples/ --preset low</td>",
                     "<th>baseline</th><td>regress.json</td>", "<th>ffmpeg</th><td>5.1.9</td>", "<th>deterministic</th><td>true</td>"] {
            #expect(html.contains(fact), "\(fact)")
        }
        #expect(html.contains("1 not checked") && html.contains("<li>e.mov|low</li>"))
        for external in ["http://", "https://", "src=\"/", "href=\"/", "url(", "<link", "@import", "=\"//"] {
            #expect(!html.contains(external), "\(external)")
        }
        let sources = html.components(separatedBy: "src=\"").dropFirst()
        #expect(sources.allSatisfy { $0.hasPrefix("data:image/png;base64,") })
        let links = html.components(separatedBy: "href=\"").dropFirst()
        #expect(links.count == 3 && links.allSatisfy { $0.hasPrefix("#case-") }, "one per case that did not pass")
        // Only the date differs between two pages of the same cases.
        #expect(RegressHTML.render(Self.page(cases, baseline)) == html)
        let later = RegressHTML.render(Self.page(cases, baseline, date: Date(timeIntervalSince1970: 1_795_870_800)))
        #expect(later.replacingOccurrences(of: "2026-11-28T13:00:00Z", with: "2026-11-28T12:00:00Z") == html)
    }

    @Test("a case's JSON record keeps the per-frame scores and leaves the pictures out")
    func jsonLeavesThePicturesOut() throws {
        let failing = Self.cases().cases[1]
        let json = String(decoding: try JSONEncoder().encode(failing), as: UTF8.self)
        #expect(json.contains("\"worstIndex\":2") && json.contains("\"frames\""))
        #expect(!json.contains("PNG") && !json.contains(Self.tinyPNG.base64EncodedString()))
        let back = try JSONDecoder().decode(RegressCase.self, from: Data(json.utf8))
        #expect(back.quality?.frames == failing.quality?.frames && back.quality?.outputPNG == nil)
    }

    @Test("a stream copy's packets are compared with the source's per stream, and the page says so in one line per stream")
    func packetsAreSummarisedPerStream() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = TestSupport.fixture("landscape.mov"), output = dir.appendingPathComponent("v.mov").path
        let same = try PacketStreamSummary.compare(output: source, source: source)
        #expect(same.count == 2 && same.allSatisfy { $0.differing == 0 && $0.packets > 0 })
        try TestSupport.ffmpeg(["-i", source, "-map", "0", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "copy", output])
        let summary = try PacketStreamSummary.compare(output: output, source: source)
        #expect(summary.map(\.differing) == [summary[0].packets, 0] && summary[0].firstDifferingTime == 0, "\(summary)")
        #expect(summary[0].description == "stream #0: \(summary[0].packets) of \(summary[0].packets) packets differ from 0.000 s")
        #expect(PacketStreamSummary(stream: 0, packets: 75, differing: 41, firstDifferingTime: 1.24).description == "stream #0: 41 of 75 packets differ from 1.240 s")
        var c = Self.cases().cases[1]
        let a = String(repeating: "a", count: 64), b = String(repeating: "b", count: 64)
        c.differences = [Difference(property: "packetChecksums", expected: .array([.string(a), .string(b)]), measured: .array([.string(b), .string(b)]))]
        c.packets = summary
        let html = RegressHTML.section(c, id: "case-1", entry: nil)
        #expect(html.contains("packetChecksums: stream #0 differs (aaaaaaaaaaaa… → bbbbbbbbbbbb…)") && !html.contains(a), "no 64-character hashes")
        #expect(html.contains("<li>stream #1: all \(summary[1].packets) packets as in the source</li>"))
    }

    /// Makes a baseline of `landscape.mov` with `low`, sets its PSNR to 99 (so the case fails), and runs again with
    /// `--html` and `--json`; returns the run, the page's path and the PSNR the baseline first measured.
    static func failingReport(_ dir: URL) throws -> (run: TestSupport.RunResult, page: String, psnr: Double) {
        // Beside the baseline, so that its key is its name (keys are relative to the baseline's folder).
        let sample = dir.appendingPathComponent("landscape.mov").path
        try FileManager.default.copyItem(atPath: TestSupport.fixture("landscape.mov"), toPath: sample)
        let arguments = ["regress", sample, "--preset", "low", "--baseline", dir.appendingPathComponent("baseline.json").path]
        let update = try TestSupport.tool(arguments + ["--update-baseline", "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        let plain = try #require(update.stdout.split(separator: "\n").first { $0.contains("\"kind\":\"case\"") })
        #expect(!plain.contains("\"quality\""), "without --html no per-frame scores are kept")
        let measured = try #require(try Baseline.load(dir.appendingPathComponent("baseline.json").path).entries["landscape.mov|low"]?.measurement?.psnr)
        try RegressTests.editBaseline(dir) { m in m["psnr"] = 99.0 }
        let page = dir.appendingPathComponent("r.html").path
        let run = try TestSupport.tool(arguments + ["--html", page, "--json"])
        return (run, page, measured)
    }

    @Test("a real run's page holds the worst frame's two pictures, the plots, and the failure")
    func realRunReport() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let (run, page, psnr) = try Self.failingReport(dir)
        #expect(run.status == ExitStatus.regression, "\(run.stderr)")
        #expect(TestSupport.contents(dir) == ["baseline.json", "landscape.mov", "r.html"], "written atomically: no temporary file left")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("0 passed, 1 failed") && html.contains("<span class=\"badge fail\">FAIL</span>"))
        #expect(html.contains("<tr class=\"beyond\"><th>psnr</th><td>99.00 dB</td>"))
        #expect(html.components(separatedBy: "<svg").count - 1 == 2)
        let pictures = html.components(separatedBy: "data:image/png;base64,").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(pictures.count == 2)
        for picture in pictures {
            let png = try #require(Data(base64Encoded: picture))
            #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            let size = try #require(Self.pngSize(png))
            #expect(size.width == 320 && size.height == 180, "the output's size (under 480 wide: not scaled)")
        }
        // The JSON record: the averaged score is the one a run without --html measures; the series is there, the pictures are not.
        let line = try #require(run.stdout.split(separator: "\n").first { $0.contains("\"kind\":\"case\"") })
        #expect(line.count < 20_000 && !line.contains("iVBOR"))
        struct Record: Decodable { var payload: RegressCase }
        let c = try JSONDecoder().decode(Record.self, from: Data(line.utf8)).payload
        #expect(c.measurement?.psnr == psnr)
        let q = try #require(c.quality)
        #expect(q.frames.count == 60 && q.worst?.psnr == q.frames.map(\.psnr).min())
        let mean = q.frames.map(\.psnr).reduce(0, +) / Double(q.frames.count)
        #expect(abs(mean - psnr) < 0.01, "per-frame PSNR averages to the score: \(mean) vs \(psnr)")
    }

    @Test("headless Chromium shows the failure, the two pictures and the plots",
          .enabled(if: chromium != nil, "needs Debian's chromium (scripts/install-deps.sh installs it)"))
    func chromiumShowsTheReport() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let (_, page, _) = try Self.failingReport(dir)
        let shown = try Self.screenshot(page, in: dir)
        var fail = 0, series = 0
        for i in stride(from: 0, to: shown.count - 2, by: 3) {
            let (r, g, b) = (Int(shown[i]), Int(shown[i + 1]), Int(shown[i + 2]))
            if abs(r - 0xC6) < 12 && abs(g - 0x28) < 12 && abs(b - 0x28) < 12 { fail += 1 }
            if abs(r - 0x15) < 40 && abs(g - 0x65) < 40 && abs(b - 0xC0) < 40 { series += 1 }
        }
        #expect(fail > 1_000, "the red FAIL badges (summary and section): \(fail) pixels")
        #expect(series > 400, "the plots' blue polylines: \(series) pixels")
        // The same page with both pictures replaced by white ones of their size (same layout): what differs is
        // what the pictures show, which must be most of their 2 × 320 × 180 pixels, in many shades.
        let white = dir.appendingPathComponent("white.png").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "color=white:s=320x180", "-frames:v", "1", white])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let blank = html.replacingOccurrences(of: #"data:image/png;base64,[A-Za-z0-9+/=]+"#, with: "data:image/png;base64,"
                                              + (try Data(contentsOf: URL(fileURLWithPath: white))).base64EncodedString(), options: .regularExpression)
        let blankPage = dir.appendingPathComponent("blank.html").path
        try blank.write(toFile: blankPage, atomically: true, encoding: .utf8)
        let without = try Self.screenshot(blankPage, in: dir)
        #expect(without.count == shown.count)
        var differing = 0
        var shades = Set<UInt8>()
        for i in stride(from: 0, to: min(shown.count, without.count), by: 3) where shown[i] != without[i] {
            differing += 1
            shades.insert(shown[i])
        }
        #expect(differing > 60_000 && shades.count > 32, "the pictures: \(differing) pixels, \(shades.count) shades")
    }

    /// `page` as headless Chromium shows it in a window of `width`×`height`, as RGB bytes.
    static func screenshot(_ page: String, in dir: URL, width: Int = 1200, height: Int = 1600) throws -> [UInt8] {
        let shot = dir.appendingPathComponent("shot.png").path, raw = dir.appendingPathComponent("shot.rgb").path
        try? FileManager.default.removeItem(atPath: shot)
        try? FileManager.default.removeItem(atPath: raw)
        try chromium(["--window-size=\(width),\(height)", "--screenshot=\(shot)", URL(fileURLWithPath: page).absoluteString], in: dir, makes: shot)
        let png = try #require(FileManager.default.contents(atPath: shot), "chromium made no screenshot in three tries of 90 s")
        let size = try #require(pngSize(png))
        #expect(size.width == width && size.height == height)
        try TestSupport.ffmpeg(["-i", shot, "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
    }

    /// The DOM of `page` after its scripts ran in a window of `width`×`height`, as headless Chromium serializes it.
    static func dom(_ page: String, in dir: URL, width: Int, height: Int) throws -> String {
        let out = dir.appendingPathComponent("dom.html").path
        try? FileManager.default.removeItem(atPath: out)
        try chromium(["--window-size=\(width),\(height)", "--dump-dom", URL(fileURLWithPath: page).absoluteString], in: dir, makes: out, stdout: out)
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    /// Runs headless Chromium with `arguments` until it made the file `makes` (at most three tries).
    static func chromium(_ arguments: [String], in dir: URL, makes file: String, stdout: String? = nil) throws {
        // Headless Chromium once hung at start here: run as root, its zygote processes took real-time priority
        // (SCHED_FIFO 99) and spun, starving the machine, while the test waited on their pipes. So: no right to real-time
        // priority (`setpriv` drops CAP_SYS_NICE), no zygote (`--no-zygote`, with `--no-sandbox`), each try bounded,
        // nothing read from a pipe a hung helper could hold open, and a try that made no file made again.
        for attempt in 1...3 where (try? Data(contentsOf: URL(fileURLWithPath: file)))?.isEmpty ?? true {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
            process.arguments = ["-s", "KILL", "90", "/usr/bin/setpriv", "--bounding-set=-sys_nice", chromium!, "--headless=new", "--no-sandbox", "--no-zygote", "--disable-gpu",
                                 "--hide-scrollbars", "--user-data-dir=\(dir.appendingPathComponent("profile-\(attempt)").path)"] + arguments
            process.standardInput = FileHandle.nullDevice
            if let stdout {
                _ = FileManager.default.createFile(atPath: stdout, contents: nil)
                process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdout))
            } else {
                process.standardOutput = FileHandle.nullDevice
            }
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
        }
    }

    /// Width and height from a PNG's IHDR.
    static func pngSize(_ png: Data) -> (width: Int, height: Int)? {
        guard png.count >= 24 else { return nil }
        let bytes = [UInt8](png)
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }
}
