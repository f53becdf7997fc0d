import Foundation

/// What happens to a transcoded video's pictures besides their size and crop: HDR kept or tone-mapped, the pixel
/// format, deinterlacing. Decided from the probe's `VideoColor` and the preset; pure.
package enum PictureProcessing {
    /// Fills `plan`'s pixel format, deinterlacing, tone mapping and output colour for `stream`.
    package static func decide(_ plan: inout VideoPlan, stream: SourceStream) {
        let v = plan.settings
        let color = stream.color
        plan.sourceColor = color
        plan.pixelFormat = v.pixelFormat
        plan.toneMap = nil
        plan.outputColor = nil
        let keepsHDR = v.hdr == .keep && v.codec.profile.hdr != nil
        if let color, color.isHDR {
            if keepsHDR {
                plan.pixelFormat = tenBit(v.pixelFormat)
                // The transfer, BT.2020 and the HDR10 metadata go along (unspecified primaries/matrix: BT.2020's).
                var out = completedHDR(color)
                out.bitDepth = 10
                out.fieldOrder = nil
                out.dolbyVision = nil
                plan.outputColor = out
            } else {
                plan.toneMap = defaultToneMapping(for: color).map { ToneMapping(source: $0.source, curve: v.toneMap, peak: $0.peak) }
                plan.outputColor = VideoColor(primaries: "bt709", transfer: "bt709", matrix: "bt709", range: "tv")
            }
        } else if keepsHDR, let depth = color?.bitDepth, depth > 8 {
            plan.pixelFormat = tenBit(v.pixelFormat)
        }
        convertRGB(&plan, stream: stream)
        plan.deinterlace = .off
        if v.deinterlace {
            switch color?.fieldOrder {
            case .some(let order) where order.isInterlaced: plan.deinterlace = .fields(order)
            case .some: plan.deinterlace = .off
            case .none: plan.deinterlace = .flaggedFrames
            }
        }
    }

    /// An RGB source (H.264 `gbrp`, PNG, QTRLE) becomes the encoder's YUV by the BT.709 matrix, limited range, and
    /// is tagged so: copying its `gbr` matrix onto YUV pictures makes players show wrong colours, and SVT-AV1 refuses
    /// the identity matrix with 4:2:0 outright. Its primaries and transfer are kept when it has them, else BT.709's
    /// (sRGB shares BT.709's primaries; untagged pictures are shown as BT.709 by players anyway).
    static func convertRGB(_ plan: inout VideoPlan, stream: SourceStream) {
        plan.yuvMatrix = nil
        guard plan.toneMap == nil, isRGB(pixelFormat: stream.pixelFormat, matrix: stream.color?.matrix) else { return }
        plan.yuvMatrix = "bt709"
        plan.outputColor = VideoColor(primaries: stream.color?.primaries ?? "bt709", transfer: stream.color?.transfer ?? "bt709",
                                      matrix: "bt709", range: "tv")
    }

    /// True for pictures stored as RGB (or a palette of RGB), whatever their tags: FFmpeg's planar `gbr…` and packed
    /// `rgb…`/`bgr…`/`argb`/`abgr`… formats, `pal8`, or a stream tagged with the identity (`gbr`) matrix.
    package static func isRGB(pixelFormat: String?, matrix: String?) -> Bool {
        if matrix == "gbr" { return true }
        guard let f = pixelFormat else { return false }
        return ["gbr", "rgb", "bgr", "argb", "abgr", "0rgb", "0bgr", "x2rgb", "x2bgr"].contains { f.hasPrefix($0) } || f == "pal8"
    }

    /// The notes a plan carries for what it does to the pictures (the `started` and `completed` records' `notes`).
    package static func notes(_ plan: VideoPlan) -> [String] {
        var notes: [String] = []
        let color = plan.sourceColor
        if let t = plan.toneMap {
            notes.append("HDR (\(t.source.rawValue.uppercased())) tone-mapped to SDR BT.709 (\(t.curve.rawValue), peak \(format(t.peak * 100)) nits)")
        } else if let out = plan.outputColor, out.isHDR {
            notes.append("HDR (\(out.transferKind.rawValue.uppercased())) kept: \(plan.settings.codec.profile.hdr?.name ?? ""), \(out.primaries ?? "bt2020") primaries"
                         + (out.mastering != nil || out.contentLight != nil ? ", HDR10 metadata carried" : ""))
        }
        if let dv = color?.dolbyVision {
            if dv.hasCompatibleBaseLayer {
                notes.append("Dolby Vision profile \(dv.profileName): its dynamic metadata (RPU) is dropped; the base layer is what is delivered")
            } else {
                notes.append("Dolby Vision profile \(dv.profileName) has no base layer other players show correctly: colours may be wrong (no Dolby Vision processing here)")
            }
        }
        if let m = plan.yuvMatrix {
            notes.append("RGB pictures converted to YUV (\(plan.pixelFormat)) with the \(m.uppercased()) matrix, tagged \(m.uppercased())")
        }
        if case .fields(let order) = plan.deinterlace {
            notes.append("\(order.description): deinterlaced (bwdif)")
        } else if plan.deinterlace == .off, !plan.settings.deinterlace, color?.fieldOrder?.isInterlaced == true {
            notes.append("interlaced source encoded as it is (video.deinterlace is false)")
        }
        return notes
    }

    /// The 10-bit counterpart of an 8-bit planar YUV format.
    static func tenBit(_ format: String) -> String {
        switch format {
        case "yuv420p", "yuvj420p": return "yuv420p10le"
        case "yuv422p", "yuvj422p": return "yuv422p10le"
        case "yuv444p", "yuvj444p": return "yuv444p10le"
        default: return format
        }
    }

    /// An HDR description with BT.2020's primaries and matrix and limited range where the source left them unsaid.
    static func completedHDR(_ c: VideoColor) -> VideoColor {
        var out = c
        if out.primaries == nil { out.primaries = "bt2020" }
        if out.matrix == nil { out.matrix = "bt2020nc" }
        if out.range == nil { out.range = "tv" }
        return out
    }

    private static func format(_ x: Double) -> String { String(format: "%.0f", x) }

    /// The libavfilter graph (between `buffer` and `buffersink`) that turns decoded pictures into what the encoder
    /// takes: deinterlace → crop → scale (RGB → YUV by `yuvMatrix`) → turn (`pixelOrientation`) → tone map → format.
    /// nil when there is nothing but a crop, a scale and a format change of YUV pictures to do: swscale does those
    /// directly (it is what the graph's `scale` would run anyway).
    ///
    /// - Parameters:
    ///   - sourceWidth: the decoded pictures' width (before the crop); `sourceHeight` likewise.
    ///   - flaggedInterlaced: for `.flaggedFrames`, whether the first decoded frame says it is interlaced.
    package static func filterGraph(_ plan: VideoPlan, sourceWidth: Int, sourceHeight: Int, flaggedInterlaced: Bool) -> String? {
        var filters: [String] = []
        switch plan.deinterlace {
        case .off: break
        case .fields(let order): filters.append("bwdif=mode=send_frame:parity=\(order.topFieldFirst ? "tff" : "bff"):deint=all")
        case .flaggedFrames: if flaggedInterlaced { filters.append("bwdif=mode=send_frame:parity=auto:deint=interlaced") }
        }
        guard !filters.isEmpty || plan.toneMap != nil || plan.pixelOrientation != nil || plan.yuvMatrix != nil else { return nil }
        if let c = plan.crop {
            let left = min(max(0, c.left), sourceWidth - 2), top = min(max(0, c.top), sourceHeight - 2)
            let w = min(c.width, sourceWidth - left), h = min(c.height, sourceHeight - top)
            if left != 0 || top != 0 || w != sourceWidth || h != sourceHeight {
                filters.append("crop=\(w):\(h):\(left):\(top):exact=1")
            }
        }
        // Scaled before tone mapping (fewer pixels through the float stages), with swscale's bicubic like the plain path.
        // RGB in: the matrix and range the output is tagged with (swscale's own default would be BT.601).
        let size = plan.scaledSize
        filters.append("scale=\(size.width):\(size.height):flags=bicubic" + (plan.yuvMatrix.map { ":out_color_matrix=\($0):out_range=tv" } ?? ""))
        // Turned after scaling (never up: fewer pixels to move), before any tone mapping.
        filters += plan.pixelOrientation?.filters ?? []
        if let t = plan.toneMap { filters += toneMapFilters(t, source: plan.sourceColor) }
        filters.append("format=\(plan.pixelFormat)")
        filters.append("setsar=1")
        return filters.joined(separator: ",")
    }

    /// The HDR → SDR filters (FFmpeg's reference chain, with the input's colour said explicitly so that a source
    /// tagging only its transfer still converts): linearise, BT.2020 → BT.709 in float RGB, tone-map, BT.709
    /// limited range. Ends in 8-bit-or-more YUV or RGB, whatever the next filter takes.
    package static func toneMapFilters(_ t: ToneMapping, source: VideoColor?) -> [String] {
        let tin = t.source == .pq ? "smpte2084" : "arib-std-b67"
        let src = completedHDR(source ?? VideoColor(transfer: tin))
        let pin = zimgPrimaries(src.primaries), min = zimgMatrix(src.matrix), rin = src.range == "pc" ? "pc" : "tv"
        return ["zscale=tin=\(tin):pin=\(pin):min=\(min):rin=\(rin):t=linear:npl=100", "format=gbrpf32le", "zscale=p=bt709",
                "tonemap=\(t.curve.rawValue):desat=0:peak=\(String(format: "%.4g", t.peak))", "zscale=t=bt709:m=bt709:r=tv"]
    }

    /// The tone mapping an HDR source gets by default (thumbnails, and presets that do not choose a curve): hable,
    /// peak from its metadata. nil for an SDR source.
    package static func defaultToneMapping(for color: VideoColor?) -> ToneMapping? {
        guard let color, color.isHDR else { return nil }
        return ToneMapping(source: color.transferKind, curve: .hable,
                           peak: SignalPeak.relative(maxCLL: color.contentLight?.maxCLL, masteringMaxLuminance: color.mastering?.maxLuminance))
    }

    /// zimg's names for FFmpeg's primaries (the ones an HDR source uses; anything else is read as BT.2020).
    static func zimgPrimaries(_ name: String?) -> String {
        switch name {
        case "bt709", "bt2020", "smpte432", "smpte431", "bt470bg", "smpte170m", "smpte240m", "film": return name!
        default: return "bt2020"
        }
    }

    /// zimg's names for FFmpeg's matrices.
    static func zimgMatrix(_ name: String?) -> String {
        switch name {
        case "bt709", "bt2020nc", "bt2020c", "bt470bg", "smpte170m", "ycgco", "fcc": return name!
        default: return "bt2020nc"
        }
    }
}
