internal import CFFmpeg
import Foundation
import MediaExportCore

/// Decides, before any decoding, what happens to every input stream: transcode, copy (the bypass) or drop.
package struct ExportPlan {
    enum Route {
        case video(index: Int, width: Int32, height: Int32, settings: VideoSettings, geometry: VideoGeometry)
        case audio(index: Int, channels: Int32, settings: AudioSettings, gain: Double)
        case copy(index: Int, displayMatrix: [Int32]?)
    }

    var routes: [Route] = []
    package var streams: [StreamPlan] = []
    var notes: [String] = []
    /// Main streams a stream copy would have to drop (the container cannot hold them): a fallback remux
    /// is skipped when there are any, since it would not deliver what the preset keeps.
    package var remuxBlockers: [String] = []

    init(demuxer: Demuxer, preset: Preset, container: Container, edits: EditSidecar? = nil) throws {
        let streams = demuxer.streams
        let ctx = demuxer.context
        let mainVideo = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        let muted = edits?.mute == true
        let gain = edits?.volume ?? 1
        let mainAudio = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        // A stream copy made for a transcoding preset (fallback remux) keeps the kinds the preset keeps.
        let copyVideo = preset.video != nil || preset.audio == nil
        let copyAudio = preset.audio != nil || preset.video == nil

        for stream in streams {
            let index = Int(stream.pointee.index)
            let par = stream.pointee.codecpar.pointee
            let type = ExportPlan.typeName(par.codec_type)
            let codec = codecName(par)
            var plan = StreamPlan(index: index, type: type, codec: codec, action: .drop)
            let attachedPic = (stream.pointee.disposition & cff_disposition_attached_pic()) != 0

            func drop(_ reason: String) { plan.action = .drop; plan.reason = reason }

            if attachedPic {
                drop("cover art (attached picture) is not carried over")
            } else if muted && par.codec_type == AVMEDIA_TYPE_AUDIO {
                drop("muted by the edit sidecar")
            } else if preset.passthrough {
                let isMain = stream.pointee.index == mainVideo || stream.pointee.index == mainAudio
                if (par.codec_type == AVMEDIA_TYPE_VIDEO && !copyVideo) || (par.codec_type == AVMEDIA_TYPE_AUDIO && !copyAudio) {
                    drop("preset \(preset.name) has no \(type)")
                } else if isMain && !container.canHold(par.codec_id) {
                    remuxBlockers.append(".\(container.rawValue) cannot hold \(type) stream #\(index) (\(codec))")
                    drop(".\(container.rawValue) cannot hold \(codec)")
                } else if par.codec_type == AVMEDIA_TYPE_DATA || par.codec_type == AVMEDIA_TYPE_ATTACHMENT || par.codec_id == AV_CODEC_ID_NONE {
                    drop("\(type) streams are not copied")
                } else if container.canHold(par.codec_id) {
                    plan.action = .copy
                    plan.outputCodec = codec
                    var matrix: [Int32]? = nil
                    if par.codec_type == AVMEDIA_TYPE_VIDEO {
                        plan.width = Int(par.width); plan.height = Int(par.height)
                        if stream.pointee.index == mainVideo, let edits {
                            matrix = VideoGeometry.displayMatrix(sourceClockwise: VideoGeometry.sourceClockwise(stream), edits: edits)
                            if matrix != nil { plan.reason = "rotation/flip applied losslessly to the display matrix" }
                        }
                    }
                    routes.append(.copy(index: index, displayMatrix: matrix))
                } else {
                    drop(".\(container.rawValue) cannot hold \(codec)")
                }
            } else if par.codec_type == AVMEDIA_TYPE_VIDEO {
                if let v = preset.video, stream.pointee.index == mainVideo {
                    if container == .m4a {
                        drop(".m4a holds audio only")
                    } else if !container.canHold(v.codec == .h264 ? AV_CODEC_ID_H264 : AV_CODEC_ID_HEVC) {
                        drop(".\(container.rawValue) cannot hold \(v.codec.rawValue)")
                    } else if par.width <= 0 || par.height <= 0 {
                        drop("picture size unknown")
                    } else {
                        let geometry = VideoGeometry(stream: stream, edits: edits)
                        let size = ExportPlan.outputSize(stream: stream, crop: geometry.crop, box: v.maxSize)
                        plan.action = .transcode
                        plan.outputCodec = v.codec.rawValue
                        plan.width = Int(size.width); plan.height = Int(size.height)
                        routes.append(.video(index: index, width: size.width, height: size.height, settings: v, geometry: geometry))
                    }
                } else if preset.video == nil {
                    drop("preset \(preset.name) has no video")
                } else {
                    drop("only the main video stream is exported")
                }
            } else if par.codec_type == AVMEDIA_TYPE_AUDIO {
                if let a = preset.audio {
                    if !container.canHold(AV_CODEC_ID_AAC) {
                        drop(".\(container.rawValue) cannot hold aac")
                    } else if par.sample_rate <= 0 {
                        drop("sample rate unknown")
                    } else {
                        let channels = max(1, min(Int32(a.channels), par.ch_layout.nb_channels > 0 ? par.ch_layout.nb_channels : 2))
                        plan.action = .transcode
                        plan.outputCodec = a.codec.rawValue
                        routes.append(.audio(index: index, channels: channels, settings: a, gain: gain))
                    }
                } else {
                    drop("preset \(preset.name) has no audio")
                }
            } else if par.codec_type == AVMEDIA_TYPE_SUBTITLE && container.canHold(par.codec_id) {
                plan.action = .copy
                plan.outputCodec = codec
                routes.append(.copy(index: index, displayMatrix: nil))
            } else {
                drop(par.codec_type == AVMEDIA_TYPE_SUBTITLE ? ".\(container.rawValue) cannot hold \(codec) subtitles" : "\(type) streams are not exported")
            }
            self.streams.append(plan)
        }
        if routes.isEmpty {
            let kinds = self.streams.map { "#\($0.index) \($0.type) \($0.codec): \($0.reason ?? "")" }.joined(separator: "; ")
            throw ExportError.noUsableStreams(path: demuxer.path,
                                              reason: streams.isEmpty ? "the file has no streams" : "no stream can be exported with preset \(preset.name) to .\(container.rawValue) (\(kinds))")
        }
    }

    /// The coded output size for a video stream: the displayed picture (sample aspect ratio applied)
    /// fitted into the box with square pixels. Rotation needs no special case: the box is orientation-free.
    static func outputSize(stream: UnsafeMutablePointer<AVStream>, crop: VideoGeometry.Rect?, box: SizeBox?) -> (width: Int32, height: Int32) {
        let par = stream.pointee.codecpar.pointee
        var sar = par.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = stream.pointee.sample_aspect_ratio }
        let codedHeight = crop?.height ?? par.height
        var displayWidth = Double(crop?.width ?? par.width)
        if sar.num > 0 && sar.den > 0 && sar.num != sar.den { displayWidth = displayWidth * Double(sar.num) / Double(sar.den) }
        let fitted = SizeBox.fitting(width: Int(displayWidth.rounded()), height: Int(codedHeight), into: box)
        return (Int32(fitted.width), Int32(fitted.height))
    }

    static func typeName(_ t: AVMediaType) -> String {
        switch t {
        case AVMEDIA_TYPE_VIDEO: return "video"
        case AVMEDIA_TYPE_AUDIO: return "audio"
        case AVMEDIA_TYPE_SUBTITLE: return "subtitle"
        case AVMEDIA_TYPE_ATTACHMENT: return "attachment"
        default: return "data"
        }
    }
}

