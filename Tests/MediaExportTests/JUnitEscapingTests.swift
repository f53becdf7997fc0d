import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// `regress --junit` and `--html` with names and messages holding what XML 1.0 forbids: the files still parse.
@Suite struct JUnitEscapingTests {
    @Test("control characters, noncharacters and raw bytes are shown as escapes; markup is referenced")
    func markupEscapeShowsWhatXMLForbids() {
        #expect(Markup.escape("a\u{1B}[31mb\u{07}") == "a\\u{1B}[31mb\\u{7}")
        #expect(Markup.escape("x\u{FFFE}\u{FFFF}\u{0}") == "x\\u{FFFE}\\u{FFFF}\\u{0}")
        #expect(Markup.escape("<a href=\"x\">&'</a>") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;")
        #expect(Markup.escape("one\ntwo") == "one\ntwo", "newlines are legal XML and kept")
        #expect(Markup.escape(FileName.decode([0x61, 0xFF, 0x62])) == "a\\xFFb")
        #expect(Markup.escape("café 東京") == "café 東京", "healthy text is unchanged")
    }

    @Test("samples named with ESC and BEL, and with a byte that is not UTF-8, give JUnit that parses and clean HTML")
    func junitAndHTMLParseWithControlCharactersInASampleName() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let folder = dir.appendingPathComponent("samples")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let movie = try Data(contentsOf: URL(fileURLWithPath: TestSupport.fixture("landscape.mov")))
        #expect(FileManager.default.createFile(atPath: folder.appendingPathComponent("bad\u{1B}[31m\u{07}name.mov").path, contents: movie))
        let plain = folder.appendingPathComponent("raw.mov").path
        #expect(FileManager.default.createFile(atPath: plain, contents: movie))
        let raw = FileName.decode(Array(folder.path.utf8) + Array("/a".utf8) + [0xFF] + Array("b.mov".utf8))
        #expect(rename(FileName.cString(plain), FileName.cString(raw)) == 0)
        let xml = dir.appendingPathComponent("regress.xml").path, html = dir.appendingPathComponent("regress.html").path
        // No baseline entries: each case is missing, so the sample names land in failure messages as well.
        let r = try TestSupport.tool(["regress", folder.path, "--preset", "passthrough",
                                      "--baseline", dir.appendingPathComponent("baseline.json").path, "--junit", xml, "--html", html])
        #expect(r.status == 4, "exit 4: cases missing from the baseline; \(r.stderr)")
        let parse = try TestSupport.run("/usr/bin/python3", ["-c", "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])", xml])
        #expect(parse.status == 0, "\(parse.stderr)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(!page.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) })
        for written in [try String(contentsOfFile: xml, encoding: .utf8), page] {
            #expect(written.contains("samples/bad\\u{1B}[31m\\u{7}name.mov"))
            #expect(written.contains("samples/a\\xFFb.mov"))
        }
    }
}
