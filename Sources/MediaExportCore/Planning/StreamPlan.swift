/// What happens to one input stream.
public enum StreamAction: String, Codable, Sendable {
    case transcode, copy, drop
}

/// The plan for one input stream, reported in the `started` event.
public struct StreamPlan: Codable, Sendable, Equatable {
    /// Index of the stream in the input.
    public var index: Int
    /// `video`, `audio`, `subtitle`, `data` or `attachment`.
    public var type: String
    /// The input codec name.
    public var codec: String
    /// Transcode, copy or drop.
    public var action: StreamAction
    /// The output codec, when the stream is kept.
    public var outputCodec: String?
    /// Output picture size (coded), for video.
    public var width: Int?
    /// Output picture height (coded), for video.
    public var height: Int?
    /// Why a stream is dropped, or a note on how it is handled.
    public var reason: String?
    /// What the transcode changes that a person would notice (`StreamChange`: downmix, resampling, frame-rate cap,
    /// bit depth, tone mapping, deinterlacing, scaling); nil when nothing, or the stream is copied or dropped.
    public var changes: [StreamChange]?

    /// Creates the value from each of its fields.
    public init(index: Int, type: String, codec: String, action: StreamAction, outputCodec: String? = nil, width: Int? = nil, height: Int? = nil, reason: String? = nil) {
        self.index = index; self.type = type; self.codec = codec; self.action = action; self.outputCodec = outputCodec; self.width = width; self.height = height; self.reason = reason
    }
}
