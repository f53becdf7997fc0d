import CFFmpeg
import Foundation
import Testing
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// The stream information of an H.264 stream in a MOV/MP4 is read from its sequence parameter set instead of by
/// decoding its first frame (`StreamInfoReader`). Every field the decoder would have reported must come out the same:
/// each variant below is opened both ways, the decoding way being FFmpeg's own (`avformat_find_stream_info` without
/// options), and every decoder-reported field of the parameters is compared.
@Suite struct HeaderProbeTests {
    /// How each variant is made: an x264 encode (320x240, 6 frames), then optionally the SPS's VUI rewritten by
    /// FFmpeg's `h264_metadata` (stream copy), into `.mov` or `.mp4`. `header` says whether the header read applies.
    struct Variant: CustomTestStringConvertible, Sendable {
        var name: String
        var encode: [String]
        var metadata: String? = nil
        var container = "mov"
        var header = true
        var testDescription: String { name }
    }

    static let variants: [Variant] = [
        Variant(name: "yuv420p", encode: ["-pix_fmt", "yuv420p"], container: "mp4"),
        Variant(name: "yuvj420p", encode: ["-pix_fmt", "yuvj420p"]),
        Variant(name: "full-range-vui", encode: ["-pix_fmt", "yuv420p", "-color_range", "pc"], container: "mp4"),
        Variant(name: "yuv422p", encode: ["-pix_fmt", "yuv422p"]),
        Variant(name: "yuvj422p", encode: ["-pix_fmt", "yuvj422p"]),
        Variant(name: "yuv444p", encode: ["-pix_fmt", "yuv444p"]),
        Variant(name: "yuv420p10", encode: ["-pix_fmt", "yuv420p10le"], container: "mp4"),
        Variant(name: "yuv422p10", encode: ["-pix_fmt", "yuv422p10le"]),
        Variant(name: "yuv444p10", encode: ["-pix_fmt", "yuv444p10le"]),
        Variant(name: "bt709-tags", encode: ["-pix_fmt", "yuv420p", "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709"]),
        Variant(name: "hlg-10bit", encode: ["-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc"]),
        Variant(name: "rgb", encode: ["-c:v", "libx264rgb", "-pix_fmt", "bgr0"]),
        Variant(name: "lossless-444", encode: ["-pix_fmt", "yuv444p", "-qp", "0"]),
        Variant(name: "baseline", encode: ["-pix_fmt", "yuv420p", "-profile:v", "baseline"], container: "mp4"),
        Variant(name: "b-pyramid", encode: ["-pix_fmt", "yuv420p", "-x264-params", "bframes=3:b-pyramid=normal"]),
        Variant(name: "scaling-matrix", encode: ["-pix_fmt", "yuv420p", "-x264-params", "cqm=jvt"]),
        Variant(name: "interlaced-tff", encode: ["-pix_fmt", "yuv420p", "-flags", "+ildct+ilme", "-x264-params", "tff=1"]),
        Variant(name: "odd-size", encode: ["-pix_fmt", "yuv420p", "-vf", "crop=318:238"]),
        Variant(name: "gray", encode: ["-pix_fmt", "gray"], header: false),
        Variant(name: "vui-rewritten", encode: ["-pix_fmt", "yuv420p"],
                metadata: "video_full_range_flag=1:colour_primaries=9:transfer_characteristics=14:matrix_coefficients=9:chroma_sample_loc_type=2:sample_aspect_ratio=40/33"),
        Variant(name: "vui-reserved-colours", encode: ["-pix_fmt", "yuv420p"],
                metadata: "colour_primaries=3:transfer_characteristics=3:matrix_coefficients=3"),
        Variant(name: "vui-extended-sar", encode: ["-pix_fmt", "yuv420p"], metadata: "sample_aspect_ratio=17/13", container: "mp4"),
        Variant(name: "vui-limited-range", encode: ["-pix_fmt", "yuvj420p"], metadata: "video_full_range_flag=0"),
        Variant(name: "vui-rgb-matrix-444", encode: ["-pix_fmt", "yuv444p"], metadata: "matrix_coefficients=0"),
    ]

