/// The picture written.
public struct ThumbnailResult: Codable, Sendable, Equatable {
    /// The picture's path.
    public var output: String
    /// The picture's width in pixels.
    public var width: Int
    /// The picture's height in pixels.
    public var height: Int
    /// Time of the frame used, on the version's timeline.
    public var time: Double
    /// `png` or `jpeg`.
    public var format: String
    /// The version the picture was taken from, and why.
    public var version: VersionReport
    /// How the time was chosen.
    public var reason: String

    /// Creates the value from each of its fields.
    public init(output: String, width: Int, height: Int, time: Double, format: String, version: VersionReport, reason: String) {
        self.output = output; self.width = width; self.height = height; self.time = time; self.format = format; self.version = version; self.reason = reason
    }
}
