internal import CFFmpeg
import Foundation
import MediaExportCore

/// Makes upright poster frames: decode (fast keyframe or exact), apply the version's crop, convert limited-range
/// YUV to full-range RGB with the stream's colour matrix (swscale), rotate and flip as the display matrix and
/// edits say, scale to fit or fill, and encode with libavcodec's PNG or MJPEG encoder. Written like exports:
/// a temporary file renamed into place.
package enum ThumbnailRenderer {
    /// A frame whose luma standard deviation is below this is "nearly uniform" (black, white, a fade).
    static let uniformThreshold = 6.0

    /// Renders the picture of `request` from the resource `report` names, with the version's `edits`.
    package static func make(_ request: ThumbnailRequest, report: VersionReport, edits: EditSidecar?) throws -> ThumbnailResult {
        let ext = PathName.pathExtension(request.output).lowercased()
        let source = report.resource
        let demuxer = try Demuxer(path: source, cancel: nil)
        let index = av_find_best_stream(demuxer.context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0 else { throw ExportError.noUsableStreams(path: source, reason: "no video stream to take a picture from") }
        let stream = demuxer.streams[Int(index)]
        for s in demuxer.streams where s.pointee.index != index { s.pointee.discard = AVDISCARD_ALL }
        if let edits, let sidecar = report.sidecar { try edits.validate(against: SourceProbe.info(demuxer), path: sidecar) }

        // The version's timeline: [trimStart, trimEnd) of the source.
        let trimStart = edits?.trim?.start ?? 0
        let length = (edits?.trim.map { $0.end - $0.start } ?? demuxer.duration ?? 0)
        var (decoded, reason) = try chosenFrame(request, demuxer: demuxer, stream: stream, trimStart: trimStart, length: length, path: source)

        // An HDR picture is tone-mapped to SDR BT.709 as exports are (hable, the metadata's peak) before it becomes RGB.
        if var color = ColorProbe.color(stream), color.isHDR {
            ColorProbe.addFirstFrameMetadata(to: &color, path: source, streamIndex: Int(index))
            decoded.frame = try toneMapped(decoded.frame, color: color, stream: stream, path: source)
            reason += "; HDR (\(color.transferKind.rawValue.uppercased())) tone-mapped to SDR"
        }
        let rgb = try upright(decoded.frame, stream: stream, edits: edits, request: request, path: source)

        let target = try OutputTarget(output: request.output, inputs: [request.input, source], overwrite: request.overwrite,
                                      replaceable: request.replaceable, sandbox: request.sandbox, defaultExtension: "jpg", anyExtension: true)
        do {
            let bytes = try rgb.encode(png: ext == "png", path: target.finalPath)
            try target.write(bytes)
            try target.commit()
        } catch {
            target.discard()
            if let e = error as? ExportError { throw e }
            throw ExportError.outputUnwritable(path: target.finalPath, reason: error.localizedDescription)
        }
        return ThumbnailResult(output: target.finalPath, width: rgb.width, height: rgb.height, time: max(0, decoded.time - trimStart),
                               format: ext == "png" ? "png" : "jpeg", version: report, reason: reason)
    }

    /// The frame `request` asks for (at its time, `length` s of the version at most, or the poster frame) and why it
    /// was chosen.
    private static func chosenFrame(_ request: ThumbnailRequest, demuxer: Demuxer, stream: UnsafeMutablePointer<AVStream>, trimStart: Double,
                                    length: Double, path: String) throws -> ((frame: Frame, time: Double), String) {
        guard let t = request.time else {
            return try posterFrame(demuxer: demuxer, stream: stream, from: trimStart + length * 0.1, until: trimStart + length, path: path)
        }
        guard t.isFinite, t >= 0 else { throw ExportError.invalidTimeRange(path: request.input, reason: "time \(t) s is negative") }
        guard t <= 1e7 else { throw ExportError.invalidTimeRange(path: request.input, reason: "time \(t) s is past the end") }
        if length > 0 && t >= length {
            throw ExportError.invalidTimeRange(path: request.input, reason: String(format: "time %.3f s is past the end (%.3f s)", t, length))
        }
        let decoded = try frameAt(demuxer: demuxer, stream: stream, seconds: trimStart + t, exact: request.exact, path: path)
        return (decoded, request.exact ? "the frame at the time asked" : "the keyframe at or before the time asked")
    }

    /// `frame` as RGB, upright and as displayed at the requested size: the version's crop (display coordinates →
    /// coded), for fill the centre cut to the box's aspect, then rotation and flips as displayed.
    private static func upright(_ frame: Frame, stream: UnsafeMutablePointer<AVStream>, edits: EditSidecar?, request: ThumbnailRequest,
                                path source: String) throws -> RGBPicture {
        let cw = StreamFacts(stream).clockwise
        let f = frame.pointer
        var crop = PixelRect(left: 0, top: 0, width: Int(f.pointee.width), height: Int(f.pointee.height))
        if let c = edits?.crop {
            crop = VideoGeometry.codedRect(displayed: c, codedWidth: Int(f.pointee.width), codedHeight: Int(f.pointee.height), sourceClockwise: cw)
        }
        let turn = Rotation.normalized(cw + (edits?.rotate ?? 0))
        let flip = edits?.flip
        let quarter = Rotation.isQuarterTurn(turn)
        // Sizes as displayed.
        var sar = f.pointee.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = AVRational(num: 1, den: 1) }
        let shown = PixelSize.displayed(width: crop.width, height: crop.height, sampleAspect: Rational(Int(sar.num), Int(sar.den)), rotation: turn)
        let shownW = shown.width, shownH = shown.height
        let target = targetSize(shownWidth: shownW, shownHeight: shownH, width: request.width, height: request.height, mode: request.mode)
        // The sample aspect ratio is the file's (up to 2³¹−1:1): a picture no scaler takes (`Int32` sides) is an error.
        guard max(target.width, target.height) <= VideoGeometry.maximumSide else {
            throw ExportError.ffmpeg(stage: .filter, path: source, code: -1, message: "the picture as displayed would be "
                                     + "\(target.width)×\(target.height), above \(VideoGeometry.maximumSide) pixels a side (sample aspect ratio \(sar.num):\(sar.den))")
        }
        // For fill, crop the centre of the source so its aspect matches the box.
        if request.mode == .fill, request.width != nil, request.height != nil {
            let boxAspect = Double(target.width) / Double(target.height)
            let shownAspect = Double(shownW) / Double(shownH)
            // Work in coded orientation: a quarter turn swaps the box's sides.
            let codedBoxAspect = quarter ? 1 / boxAspect : boxAspect
            let codedAspect = quarter ? 1 / shownAspect : shownAspect
            if codedAspect > codedBoxAspect {
                let w = Int((Double(crop.width) * codedBoxAspect / codedAspect).rounded())
                crop = PixelRect(left: crop.left + (crop.width - w) / 2, top: crop.top, width: max(2, w), height: crop.height)
            } else if codedAspect < codedBoxAspect {
                let h = Int((Double(crop.height) * codedAspect / codedBoxAspect).rounded())
                crop = PixelRect(left: crop.left, top: crop.top + (crop.height - h) / 2, width: crop.width, height: max(2, h))
            }
        }
        let codedW = quarter ? target.height : target.width
        let codedH = quarter ? target.width : target.height
        var rgb = try RGBPicture.scale(frame: frame, crop: crop, width: codedW, height: codedH, path: source)
        rgb = rgb.rotated(clockwise: turn)
        if let flip { rgb = rgb.flipped(horizontal: flip == .horizontal) }
        return rgb
    }

    /// `frame` through the default HDR → SDR chain, at its own size, as 8-bit YUV.
    static func toneMapped(_ frame: Frame, color: VideoColor, stream: UnsafeMutablePointer<AVStream>, path: String) throws -> Frame {
        guard let t = PictureProcessing.defaultToneMapping(for: color) else { return frame }
        let description = (PictureProcessing.toneMapFilters(t, source: color) + ["format=yuv420p"]).joined(separator: ",")
        let graph = try FilterGraph(video: description, first: frame.pointer, timeBase: stream.pointee.time_base,
                                    frameRate: AVRational(num: 0, den: 1), path: path)
        try graph.push(frame)
        try graph.flush()
        let out = Frame()
        guard try graph.pull(into: out) == .ready else {
            throw ExportError.ffmpeg(stage: .filter, path: path, code: -1, message: "tone mapping gave no picture")
        }
        return out
    }

    /// The output size as displayed: fit (never upscaled) or fill (exactly the box). A width alone: that width (never
    /// upscaled), the height from the displayed aspect ratio, rounded to even as the export's sizes are.
    static func targetSize(shownWidth w: Int, shownHeight h: Int, width: Int?, height: Int?, mode: ThumbnailMode) -> (width: Int, height: Int) {
        if let bw = width, height == nil {
            let tw = min(bw, w)
            return (tw, max(2, Int((Double(h) * Double(tw) / Double(w) / 2).rounded()) * 2))
        }
        guard let bw = width, let bh = height else { return (w, h) }
        if mode == .fill { return (bw, bh) }
        let scale = min(1, Double(bw) / Double(w), Double(bh) / Double(h))
        return (max(1, min(bw, Int((Double(w) * scale).rounded()))), max(1, min(bh, Int((Double(h) * scale).rounded()))))
    }

    /// Seeks to `seconds` and returns the keyframe there (fast) or the first frame at or after it (exact).
    static func frameAt(demuxer: Demuxer, stream: UnsafeMutablePointer<AVStream>, seconds: Double, exact: Bool, path: String) throws -> (frame: Frame, time: Double) {
        let frames = try FrameReader(demuxer: demuxer, stream: stream, path: path, from: seconds)
        var last: (Frame, Double)?
        while let (frame, time) = try frames.next() {
            if !exact { return (frame, time) }
            let half = 0.5 / max(1, av_q2d(av_guess_frame_rate(nil, stream, nil)))
            if time >= seconds - half { return (frame, time) }
            last = (frame, time)
        }
        if let last { return last }
        throw ExportError.ffmpeg(stage: .decode, path: path, code: AVCode.eof, message: "no picture could be decoded")
    }

    /// The first frame from `from` on whose luma is not nearly uniform (skips black lead-ins and fades), looking
    /// at most 10 s or 300 frames ahead; the frame at `from` when none qualifies.
    static func posterFrame(demuxer: Demuxer, stream: UnsafeMutablePointer<AVStream>, from: Double, until: Double,
                            path: String) throws -> ((frame: Frame, time: Double), String) {
        let frames = try FrameReader(demuxer: demuxer, stream: stream, path: path, from: from)
        var first: (Frame, Double)?
        var looked = 0
        while let (frame, time) = try frames.next() {
            if time < from - 0.001 { continue }
            if time >= until { break }
            if first == nil { first = (frame, time) }
            if lumaDeviation(frame) >= uniformThreshold {
                return ((frame, time), looked == 0 ? "poster time: 10 % into the video" : "poster time: the first non-uniform frame after 10 % into the video")
            }
            looked += 1
            if looked >= 300 || time - from > 10 { break }
        }
        if let first { return ((first.0, first.1), "poster time: 10 % into the video (no non-uniform frame found nearby)") }
        return (try frameAt(demuxer: demuxer, stream: stream, seconds: 0, exact: false, path: path), "poster time: the first frame")
    }

    /// Standard deviation of the luma plane, sampled on a grid (cheap).
    static func lumaDeviation(_ frame: Frame) -> Double {
        let f = frame.pointer
        guard let plane = f.pointee.data.0 else { return 0 }
        let w = Int(f.pointee.width), h = Int(f.pointee.height), stride = Int(f.pointee.linesize.0)
        let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: f.pointee.format))
        // Only planar YUV/gray formats have luma in plane 0 as bytes; others count as non-uniform.
        guard let d = desc, (d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB)) == 0, d.pointee.comp.0.depth == 8 else { return .infinity }
        var sum = 0.0, sumSq = 0.0, n = 0.0
        let step = max(1, min(w, h) / 64)
        var y = 0
        while y < h {
            var x = 0
            while x < w {
                let v = Double(plane[y * stride + x])
                sum += v; sumSq += v * v; n += 1
                x += step
            }
            y += step
        }
        guard n > 0 else { return 0 }
        let mean = sum / n
        return (max(0, sumSq / n - mean * mean)).squareRoot()
    }
}