    static func make(_ v: Variant, in dir: URL) throws -> String {
        let encoded = dir.appendingPathComponent("\(v.name)-x264.\(v.container)").path
        let codec = v.encode.contains("libx264rgb") ? [] : ["-c:v", "libx264"]
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=0.24"] + codec
                               + ["-preset", "ultrafast"] + v.encode + [encoded])
        guard let metadata = v.metadata else { return encoded }
        let rewritten = dir.appendingPathComponent("\(v.name).\(v.container)").path
        try TestSupport.ffmpeg(["-i", encoded, "-c", "copy", "-bsf:v", "h264_metadata=\(metadata)", rewritten])
        return rewritten
    }

    /// The decoder-reported fields of a stream's parameters, as text for a readable difference.
    static func fields(_ stream: UnsafeMutablePointer<AVStream>) -> [String: String] {
        let p = stream.pointee.codecpar.pointee
        return [
            "format": av_get_pix_fmt_name(AVPixelFormat(rawValue: p.format)).map { String(cString: $0) } ?? "none",
            "size": "\(p.width)x\(p.height)", "range": "\(p.color_range.rawValue)",
            "primaries": "\(p.color_primaries.rawValue)", "transfer": "\(p.color_trc.rawValue)",
            "matrix": "\(p.color_space.rawValue)", "chroma location": "\(p.chroma_location.rawValue)",
            "sar": "\(p.sample_aspect_ratio.num)/\(p.sample_aspect_ratio.den)",
            "stream sar": "\(stream.pointee.sample_aspect_ratio.num)/\(stream.pointee.sample_aspect_ratio.den)",
            "bits per raw sample": "\(p.bits_per_raw_sample)", "field order": "\(p.field_order.rawValue)",
            "profile": "\(p.profile)", "level": "\(p.level)", "video delay": "\(p.video_delay)",
            "avg rate": "\(stream.pointee.avg_frame_rate.num)/\(stream.pointee.avg_frame_rate.den)",
            "r rate": "\(stream.pointee.r_frame_rate.num)/\(stream.pointee.r_frame_rate.den)",
            "duration": "\(stream.pointee.duration)", "start": "\(stream.pointee.start_time)",
        ]
    }

    /// FFmpeg's own reading: `avformat_find_stream_info`, decoding as it does.
    static func decodedFields(_ path: String) throws -> [String: String] {
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        #expect(avformat_open_input(&ctx, path, nil, nil) >= 0)
        defer { avformat_close_input(&ctx) }
        let c = try #require(ctx)
        #expect(avformat_find_stream_info(c, nil) >= 0)
        return fields(try #require(c.pointee.streams[0]))
    }

    @Test(arguments: variants)
    func headerReadMatchesTheDecoder(_ v: Variant) throws {
        let dir = TestSupport.tempDir("header-probe-\(v.name)")
        defer { TestSupport.cleanup(dir) }
        let path = try Self.make(v, in: dir)

        // Whether the header read applies to this variant (the SPS alone says everything), on a fresh context.
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        #expect(avformat_open_input(&ctx, path, nil, nil) >= 0)
        let prepared = StreamInfoReader.prepareHeaderRead(try #require(ctx))
        avformat_close_input(&ctx)
        #expect(prepared == (v.header ? [0] : []), "\(v.name): header read applies to streams \(prepared)")

        let demuxer = try Demuxer(path: path, cancel: nil)
        let ours = Self.fields(demuxer.streams[0])
        let theirs = try Self.decodedFields(path)
        for key in theirs.keys.sorted() {
            #expect(ours[key] == theirs[key], "\(v.name) \(key): header read \(ours[key] ?? "-"), decoder \(theirs[key] ?? "-")")
        }
    }

    /// The real-world files `scripts/corpus.sh` collects (gitignored): every MOV/MP4/M4A/3GP among them, compared the same
    /// way (a file without an H.264 stream, or whose SPS the header read leaves to the decoder, is compared too).
    static let corpus = TestSupport.repoRoot.appendingPathComponent("corpus")
    static var corpusFiles: [String] {
        let files = (FileManager.default.enumerator(atPath: corpus.path)?.allObjects as? [String]) ?? []
        return files.filter { ["mov", "mp4", "m4v", "3gp", "3g2", "m4a", "m4b"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: corpus.path), "needs corpus/ (scripts/corpus.sh)"))
    func corpusHeaderReadsMatchTheDecoder() throws {
        var read = 0
        for name in Self.corpusFiles {
            let path = Self.corpus.appendingPathComponent(name).path
            guard let demuxer = try? Demuxer(path: path, cancel: nil) else { continue }
            var ctx: UnsafeMutablePointer<AVFormatContext>?
            guard avformat_open_input(&ctx, path, nil, nil) >= 0, let c = ctx else { continue }
            defer { avformat_close_input(&ctx) }
            read += StreamInfoReader.prepareHeaderRead(c).count
            var full: UnsafeMutablePointer<AVFormatContext>?
            #expect(avformat_open_input(&full, path, nil, nil) >= 0)
            defer { avformat_close_input(&full) }
            let f = try #require(full)
            #expect(avformat_find_stream_info(f, nil) >= 0)
            #expect(Int(f.pointee.nb_streams) == demuxer.streams.count, "\(name): stream count")
            for (i, stream) in demuxer.streams.enumerated() where i < Int(f.pointee.nb_streams) {
                let ours = Self.fields(stream), theirs = Self.fields(try #require(f.pointee.streams[i]))
                for key in theirs.keys.sorted() {
                    #expect(ours[key] == theirs[key], "\(name) stream \(i) \(key): header read \(ours[key] ?? "-"), decoder \(theirs[key] ?? "-")")
                }
            }
        }
        #expect(read > 0, "no H.264 stream of the corpus was read from its header")
    }

    /// Matroska keeps the decode: its decoding times are derived with the decoder's delay.
    @Test func matroskaIsDecodedAsBefore() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = dir.appendingPathComponent("clip.mkv").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=0.24", "-c:v", "libx264",
                                "-preset", "ultrafast", "-bf", "2", path])
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        #expect(avformat_open_input(&ctx, path, nil, nil) >= 0)
        #expect(StreamInfoReader.prepareHeaderRead(try #require(ctx)).isEmpty)
        avformat_close_input(&ctx)
    }

    /// An SPS cut short, an `avcC` without one, and Annex B extradata with emulation prevention.
    @Test func sequenceParameterSetEdges() throws {
        // avcC of profile 100 with one SPS (from an x264 encode of 320x240 4:2:0).
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let path = try Self.make(Self.variants[0], in: dir)
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        #expect(avformat_open_input(&ctx, path, nil, nil) >= 0)
        defer { avformat_close_input(&ctx) }
        let par = try #require(ctx?.pointee.streams[0]?.pointee.codecpar.pointee)
        let avcC = Array(UnsafeBufferPointer(start: par.extradata, count: Int(par.extradata_size)))
        let sets = try #require(H264SequenceParameters.sequenceParameterSets(extradata: avcC))
        #expect(sets.count == 1)
        let sps = try #require(H264SequenceParameters(rbsp: sets[0]))
        #expect(sps.width == 320 && sps.height == 240 && sps.chromaFormat == 1 && sps.bitDepthLuma == 8 && !sps.interlaced)
        // Cut short anywhere before the VUI's fields: no SPS rather than a wrong one.
        for length in [0, 2, 4, 6] { #expect(H264SequenceParameters(rbsp: Array(sets[0].prefix(length))) == nil) }
        // The same SPS as Annex B, with a 4-byte start code, and escaped.
        var annexB: [UInt8] = [0, 0, 0, 1, 0x67]
        var zeros = 0
        for byte in sets[0] {
            if zeros == 2 && byte <= 3 { annexB.append(3); zeros = 0 }
            annexB.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        annexB += [0, 0, 1, 0x68, 0xee, 0x3c, 0x80]
        let fromAnnexB = try #require(H264SequenceParameters.sequenceParameterSets(extradata: annexB))
        #expect(fromAnnexB.count == 1 && H264SequenceParameters(rbsp: fromAnnexB[0]) == sps)
        // An avcC that lists no SPS, and bytes that are neither form.
        #expect(H264SequenceParameters.sequenceParameterSets(extradata: [1, 100, 0, 30, 0xff, 0xe0, 0]) == [])
        #expect(H264SequenceParameters.sequenceParameterSets(extradata: [9, 9, 9]) == nil)
        #expect(H264SequenceParameters.unescaped([0, 0, 3, 1, 0, 0, 3, 0, 3][...]) == [0, 0, 1, 0, 0, 0, 3])
    }
}
