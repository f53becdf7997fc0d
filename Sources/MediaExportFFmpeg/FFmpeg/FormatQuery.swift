internal import CFFmpeg
import MediaExportCore

/// Asks this FFmpeg what `mediaexport formats` lists: for each container, the codecs a stream copy keeps
/// (`Container.canHold` over every codec FFmpeg knows), the whitelisted demuxers present, and its decoders.
public enum FormatQuery {
    /// The catalog of what mediaexport writes and reads with the FFmpeg libraries it runs on.
    public static func catalog() -> FormatCatalog {
        let known = descriptors()
        return FormatCatalog(copy: { c in lists(known.filter { c.canHold($0.id) }) }, reads: reads(known))
    }

    /// Every codec FFmpeg has a descriptor for: id, name and media type, in FFmpeg's order.
    private static func descriptors() -> [(id: AVCodecID, name: String, type: AVMediaType)] {
        var out: [(id: AVCodecID, name: String, type: AVMediaType)] = []
        var d = avcodec_descriptor_next(nil)
        while let desc = d {
            out.append((desc.pointee.id, String(cString: desc.pointee.name), desc.pointee.type))
            d = avcodec_descriptor_next(desc)
        }
        return out
    }

    /// The names in `codecs`, split by media type (data and attachment types left out).
    private static func lists(_ codecs: [(id: AVCodecID, name: String, type: AVMediaType)]) -> CodecLists {
        func named(_ t: AVMediaType) -> [String] { codecs.filter { $0.type == t }.map(\.name) }
        return CodecLists(video: named(AVMEDIA_TYPE_VIDEO), audio: named(AVMEDIA_TYPE_AUDIO), subtitle: named(AVMEDIA_TYPE_SUBTITLE))
    }

    /// The demuxers inputs open with that this FFmpeg has, and the codecs it has a decoder for.
    private static func reads(_ known: [(id: AVCodecID, name: String, type: AVMediaType)]) -> ReadFormats {
        let demuxers = InputFormats.allowed.filter { av_find_input_format($0) != nil }
        let decodable = known.filter { avcodec_find_decoder($0.id) != nil }
        return ReadFormats(demuxers: demuxers, decoders: lists(decodable))
    }
}
