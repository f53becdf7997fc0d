import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// "Truncated" only where the data ends early: an AVI or MP3 with a stretch of zero bytes (its length unchanged) is
/// said to have an unreadable stretch; the same file cut at 60 % is truncated. Sources made with the ffmpeg CLI,
/// damaged with `FileManager`.
@Suite struct DataShortfallWordsTests {
    /// 10 s of `name` (`.avi`: MPEG-4 video + MP3; `.mp3`: CBR 128 kb/s with its Xing header, exact durations), and
    /// two copies: 20 % of its bytes zeroed from 40 % (`zeroed-NAME`) and cut at 60 % (`cut-NAME`).
    static func damaged(_ name: String, in dir: URL) throws -> (zeroed: String, cut: String) {
        let whole = dir.appendingPathComponent(name)
        let avi = name.hasSuffix(".avi")
        try TestSupport.ffmpeg((avi ? ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=10"] : [])
                               + ["-f", "lavfi", "-i", "sine=frequency=440:duration=10"] + (avi ? ["-c:v", "mpeg4", "-q:v", "5"] : [])
                               + ["-c:a", "libmp3lame", "-b:a", "128k", whole.path])
        var data = try Data(contentsOf: whole)
        let zeroed = dir.appendingPathComponent("zeroed-" + name), cut = dir.appendingPathComponent("cut-" + name)
        try data.prefix(data.count * 6 / 10).write(to: cut)
        data.replaceSubrange(data.count * 4 / 10 ..< data.count * 6 / 10, with: Data(count: data.count * 6 / 10 - data.count * 4 / 10))
        #expect(FileManager.default.createFile(atPath: zeroed.path, contents: data))
        return (zeroed.path, cut.path)
    }

    @Test(arguments: [("in.avi", "mp4"), ("in.mp3", "m4a")])
    func zeroedIsUnreadableAndCutIsTruncated(_ name: String, _ ext: String) throws {
        let dir = TestSupport.tempDir("words-\(ext)")
        defer { TestSupport.cleanup(dir) }
        let (zeroed, cut) = try Self.damaged(name, in: dir)
        for (source, truncated) in [(zeroed, false), (cut, true)] {
            let out = dir.appendingPathComponent("out-\(truncated).\(ext)").path
            let c = try TestSupport.export(source, to: out, preset: "low")
            let cause = c.partial?.cause ?? ""
            #expect(c.route == .salvage && cause.contains("the file is truncated") == truncated, "\(source): \(cause)")
            #expect(cause.contains("unreadable stretch ") == !truncated, "\(source): \(cause)")
            #expect(c.fallbacks.first?.reason.contains("truncated") == truncated, "\(c.fallbacks)")
            // The byte copy's account (`--damaged copy`, the batch) reads the same words from its packet scan.
            let probed = try ProbedSource(path: source, cancel: nil)
            try probed.measureDataEnd()
            let said = probed.info.truncation ?? ""
            #expect(said.contains("the file is truncated") == truncated && said.contains("unreadable stretch") == !truncated, "\(source): \(said)")
        }
    }
}
