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
    public var input: String
    /// `.jpg`/`.jpeg` or `.png`.
    public var output: String
    /// Seconds on the version's timeline (after a sidecar's trim); nil picks a poster time.
    public var time: Double?
    /// Target width and height (as displayed); nil keeps the displayed size.
    public var width: Int?
    public var height: Int?
    public var mode: ThumbnailMode
    /// Decode up to the exact time; otherwise the keyframe at or before it is used (fast).
    public var exact: Bool
    public var version: AssetVersion
    public var editsPath: String?
    public var overwrite: Bool
    /// The output must resolve inside this folder; nil uses the output's folder.
    public var sandbox: String?

    public init(input: String, output: String, time: Double? = nil, width: Int? = nil, height: Int? = nil, mode: ThumbnailMode = .fit,
                exact: Bool = false, version: AssetVersion = .current, editsPath: String? = nil, overwrite: Bool = false, sandbox: String? = nil) {
        self.input = input; self.output = output; self.time = time; self.width = width; self.height = height; self.mode = mode
        self.exact = exact; self.version = version; self.editsPath = editsPath; self.overwrite = overwrite; self.sandbox = sandbox
    }
}