/// The main video stream's picture edits, in coded pixels: a crop rectangle and the display matrix to write.
/// Rotation and flips are never applied to pixels: they compose into the display matrix, losslessly, so a
/// player shows the picture as edited (the source's own rotation included).
struct VideoGeometry {
    struct Rect: Equatable { var left, top, width, height: Int32 }

    /// Crop in coded pixels; nil keeps the whole picture.
    var crop: Rect?
    /// The display matrix to write instead of the source's; nil copies the source's.
    var displayMatrix: [Int32]?

    init(crop: Rect? = nil, displayMatrix: [Int32]? = nil) { self.crop = crop; self.displayMatrix = displayMatrix }

    init(stream: UnsafeMutablePointer<AVStream>, edits: EditSidecar?) {
        guard let edits else { self.init(); return }
        let par = stream.pointee.codecpar.pointee
        let cw = VideoGeometry.sourceClockwise(stream)
        var crop: Rect? = nil
        if let c = edits.crop {
            crop = VideoGeometry.codedRect(displayed: c, codedWidth: par.width, codedHeight: par.height, sourceClockwise: cw)
        }
        self.init(crop: crop, displayMatrix: VideoGeometry.displayMatrix(sourceClockwise: cw, edits: edits))
    }

    /// The source's rotation for display, clockwise degrees (0, 90, 180, 270). FFmpeg reports counter-clockwise.
    static func sourceClockwise(_ stream: UnsafeMutablePointer<AVStream>) -> Int {
        ((-MediaProbe.displayRotation(stream)) % 360 + 360) % 360 / 90 * 90
    }

    /// A display-space rectangle (after the source's rotation) as a coded-space rectangle.
    static func codedRect(displayed c: EditSidecar.Crop, codedWidth w: Int32, codedHeight h: Int32, sourceClockwise cw: Int) -> Rect {
        let x = Int32(c.x), y = Int32(c.y), cwid = Int32(c.width), chei = Int32(c.height)
        switch cw {
        case 90: return Rect(left: y, top: h - x - cwid, width: chei, height: cwid)
        case 180: return Rect(left: w - x - cwid, top: h - y - chei, width: cwid, height: chei)
        case 270: return Rect(left: w - y - chei, top: x, width: chei, height: cwid)
        default: return Rect(left: x, top: y, width: cwid, height: chei)
        }
    }

    /// The matrix for the source's rotation plus the edit's clockwise rotation, then the edit's flip in
    /// display space; nil when the edits neither rotate nor flip.
    static func displayMatrix(sourceClockwise cw: Int, edits: EditSidecar) -> [Int32]? {
        let extra = ((edits.rotate ?? 0) % 360 + 360) % 360
        guard extra != 0 || edits.flip != nil else { return nil }
        var m = [Int32](repeating: 0, count: 9)
        m.withUnsafeMutableBufferPointer { p in
            av_display_rotation_set(p.baseAddress, Double((cw + extra) % 360))
            if let f = edits.flip { av_display_matrix_flip(p.baseAddress, f == .horizontal ? 1 : 0, f == .vertical ? 1 : 0) }
        }
        return m
    }
}

/// The codec's name, or `unknown 'fourcc'` for a codec FFmpeg does not know.
func codecName(_ par: AVCodecParameters) -> String {
    if par.codec_id == AV_CODEC_ID_NONE {
        var buf = [CChar](repeating: 0, count: Int(AV_FOURCC_MAX_STRING_SIZE))
        av_fourcc_make_string(&buf, par.codec_tag)
        return "unknown '\(String(cString: buf))'"
    }
    return String(cString: avcodec_get_name(par.codec_id))
}
