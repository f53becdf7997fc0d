import Foundation

/// How a picture meets its target size (like `PHImageContentMode`).
public enum ThumbnailMode: String, Codable, Sendable, CaseIterable {
    /// The largest picture inside the box, aspect ratio kept, never upscaled.
    case fit
    /// Covers the box and crops the centre to exactly the box.
    case fill
}

/// A poster frame or thumbnail to make (like `requestImage(for:targetSize:contentMode:options:)`).
public struct ThumbnailRequest: Codable, Sendable, Equatable {
    /// The file to take the picture from.
    public var input: String
    /// `.jpg`/`.jpeg` or `.png`.
    public var output: String
    /// Seconds on the version's timeline (after a sidecar's trim); nil picks a poster time.
    public var time: Double?
    /// Target width and height (as displayed); nil keeps the displayed size. A width without a height: that width
    /// (never upscaled), the height from the displayed aspect ratio, even.
    public var width: Int?
    /// See `width`.
    public var height: Int?
    /// How the picture meets `width` × `height`.
    public var mode: ThumbnailMode
    /// Decode up to the exact time; otherwise the keyframe at or before it is used (fast).
    public var exact: Bool
    /// The version to take the picture from.
    public var version: AssetVersion
    /// A JSON edit sidecar to use instead of the one found beside the input.
    public var editsPath: String?
    /// Replace an existing output.
    public var overwrite: Bool
    /// Without `overwrite`: the files the picture may replace (a batch's own poster), proven when replacing.
    public var replaceable: [OwnedFile] = []
    /// The output must resolve inside this folder; nil uses the output's folder.
    public var sandbox: String?

    /// A request whose every field but the input and output has a default.
    public init(input: String, output: String, time: Double? = nil, width: Int? = nil, height: Int? = nil, mode: ThumbnailMode = .fit,
                exact: Bool = false, version: AssetVersion = .current, editsPath: String? = nil, overwrite: Bool = false, sandbox: String? = nil) {
        self.input = input; self.output = output; self.time = time; self.width = width; self.height = height; self.mode = mode
        self.exact = exact; self.version = version; self.editsPath = editsPath; self.overwrite = overwrite; self.sandbox = sandbox
    }
}
