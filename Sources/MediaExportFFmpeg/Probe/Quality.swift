internal import CFFmpeg
import Foundation
import MediaExportCore

/// Luma PSNR and SSIM of an export against its source, computed in-process: both are decoded, the source's
/// pictures are scaled to the output's size (bicubic, as the export did), frames are paired by presentation
/// time, and the scores are averaged over the pairs. SSIM uses 8x8 windows with a 4-pixel step (as FFmpeg's
/// `ssim` filter does) and the usual constants (K1 0.01, K2 0.03, L 255).
package enum QualityMeter {
    package struct Score { package var psnr: Double; package var ssim: Double; package var frames: Int }

    /// `origin` is the source time (seconds) that the output's time 0 came from (the trim start).
    package static func compare(output: String, source: String, origin: Double = 0) throws -> Score? {
        let out = try LumaFrames(path: output)
        guard let width = out.width, let height = out.height else { return nil }
        let src = try LumaFrames(path: source, targetWidth: width, targetHeight: height)
        var psnrSum = 0.0, ssimSum = 0.0, frames = 0
        // Two-frame window over the source: the last frame at or before the output's time and the one after.
        var before: (time: Double, luma: [UInt8])? = nil
        var after = try src.next()
        while let o = try out.next() {
            while let a = after, a.time - origin <= o.time + 1e-6 {
                before = a
                after = try src.next()
            }
            let candidates = [before, after].compactMap { $0 }
            guard let match = candidates.min(by: { abs($0.time - origin - o.time) < abs($1.time - origin - o.time) }),
                  abs(match.time - origin - o.time) < 0.05 else { continue }
            psnrSum += min(100, psnr(o.luma, match.luma))
            ssimSum += ssim(o.luma, match.luma, width: width, height: height)
            frames += 1
        }
        guard frames > 0 else { return nil }
        return Score(psnr: (psnrSum / Double(frames)).rounded(toPlaces: 3), ssim: (ssimSum / Double(frames)).rounded(toPlaces: 5), frames: frames)
    }

    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var sum = 0.0
        for i in 0..<min(a.count, b.count) {
            let d = Double(Int(a[i]) - Int(b[i]))
            sum += d * d
        }
        let mse = sum / Double(max(1, min(a.count, b.count)))
        return mse == 0 ? 100 : 10 * log10(65025.0 / mse)
    }

    static func ssim(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> Double {
        let c1 = 6.5025, c2 = 58.5225  // (0.01·255)², (0.03·255)²
        var total = 0.0, windows = 0
        var y = 0
        while y + 8 <= height {
            var x = 0
            while x + 8 <= width {
                var sa = 0.0, sb = 0.0, saa = 0.0, sbb = 0.0, sab = 0.0
                for j in 0..<8 {
                    let row = (y + j) * width + x
                    for i in 0..<8 {
                        let va = Double(a[row + i]), vb = Double(b[row + i])
                        sa += va; sb += vb; saa += va * va; sbb += vb * vb; sab += va * vb
                    }
                }
                let n = 64.0
                let ma = sa / n, mb = sb / n
                let va = saa / n - ma * ma, vb = sbb / n - mb * mb, cov = sab / n - ma * mb
                total += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
                windows += 1
                x += 4
            }
            y += 4
        }
        return windows > 0 ? total / Double(windows) : 1
    }
}

/// Decodes a file's main video stream into 8-bit luma pictures, optionally scaled.
final class LumaFrames {
    private let reader: FrameReader
    private var scaler: OpaquePointer?
    /// The picture size produced.
    let width: Int?
    let height: Int?

    init(path: String, targetWidth: Int? = nil, targetHeight: Int? = nil) throws {
        let demuxer = try Demuxer(path: path, cancel: nil)
        let best = av_find_best_stream(demuxer.context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard best >= 0 else { throw ExportError.noUsableStreams(path: path, reason: "no video to measure") }
        let stream = demuxer.streams[Int(best)]
        for s in demuxer.streams where s.pointee.index != best { s.pointee.discard = AVDISCARD_ALL }
        reader = try FrameReader(demuxer: demuxer, stream: stream, path: path, from: 0)
        width = targetWidth ?? Int(stream.pointee.codecpar.pointee.width)
        height = targetHeight ?? Int(stream.pointee.codecpar.pointee.height)
    }

    deinit { sws_freeContext(scaler) }

    /// The next picture in presentation order: its time (seconds from the container start) and luma bytes.
    func next() throws -> (time: Double, luma: [UInt8])? {
        guard let (frame, time) = try reader.next() else { return nil }
        let f = frame.pointer
        let w = Int32(width!), h = Int32(height!)
        scaler = sws_getCachedContext(scaler, f.pointee.width, f.pointee.height, AVPixelFormat(rawValue: f.pointee.format),
                                      w, h, AV_PIX_FMT_GRAY8, SWS_BICUBIC, nil, nil, nil)
        var out = [UInt8](repeating: 0, count: Int(w * h))
        out.withUnsafeMutableBufferPointer { buf in
            var dst: [UnsafeMutablePointer<UInt8>?] = [buf.baseAddress, nil, nil, nil]
            var stride: [Int32] = [w, 0, 0, 0]
            _ = sws_scale(scaler, constPlanes(f), lineSizes(f), 0, f.pointee.height, &dst, &stride)
        }
        return (time, out)
    }
}
