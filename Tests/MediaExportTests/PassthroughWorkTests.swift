import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// A passthrough does no work beyond reading and writing packets: what the ffmpeg CLI's `-c copy` does (one read
/// of the input's stream information), no decoder, and its record read from the header it wrote.
@Suite struct PassthroughWorkTests {
    @Test func passthroughDecodesNothingBeyondTheInputsProbe() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let input = TestSupport.fixture("hd1080.mp4")
        let out = dir.appendingPathComponent("copy.mov").path
        let watch = DecodeWatch()
        let completed = try DecodeWatch.$current.withValue(watch) {
            try TestSupport.export(input, to: out, preset: "passthrough")
        }
        #expect(completed.route == .remux)
        // The input's probe only: the output is checked and described from its header.
        #expect(watch.streamInfoReads.count == 1, "\(watch.streamInfoReads)")
        #expect(watch.streamInfoReads.allSatisfy { !$0.contains(dir.lastPathComponent) }, "\(watch.streamInfoReads)")
        #expect(watch.decodersOpened == 0)
        // What the record says is what the file holds.
        #expect(completed.codecs == ["h264", "aac"])
        #expect(completed.width == 1920 && completed.height == 1080)
        #expect(abs(completed.duration - 1.0) < 0.05)
    }

    /// The top-level boxes of an MP4/MOV file, in order; a `free` box over 8 bytes (room left unused) is `room`.
    static func boxes(_ path: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var names: [String] = [], offset = 0
        while offset + 8 <= data.count {
            var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let name = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1 { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
            names.append(name == "free" && size > 8 ? "room" : name)
            guard size >= 8 else { break }
            offset += size
        }
        return names
    }

    /// A large copied MP4/MOV gets its index written into room reserved at the front (no faststart pass re-reading
    /// and re-writing the whole file): moov first, the unused room as a `free` box, the packets untouched. A small
    /// file, and a transcode (whose packet count is not known ahead), go through the faststart pass as before.
    @Test(arguments: ["mp4", "mov"])
    func aLargeCopyWritesItsIndexIntoReservedRoom(ext: String) throws {
        let dir = TestSupport.tempDir("reserve-\(ext)")
        defer { TestSupport.cleanup(dir) }
        // 26 MB of noise in 2 s: the reservation (about 120 kB) is under 1 % of it.
        let input = dir.appendingPathComponent("big.mp4").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30,noise=alls=60:allf=t", "-f", "lavfi", "-i", "sine=f=440",
                                "-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "4", "-c:a", "aac", "-shortest", input])
        let out = dir.appendingPathComponent("copy.\(ext)").path
        let completed = try TestSupport.export(input, to: out, preset: "passthrough")
        #expect(completed.verification?.passed == true)
        let layout = try Self.boxes(out)
        #expect(Array(layout.prefix(3)) == ["ftyp", "moov", "room"], "\(layout)")
        #expect(layout.last == "mdat")
        #expect(try FFprobe.isFaststart(out))
        let md5 = { (path: String) throws -> String in
            try TestSupport.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0", "-c", "copy", "-f", "md5", "-"]).stdout
        }
        #expect(try md5(out) == md5(input))

        let small = dir.appendingPathComponent("small.\(ext)").path
        try TestSupport.export(TestSupport.fixture("hd1080.mp4"), to: small, preset: "passthrough")
        #expect(try Self.boxes(small).prefix(2) == ["ftyp", "moov"] && !Self.boxes(small).contains("room"))
        let transcoded = dir.appendingPathComponent("low.\(ext)").path
        try TestSupport.export(input, to: transcoded, preset: "low")
        #expect(try !Self.boxes(transcoded).contains("room") && FFprobe.isFaststart(transcoded))
    }

    /// The `completed` record of every container we mux is read from the header alone; it must say what a full
    /// probe (decoding first frames) says.
    @Test(arguments: [
        ("landscape.mov", "passthrough", "p.mov"), ("hevc.mp4", "passthrough", "p.mp4"), ("portrait-rotated.mov", "passthrough", "p.mp4"),
        ("landscape.mov", "low", "t.mp4"), ("landscape.mov", "low", "t.mkv"), ("landscape.mov", "m4a", "a.m4a"),
    ])
    func completedRecordFromTheHeaderMatchesAFullProbe(input: String, preset: String, output: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent(output).path
        let completed = try TestSupport.export(TestSupport.fixture(input), to: out, preset: preset)
        let full = try MediaProbe.probe(path: completed.output, frameMetadata: false)
        let video = full.streams.first { $0.type == "video" && !$0.isAttachedPicture }
        #expect(completed.codecs == full.streams.filter { $0.isChapterTrack != true }.map(\.codec))
        #expect(completed.width == video?.width && completed.height == video?.height)
        #expect(abs(completed.duration - (full.duration ?? 0)) < 0.001, "\(completed.duration) vs \(full.duration ?? 0)")
        #expect(completed.bytes == full.size)
    }

    /// A transcode's verification reads its output from the header and the index, and the video's pixel format
    /// from the sequence header of its first packet (the codec's parser): no decoding of the output, which for a
    /// 1080p export cost as much as decoding a frame of its source. MP4 (index) and Matroska (packet scan), H.264
    /// and HEVC, 8 and 10 bits.
    @Test(arguments: [("hd1080.mp4", "1280x720", "mp4", "yuv420p"), ("landscape.mov", "low", "mkv", "yuv420p"),
                      ("landscape.mov", "hevc-1920x1080", "mp4", "yuv420p"), ("hdr-hlg.mov", "hevc-highest", "mov", "yuv420p10le")])
    func aTranscodesVerificationDecodesNothingOfItsOutput(fixture: String, preset: String, ext: String, format: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.\(ext)").path
        let watch = DecodeWatch()
        let completed = try DecodeWatch.$current.withValue(watch) {
            try TestSupport.export(TestSupport.fixture(fixture), to: out, preset: preset)
        }
        #expect(completed.route == .transcode)
        #expect(watch.streamInfoReads.allSatisfy { !$0.contains(dir.lastPathComponent) }, "\(watch.streamInfoReads)")
        let check = completed.verification?.checks.first { $0.name == "stream #0 video pixel format" }
        #expect(check?.measured == format && check?.outcome == .passed, "\(String(describing: check))")
        // The oracle: ffprobe decodes the file and agrees.
        #expect(try FFprobe(out).video?.pixelFormat == format)
    }

}
