import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// `probe` reads a video's colour (transfer, primaries, matrix, range, bit depth, field order, HDR metadata), as
/// ffprobe does, and the human report shows it.
@Suite struct ColorProbeTests {
    /// ffprobe's view of the first video stream: `color_transfer`, `field_order` … as strings.
    static func oracle(_ path: String) throws -> [String: String] {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                         "stream=color_transfer,color_primaries,color_space,color_range,field_order",
                                                         "-of", "json", path])
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let stream = (json?["streams"] as? [[String: Any]])?.first ?? [:]
        return stream.compactMapValues { $0 as? String }
    }

    static func video(_ name: String) throws -> StreamInfo {
        try #require(try MediaProbe.probe(path: TestSupport.fixture(name)).streams.first { $0.type == "video" })
    }

    @Test("PQ: smpte2084, BT.2020, 10-bit, with the mastering display and content light level of its first frame's SEI")
    func pqStreamWithHDR10Metadata() throws {
        let stream = try Self.video("hdr-pq.mp4")
        let color = try #require(stream.color)
        #expect(color.transfer == "smpte2084")
        #expect(color.primaries == "bt2020")
        #expect(color.matrix == "bt2020nc")
        #expect(color.range == "tv")
        #expect(color.bitDepth == 10)
        #expect(color.fieldOrder == .progressive)
        #expect(stream.hdr == .pq && color.hdrKind == .pq)
        #expect(color.mastering?.maxLuminance == 1000)
        #expect(color.mastering?.minLuminance == 0.0001)
        #expect(color.mastering?.red == [0.68, 0.32] && color.mastering?.whitePoint == [0.3127, 0.329])
        #expect(color.contentLight == ContentLightLevel(maxCLL: 1000, maxFALL: 400))
        #expect(color.dolbyVision == nil)
        let ffprobe = try Self.oracle(TestSupport.fixture("hdr-pq.mp4"))
        #expect(ffprobe["color_transfer"] == color.transfer && ffprobe["color_primaries"] == color.primaries)
        #expect(ffprobe["color_space"] == color.matrix && ffprobe["color_range"] == color.range)
    }

    @Test("HLG: arib-std-b67, BT.2020, 10-bit, no HDR10 metadata")
    func hlgStream() throws {
        let stream = try Self.video("hdr-hlg.mov")
        let color = try #require(stream.color)
        #expect(color.transfer == "arib-std-b67")
        #expect(color.primaries == "bt2020")
        #expect(color.bitDepth == 10)
        #expect(stream.hdr == .hlg && color.hdrKind == .hlg && color.isHDR)
        #expect(color.mastering == nil && color.contentLight == nil)
        #expect(try Self.oracle(TestSupport.fixture("hdr-hlg.mov"))["color_transfer"] == "arib-std-b67")
    }

    @Test("interlaced MPEG-2: field order tt (top field first), SDR, 8-bit")
    func interlacedStream() throws {
        let stream = try Self.video("interlaced.ts")
        let color = try #require(stream.color)
        #expect(color.fieldOrder == .tt)
        #expect(color.fieldOrder?.isInterlaced == true && color.fieldOrder?.topFieldFirst == true)
        #expect(color.bitDepth == 8)
        #expect(stream.hdr == .sdr && !color.isHDR)
        #expect(try Self.oracle(TestSupport.fixture("interlaced.ts"))["field_order"] == "tt")
    }

    @Test("the human report: PQ and its metadata, HLG, the field order; nothing for an SDR stream that specifies nothing")
    func humanReport() throws {
        let pq = ProbeReport.render(try MediaProbe.probe(path: TestSupport.fixture("hdr-pq.mp4")))
        #expect(pq.contains("colour PQ (smpte2084), primaries bt2020, matrix bt2020nc, limited range (tv), 10-bit, progressive"), "\(pq)")
        #expect(pq.contains("HDR mastering display P3-D65 0.0001–1000 nits, MaxCLL 1000 nits, MaxFALL 400 nits"), "\(pq)")
        let hlg = ProbeReport.render(try MediaProbe.probe(path: TestSupport.fixture("hdr-hlg.mov")))
        #expect(hlg.contains("colour HLG (arib-std-b67)"), "\(hlg)")
        #expect(!hlg.contains("HDR mastering"), "\(hlg)")
        let ts = ProbeReport.render(try MediaProbe.probe(path: TestSupport.fixture("interlaced.ts")))
        #expect(ts.contains("interlaced tt (top field first)"), "\(ts)")
        // The colour line sits under its own stream, before the next one.
        let lines = ts.split(separator: "\n").map(String.init)
        let colour = try #require(lines.firstIndex { $0.contains("colour") })
        #expect(lines[colour - 1].contains("#0 video mpeg2video"), "\(ts)")
        let sdr = ProbeReport.render(try MediaProbe.probe(path: TestSupport.fixture("landscape.mov")))
        #expect(!sdr.contains("colour"), "\(sdr)")
    }

    @Test("the report's colour line for values no fixture has: one name for all-BT.709, Dolby Vision, full range")
    func colourLineForOtherValues() {
        #expect(ProbeReport.colorLines(VideoColor(primaries: "bt709", transfer: "bt709", matrix: "bt709", range: "tv",
                                                  bitDepth: 8, fieldOrder: .progressive))
                == ["colour bt709, limited range (tv), 8-bit, progressive"])
        #expect(ProbeReport.colorLines(VideoColor(primaries: "bt709", transfer: "iec61966-2-1", matrix: "bt470bg", range: "pc", bitDepth: 8))
                == ["colour transfer iec61966-2-1, primaries bt709, matrix bt470bg, full range (pc), 8-bit"])
        let dv = VideoColor(primaries: "bt2020", transfer: "smpte2084", matrix: "bt2020nc", bitDepth: 10,
                            dolbyVision: DolbyVision(profile: 8, level: 6, compatibility: 1))
        #expect(ProbeReport.colorLines(dv).first?.hasPrefix("colour Dolby Vision profile 8.1 (HDR10 base layer), PQ (smpte2084)") == true)
        #expect(ProbeReport.colorLines(VideoColor(range: "tv", bitDepth: 8, fieldOrder: .progressive)).isEmpty)
        #expect(ProbeReport.colorLines(VideoColor(bitDepth: 8, fieldOrder: .bb))
                == ["colour unspecified, 8-bit, interlaced bb (bottom field first)"])
    }

    @Test("the tool prints the colour lines and --json the colour values")
    func toolPrintsColour() throws {
        let human = try TestSupport.tool(["probe", TestSupport.fixture("interlaced.ts")])
        #expect(human.status == 0, "\(human.stderr)")
        #expect(human.stdout.contains("interlaced tt (top field first)"), "\(human.stdout)")
        let json = try TestSupport.tool(["probe", "--json", TestSupport.fixture("hdr-pq.mp4")])
        #expect(json.status == 0, "\(json.stderr)")
        let info = try JSONDecoder().decode(MediaInfo.self, from: Data(json.stdout.utf8))
        #expect(info.streams.first?.color?.transfer == "smpte2084" && info.streams.first?.hdr == .pq)
        #expect(info.streams.first?.color?.contentLight?.maxCLL == 1000)
    }
}
