internal import CFFmpeg
import Foundation
import MediaExportCore

/// Luma PSNR and SSIM of an export against its source, computed in-process: both are decoded, the source's
/// pictures are scaled to the output's size (bicubic, as the export did), each output frame is paired with the
/// source picture the export's timeline puts there, and the scores are averaged over the pairs. SSIM uses 8x8
/// windows with a 4-pixel step (as FFmpeg's `ssim` filter does) and the usual constants (K1 0.01, K2 0.03, L 255).
package enum QualityMeter {
    package struct Score { package var psnr: Double; package var ssim: Double; package var frames: Int }

    /// `timeline` is the plan's the export ran (`ExportSession.deliveredPlan`): it maps each output time to the
    /// source's clock (trim start, slow motion). nil: the output's time 0 is the source's start.
    package static func compare(output: String, source: String, timeline: PlannedTimeline? = nil) throws -> Score? {
        try compare(output: output, source: source, timeline: timeline, keepFrames: false)?.score
    }

    /// The same single pass; with `keepFrames` it also keeps every pair's scores and the worst pair's pictures
    /// (lowest PSNR), returned as a `QualityDetail` with grayscale PNGs at most `QualityTally.imageWidth` wide.
    package static func compare(output: String, source: String, timeline: PlannedTimeline? = nil,
                                keepFrames: Bool) throws -> (score: Score, detail: QualityDetail?)? {
        let out = try LumaFrames(path: output)
        guard let width = out.width, let height = out.height else { return nil }
        let sourceFrames = try LumaFrames(path: source, targetWidth: width, targetHeight: height)
        var pairing = try SourcePairing(frames: sourceFrames, timeline: timeline ?? PlannedTimeline(origin: sourceFrames.startTime))
        var tally = QualityTally(width: width, height: height, keepFrames: keepFrames, sourceStart: sourceFrames.startTime)
        while let o = try out.next() {
            guard let match = try pairing.match(o.time) else { continue }
            tally.add(output: o, source: match)
        }
        guard let score = tally.score else { return nil }
        return (score, keepFrames ? tally.detail(clockwise: out.clockwise, path: output) : nil)
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

/// Pairs output frames with source pictures: an output time is mapped to the source's clock by the export's
/// timeline, and paired with the last source picture at or before it (a slowed region shows each source picture
/// for longer; `slack` absorbs the timestamps' rounding), unless that picture is the source's last and ended
/// `reach` before.
struct SourcePairing {
    /// Seconds a source picture may be late and still count as at or before the mapped time.
    static let slack = 0.002
    /// How long after the source's last picture an output time still pairs with it.
    static let reach = 0.05
    let frames: LumaFrames
    let timeline: PlannedTimeline
    private var before: (time: Double, luma: [UInt8])?
    private var after: (time: Double, luma: [UInt8])?

    init(frames: LumaFrames, timeline: PlannedTimeline) throws {
        self.frames = frames
        self.timeline = timeline
        after = try frames.next()
    }

    /// The source picture for the output time `time` (seconds on the output's clock), or nil when none is shown there.
    mutating func match(_ time: Double) throws -> (time: Double, luma: [UInt8])? {
        let mapped = timeline.sourceTime(atOutput: time)
        while let a = after, a.time <= mapped + Self.slack {
            before = a
            after = try frames.next()
        }
        guard let before, after != nil || mapped - before.time < Self.reach else { return nil }
        return before
    }
}

/// The running sums of a comparison (the averaged `Score`) and, when asked, each pair's scores and the worst pair.
struct QualityTally {
    /// The widest picture a detail keeps (pictures are scaled down to it).
    static let imageWidth = 480
    let width: Int
    let height: Int
    let keepFrames: Bool
    private var psnrSum = 0.0, ssimSum = 0.0, count = 0
    private var frames: [QualityDetail.Frame] = []
    /// The source's start on its clock: the worst pair's source time counts from it.
    let sourceStart: Double
    private var worst: (index: Int, psnr: Double, sourceTime: Double, output: [UInt8], source: [UInt8])?

    init(width: Int, height: Int, keepFrames: Bool, sourceStart: Double = 0) {
        self.width = width; self.height = height; self.keepFrames = keepFrames; self.sourceStart = sourceStart
    }

    mutating func add(output o: (time: Double, luma: [UInt8]), source s: (time: Double, luma: [UInt8])) {
        let psnr = min(100, QualityMeter.psnr(o.luma, s.luma))
        let ssim = QualityMeter.ssim(o.luma, s.luma, width: width, height: height)
        psnrSum += psnr
        ssimSum += ssim
        count += 1
        guard keepFrames else { return }
        frames.append(QualityDetail.Frame(time: o.time.rounded(toPlaces: 4), psnr: psnr.rounded(toPlaces: 3), ssim: ssim.rounded(toPlaces: 5)))
        if worst.map({ psnr < $0.psnr }) ?? true { worst = (frames.count - 1, psnr, s.time - sourceStart, o.luma, s.luma) }
    }

    /// The averages, rounded as baselines record them; nil when no frame was paired.
    var score: QualityMeter.Score? {
        guard count > 0 else { return nil }
        return QualityMeter.Score(psnr: (psnrSum / Double(count)).rounded(toPlaces: 3),
                                  ssim: (ssimSum / Double(count)).rounded(toPlaces: 5), frames: count)
    }

    /// The kept series and the worst pair as PNGs, turned `clockwise` as the output is displayed. A picture that
    /// cannot be made is left out: it illustrates the measurement, it does not change it.
    func detail(clockwise: Int, path: String) -> QualityDetail? {
        guard let worst else { return nil }
        func png(_ luma: [UInt8]) -> Data? {
            try? RGBPicture.luma(luma, width: width, height: height, fittingWidth: Self.imageWidth, path: path)
                .rotated(clockwise: clockwise).encode(png: true, path: path)
        }
        return QualityDetail(frames: frames, worstIndex: worst.index, worstSourceTime: worst.sourceTime.rounded(toPlaces: 4),
                             outputPNG: png(worst.output), sourcePNG: png(worst.source))
    }
}

/// Decodes a file's main video stream into 8-bit luma pictures, optionally scaled.
final class LumaFrames {
    private let reader: FrameReader
    private var scaler: OpaquePointer?
    /// The size and pixel format `scaler` was last set up for (`keepVideoRange` runs again when they change).
    private var scaledFrom: [Int32] = []
    /// The picture size produced.
    let width: Int?
    let height: Int?
    /// How far the stream is turned clockwise when displayed (0, 90, 180, 270).
    let clockwise: Int
    /// The container's start time (seconds on its clock).
    let startTime: Double

    init(path: String, targetWidth: Int? = nil, targetHeight: Int? = nil) throws {
        let demuxer = try Demuxer(path: path, cancel: nil)
        let best = av_find_best_stream(demuxer.context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard best >= 0 else { throw ExportError.noUsableStreams(path: path, reason: "no video to measure") }
        let stream = demuxer.streams[Int(best)]
        for s in demuxer.streams where s.pointee.index != best { s.pointee.discard = AVDISCARD_ALL }
        reader = try FrameReader(demuxer: demuxer, stream: stream, path: path, from: 0)
        width = targetWidth ?? Int(stream.pointee.codecpar.pointee.width)
        height = targetHeight ?? Int(stream.pointee.codecpar.pointee.height)
        clockwise = StreamFacts(stream).clockwise
        startTime = demuxer.startTime
    }

    deinit { sws_freeContext(scaler) }

    /// Makes `scaler` write luma in video range (16–235), the range an encoder's `yuv420p` holds and FFmpeg's `psnr`
    /// filter compares: swscale's GRAY8 is full range, and expanding to it scales every difference by 255/219
    /// (−1.3 dB of PSNR).
    private static func keepVideoRange(_ scaler: OpaquePointer?) {
        var inverse: UnsafeMutablePointer<Int32>?, table: UnsafeMutablePointer<Int32>?
        var sourceRange: Int32 = 0, range: Int32 = 0, brightness: Int32 = 0, contrast: Int32 = 0, saturation: Int32 = 0
        guard sws_getColorspaceDetails(scaler, &inverse, &sourceRange, &table, &range, &brightness, &contrast, &saturation) >= 0 else { return }
        _ = sws_setColorspaceDetails(scaler, inverse, sourceRange, table, 0, brightness, contrast, saturation)
    }

    /// The next picture in presentation order: its time (seconds on the file's clock: an export's output time, a
    /// source's time as its timeline counts) and luma bytes.
    func next() throws -> (time: Double, luma: [UInt8])? {
        guard let (frame, sinceStart) = try reader.next() else { return nil }
        let time = sinceStart + startTime
        let f = frame.pointer
        let w = Int32(width!), h = Int32(height!)
        scaler = sws_getCachedContext(scaler, f.pointee.width, f.pointee.height, AVPixelFormat(rawValue: f.pointee.format),
                                      w, h, AV_PIX_FMT_GRAY8, SWS_BICUBIC, nil, nil, nil)
        let input = [f.pointee.width, f.pointee.height, f.pointee.format]
        if input != scaledFrom {
            Self.keepVideoRange(scaler)
            scaledFrom = input
        }
        var out = [UInt8](repeating: 0, count: Int(w) * Int(h))  // Int32 × Int32 could pass Int32
        out.withUnsafeMutableBufferPointer { buf in
            var dst: [UnsafeMutablePointer<UInt8>?] = [buf.baseAddress, nil, nil, nil]
            var stride: [Int32] = [w, 0, 0, 0]
            _ = sws_scale(scaler, constPlanes(f), lineSizes(f), 0, f.pointee.height, &dst, &stride)
        }
        return (time, out)
    }
}
