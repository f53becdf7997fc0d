import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Colour, HDR and interlacing through real exports, checked with ffprobe and the ffmpeg CLI as oracles.
@Suite struct HDRExportTests {
    /// The ffmpeg CLI's HDR → SDR chain the issue names as the reference.
    static let referenceChain = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"

    /// ffprobe's view of the first video stream: codec, tag, pixel format, colour tags, field order, side data types.
    struct VideoColorProbe {
        var codec = "", tag = "", pixelFormat = "", primaries = "", transfer = "", matrix = "", range = "", fieldOrder = ""
        var streamSideData: [String] = []
        var frameSideData: [String] = []

        init(_ path: String) throws {
            let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-print_format", "json", "-show_streams",
                                                             "-show_frames", "-read_intervals", "%+#1", path])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let s = try #require((json["streams"] as? [[String: Any]])?.first)
            codec = s["codec_name"] as? String ?? ""
            tag = s["codec_tag_string"] as? String ?? ""
            pixelFormat = s["pix_fmt"] as? String ?? ""
            primaries = s["color_primaries"] as? String ?? ""
            transfer = s["color_transfer"] as? String ?? ""
            matrix = s["color_space"] as? String ?? ""
            range = s["color_range"] as? String ?? ""
            fieldOrder = s["field_order"] as? String ?? ""
            streamSideData = (s["side_data_list"] as? [[String: Any]] ?? []).compactMap { $0["side_data_type"] as? String }
            let frame = (json["frames"] as? [[String: Any]])?.first ?? [:]
            frameSideData = (frame["side_data_list"] as? [[String: Any]] ?? []).compactMap { $0["side_data_type"] as? String }
        }
    }

    /// Luma PSNR of `output`'s first frame against the ffmpeg CLI's reference tone mapping of `source`'s.
    static func firstFrameLumaPSNR(output: String, source: String) throws -> Double {
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-i", output, "-i", source, "-filter_complex",
                                                        "[1:v]\(referenceChain)[ref];[0:v]format=yuv420p[out];[out][ref]psnr",
                                                        "-frames:v", "1", "-f", "null", "-"])
        #expect(r.status == 0, "ffmpeg psnr: \(r.stderr)")
        let line = try #require(r.stderr.split(separator: "\n").first { $0.contains("PSNR y:") }, "no PSNR line in: \(r.stderr)")
        let value = line.components(separatedBy: "PSNR y:")[1].split(separator: " ")[0]
        return value == "inf" ? .infinity : try #require(Double(value))
    }

    /// Multi-frame `idet` counts of a file: (tff + bff, progressive).
    static func idet(_ path: String) throws -> (interlaced: Int, progressive: Int) {
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-i", path, "-vf", "idet", "-an", "-f", "null", "-"])
        let line = try #require(r.stderr.split(separator: "\n").first { $0.contains("Multi frame detection") }, "no idet line: \(r.stderr)")
        func count(_ label: String) -> Int {
            let part = line.components(separatedBy: label + ":")
            return part.count > 1 ? Int(part[1].trimmingCharacters(in: .whitespaces).split(separator: " ")[0]) ?? 0 : 0
        }
        return (count("TFF") + count("BFF"), count("Progressive"))
    }

    /// Frames decoded from the first video stream (ffprobe -count_frames).
    static func frameCount(_ path: String) throws -> Int {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                         "stream=nb_read_frames", "-of", "default=nw=1:nk=1", path])
        return try #require(Int(r.stdout.split(whereSeparator: { !$0.isNumber }).first ?? ""), "ffprobe: \(r.stdout) \(r.stderr)")
    }

    @Test(arguments: [("hdr-hlg.mov", "HLG"), ("hdr-pq.mp4", "PQ")])
    func hdrThroughAnH264PresetIsToneMappedSDR(fixture: String, kind: String) throws {
        let dir = TestSupport.tempDir("tonemap\(kind)")
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(TestSupport.fixture(fixture), to: out, preset: "1280x720")
        let probe = try VideoColorProbe(out)
        #expect(probe.codec == "h264" && probe.pixelFormat == "yuv420p")
        #expect(probe.primaries == "bt709" && probe.transfer == "bt709" && probe.matrix == "bt709" && probe.range == "tv")
        #expect(completed.notes.contains { $0.hasPrefix("HDR (\(kind)) tone-mapped to SDR BT.709 (hable") })
        #expect(completed.verification?.checks.contains { $0.name.hasSuffix("colour") && $0.outcome == .passed } == true)
        let psnr = try Self.firstFrameLumaPSNR(output: out, source: TestSupport.fixture(fixture))
        #expect(psnr >= 30, "first frame luma PSNR against the ffmpeg CLI's chain: \(psnr) dB")
    }

    @Test(arguments: [("hdr-hlg.mov", "arib-std-b67"), ("hdr-pq.mp4", "smpte2084")])
    func hdrThroughHEVCHighestStaysHDRInMain10(fixture: String, transfer: String) throws {
        let dir = TestSupport.tempDir("keep\(transfer)")
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(TestSupport.fixture(fixture), to: out, preset: "hevc-highest")
        #expect(completed.route == .transcode)
        let probe = try VideoColorProbe(out)
        #expect(probe.codec == "hevc" && probe.tag == "hvc1" && probe.pixelFormat == "yuv420p10le")
        #expect(probe.transfer == transfer && probe.primaries == "bt2020" && probe.matrix == "bt2020nc")
        if transfer == "smpte2084" {
            // In the container (mdcv) and in the bitstream's SEI, as the source had it (1000 nits, MaxCLL 1000).
            #expect(probe.streamSideData.contains("Mastering display metadata"))
            #expect(probe.frameSideData.contains("Mastering display metadata"))
            #expect(probe.frameSideData.contains("Content light level metadata"))
            let info = try MediaProbe.probe(path: out)
            #expect(info.streams[0].color?.mastering?.maxLuminance == 1000)
            #expect(info.streams[0].color?.contentLight == ContentLightLevel(maxCLL: 1000, maxFALL: 400))
        }
        #expect(completed.notes.contains { $0.contains("kept: HEVC Main10") })
    }

    @Test func aSourceSaysItsColourToTheProbe() throws {
        let pq = try MediaProbe.probe(path: TestSupport.fixture("hdr-pq.mp4"))
        #expect(pq.streams[0].hdr == .pq)
        #expect(pq.streams[0].color?.transfer == "smpte2084" && pq.streams[0].color?.primaries == "bt2020")
        let ts = try MediaProbe.probe(path: TestSupport.fixture("interlaced.ts"))
        #expect(ts.streams.first { $0.type == "video" }?.color?.fieldOrder == .tt)
    }

    @Test func interlacedSourceComesOutProgressive() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let source = TestSupport.fixture("interlaced.ts")
        let before = try Self.idet(source)
        #expect(before.interlaced > before.progressive * 4, "the fixture itself must look interlaced: \(before)")
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(source, to: out, preset: "1280x720")
        let after = try Self.idet(out)
        #expect(after.progressive > after.interlaced * 2, "idet on the output: \(after)")
        #expect(completed.notes.contains("interlaced (top field first): deinterlaced (bwdif)"))
        // One frame per frame: nothing doubled, nothing lost.
        #expect(try Self.frameCount(out) == Self.frameCount(source))
        #expect(try Self.frameCount(out) == 20)
        #expect(try VideoColorProbe(out).fieldOrder == "progressive")
    }

    @Test func deinterlacingOffKeepsTheFieldsWoven() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        var preset = try TestSupport.preset("1280x720")
        preset.video?.deinterlace = false
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try ExportSession(request: ExportRequest(input: TestSupport.fixture("interlaced.ts"), output: out, preset: preset)).run()
        #expect(completed.notes.contains("interlaced source encoded as it is (video.deinterlace is false)"))
        let after = try Self.idet(out)
        #expect(after.interlaced > after.progressive, "idet on the output: \(after)")
    }

    @Test func passthroughKeepsTheFields() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mov").path
        try TestSupport.export(TestSupport.fixture("interlaced.ts"), to: out, preset: "passthrough")
        #expect(try VideoColorProbe(out).fieldOrder == "tt")
    }

    @Test func framesTheDecoderFlagsInterlacedAreDeinterlacedWhenTheStreamDoesNotSay() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // MPEG-4 Part 2 with interlaced coding in AVI: no field order in the stream, every frame flagged interlaced.
        let source = dir.appendingPathComponent("il.avi").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=352x288:rate=50:duration=0.8", "-vf", "tinterlace=interleave_top,fieldorder=tff",
                                "-pix_fmt", "yuv420p", "-c:v", "mpeg4", "-q:v", "5", "-flags", "+ildct+ilme", "-top", "1", source])
        #expect(try MediaProbe.probe(path: source).streams[0].color?.fieldOrder == nil)
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(source, to: out, preset: "1280x720")
        #expect(completed.notes.contains("interlaced frames (top field first, flagged by the decoder): deinterlaced (bwdif)"))
        let after = try Self.idet(out)
        #expect(after.progressive > after.interlaced * 2, "idet on the output: \(after)")
    }

    @Test func aPictureSizeChangeMidStreamGoesThroughTheDeinterlacer() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        // Two interlaced MPEG-2 recordings of different sizes joined, as a broadcast capture switching programmes.
        var parts: [Data] = []
        for (i, size) in ["352x288", "320x240"].enumerated() {
            let part = dir.appendingPathComponent("\(i).ts").path
            try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=50:duration=0.8", "-vf", "tinterlace=interleave_top,fieldorder=tff",
                                    "-pix_fmt", "yuv420p", "-c:v", "mpeg2video", "-q:v", "8", "-flags", "+ildct+ilme", "-top", "1", "-f", "mpegts", part])
            parts.append(try Data(contentsOf: URL(fileURLWithPath: part)))
        }
        let joined = dir.appendingPathComponent("joined.ts")
        try parts.reduce(Data(), +).write(to: joined)
        let out = dir.appendingPathComponent("out.mp4").path
        try TestSupport.export(joined.path, to: out, preset: "1280x720")
        // Every frame the decoder gives is encoded, at the size of the first (the plan's).
        #expect(try Self.frameCount(out) == Self.frameCount(joined.path))
        let probe = try FFprobe(out)
        #expect(probe.video?.width == 352 && probe.video?.height == 288)
    }

    @Test func sdrSourcesTakeTheSwscalePathUnchanged() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        let completed = try TestSupport.export(TestSupport.fixture("hd1080.mp4"), to: out, preset: "1280x720")
        #expect(!completed.notes.contains { $0.contains("HDR") || $0.contains("deinterlaced") })
        #expect(try VideoColorProbe(out).pixelFormat == "yuv420p")
    }

    @Test func thumbnailOfAnHDRSourceIsToneMappedLikeTheCLIChain() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let ours = dir.appendingPathComponent("ours.png").path, reference = dir.appendingPathComponent("ref.png").path
        let result = try Thumbnailer.make(ThumbnailRequest(input: TestSupport.fixture("hdr-hlg.mov"), output: ours, time: 0, exact: true))
        #expect(result.reason.contains("HDR (HLG) tone-mapped to SDR"))
        try TestSupport.ffmpeg(["-i", TestSupport.fixture("hdr-hlg.mov"), "-vf", Self.referenceChain, "-frames:v", "1", reference])
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-i", ours, "-i", reference, "-lavfi", "psnr", "-f", "null", "-"])
        let line = try #require(r.stderr.split(separator: "\n").first { $0.contains("PSNR") }, "no PSNR line: \(r.stderr)")
        let average = line.components(separatedBy: "average:")[1].split(separator: " ")[0]
        #expect(average == "inf" || (Double(average) ?? 0) >= 30, "thumbnail vs the CLI's tone mapping: \(line)")
    }

    @Test func anH264PresetCannotKeepHDR() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let file = dir.appendingPathComponent("bad.json")
        try Data(#"{"name":"bad","video":{"codec":"h264","hdr":"keep"}}"#.utf8).write(to: file)
        #expect(throws: ExportError.invalidPreset(path: file.path, field: "video.hdr",
                                                  reason: "keep needs codec hevc or av1 (10-bit H.264 HDR plays almost nowhere); use tonemap")) {
            try PresetCatalog.load(file: file)
        }
    }
}
