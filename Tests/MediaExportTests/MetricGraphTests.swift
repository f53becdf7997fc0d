import Foundation
import Testing
import CFFmpeg
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Quality measured in-process with libavfilter's metric filters (`MetricGraph`), and during an encode (`ScoringTap`),
/// against the ffmpeg CLI's own numbers.
@Suite struct MetricGraphTests {
    /// A `width`×`height` yuv420p picture whose samples are a pattern of `seed`.
    static func picture(width: Int32 = 64, height: Int32 = 48, seed: Int = 0) throws -> Frame {
        let frame = Frame()
        let f = frame.pointer
        f.pointee.width = width
        f.pointee.height = height
        f.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        #expect(av_frame_get_buffer(f, 0) >= 0)
        let data = planes(f), lines = lineSizes(f)
        for plane in 0..<3 {
            let rows = plane == 0 ? Int(height) : Int(height) / 2, columns = plane == 0 ? Int(width) : Int(width) / 2
            for y in 0..<rows {
                for x in 0..<columns { data[plane]![y * Int(lines[plane]) + x] = UInt8((x * 7 + y * 13 + seed * (x ^ y)) & 0xFF) }
            }
        }
        return frame
    }

    /// A new reference to `frame`'s picture.
    static func copy(_ frame: Frame) -> Frame {
        let c = Frame()
        #expect(av_frame_ref(c.pointer, frame.pointer) >= 0)
        return c
    }

    /// Scores `pairs` pairs of `reference` against `distorted` pictures.
    static func scores(_ metric: QualityMetric, _ pairs: [(Frame, Frame)]) throws -> [Double] {
        let graph = try MetricGraph(metric: metric, reference: pairs[0].0, distorted: pairs[0].1, path: "test")
        var all: [Double] = []
        for (r, d) in pairs { all += try graph.add(reference: r, distorted: d) }
        return all + (try graph.finish())
    }

    @Test("identical pictures: SSIM 1, PSNR at its cap of 100 dB; one score a pair, in order")
    func identical() throws {
        let a = try Self.picture(), b = try Self.picture(seed: 3)
        let ssim = try Self.scores(.ssim, [(Self.copy(a), Self.copy(a)), (Self.copy(a), Self.copy(b)), (Self.copy(b), Self.copy(b))])
        #expect(ssim.count == 3)
        #expect(abs(ssim[0] - 1) < 1e-9 && abs(ssim[2] - 1) < 1e-9)
        #expect(ssim[1] < 0.9, "different pictures scored \(ssim[1])")
        let psnr = try Self.scores(.psnr, [(Self.copy(a), Self.copy(a)), (Self.copy(a), Self.copy(b))])
        #expect(psnr.count == 2 && psnr[0] == QualityMetric.psnrCap)
        #expect(psnr[1] < 40)
    }

    @Test("a distorted picture of another size or format is brought to the reference's before it is scored")
    func scaledDistorted() throws {
        let a = try Self.picture(width: 64, height: 48)
        let converted = Frame()
        converted.pointer.pointee.width = 64; converted.pointer.pointee.height = 48
        converted.pointer.pointee.format = AV_PIX_FMT_YUV444P.rawValue
        #expect(av_frame_get_buffer(converted.pointer, 0) >= 0)
        let sws = sws_getContext(64, 48, AV_PIX_FMT_YUV420P, 64, 48, AV_PIX_FMT_YUV444P, SWS_BICUBIC, nil, nil, nil)
        defer { sws_freeContext(sws) }
        sws_scale(sws, constPlanes(a.pointer), lineSizes(a.pointer), 0, 48, planes(converted.pointer), lineSizes(converted.pointer))
        let ssim = try Self.scores(.ssim, [(Self.copy(a), converted)])
        #expect(ssim.count == 1 && ssim[0] > 0.95)
    }

    @Test("vmaf is refused where this FFmpeg has no per-frame VMAF")
    func vmafRefused() throws {
        let a = try Self.picture()
        #expect(throws: ExportError.self) { try MetricGraph(metric: .vmaf, reference: a, distorted: a, path: "test") }
        #expect(MetricCatalog.available(.ssim) && MetricCatalog.available(.psnr))
        #expect(MetricCatalog.refusal(.ssim) == nil && MetricCatalog.refusal(.psnr) == nil)
        // A usage error (exit 64) that names the filter and the way out, whether or not the build has libvmaf.
        guard case .usage(let reason)? = MetricCatalog.refusal(.vmaf) else { Issue.record("vmaf not refused"); return }
        #expect(reason.contains("libvmaf") && reason.contains("libavfilter 8.") && reason.contains("use ssim:… or psnr:…"), "\(reason)")
    }
}
