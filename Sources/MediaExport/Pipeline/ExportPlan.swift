import CFFmpeg
import Foundation

/// Decides, before any decoding, what happens to every input stream: transcode, copy (the bypass) or drop.
struct ExportPlan {
    enum Route {
        case video(index: Int, width: Int32, height: Int32, settings: VideoSettings)
        case audio(index: Int, channels: Int32, settings: AudioSettings)
        case copy(index: Int)
    }

    var routes: [Route] = []
    var streams: [StreamPlan] = []
    var notes: [String] = []

    init(demuxer: Demuxer, preset: Preset, container: Container) throws {
        let streams = demuxer.streams
        let ctx = demuxer.context
        let mainVideo = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)

        for stream in streams {
            let index = Int(stream.pointee.index)
            let par = stream.pointee.codecpar.pointee
            let type = ExportPlan.typeName(par.codec_type)
            let codec = String(cString: avcodec_get_name(par.codec_id))
            var plan = StreamPlan(index: index, type: type, codec: codec, action: .drop)
            let attachedPic = (stream.pointee.disposition & cff_disposition_attached_pic()) != 0

            func drop(_ reason: String) { plan.action = .drop; plan.reason = reason }

            if attachedPic {
                drop("cover art (attached picture) is not carried over")
            } else if preset.passthrough {
                if par.codec_type == AVMEDIA_TYPE_DATA || par.codec_type == AVMEDIA_TYPE_ATTACHMENT || par.codec_id == AV_CODEC_ID_NONE {
                    drop("\(type) streams are not copied")
                } else if container.canHold(par.codec_id) {
                    plan.action = .copy
                    plan.outputCodec = codec
                    if par.codec_type == AVMEDIA_TYPE_VIDEO { plan.width = Int(par.width); plan.height = Int(par.height) }
                    routes.append(.copy(index: index))
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
                        let size = ExportPlan.outputSize(stream: stream, box: v.maxSize)
                        plan.action = .transcode
                        plan.outputCodec = v.codec.rawValue
                        plan.width = Int(size.width); plan.height = Int(size.height)
                        routes.append(.video(index: index, width: size.width, height: size.height, settings: v))
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
                        routes.append(.audio(index: index, channels: channels, settings: a))
                    }
                } else {
                    drop("preset \(preset.name) has no audio")
                }
            } else if par.codec_type == AVMEDIA_TYPE_SUBTITLE && container.canHold(par.codec_id) {
                plan.action = .copy
                plan.outputCodec = codec
                routes.append(.copy(index: index))
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
    static func outputSize(stream: UnsafeMutablePointer<AVStream>, box: SizeBox?) -> (width: Int32, height: Int32) {
        let par = stream.pointee.codecpar.pointee
        var sar = par.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = stream.pointee.sample_aspect_ratio }
        var displayWidth = Double(par.width)
        if sar.num > 0 && sar.den > 0 && sar.num != sar.den { displayWidth = displayWidth * Double(sar.num) / Double(sar.den) }
        let fitted = SizeBox.fitting(width: Int(displayWidth.rounded()), height: Int(par.height), into: box)
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
