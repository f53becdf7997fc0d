/// The picture written.
public struct ThumbnailResult: Codable, Sendable, Equatable {
    public var output: String
    public var width: Int
    public var height: Int
    /// Time of the frame used, on the version's timeline.
    public var time: Double
    /// `png` or `jpeg`.
    public var format: String
    public var version: VersionReport
    /// How the time was chosen.
    public var reason: String

    /// Creates the value from each of its fields.
    public init(output: String, width: Int, height: Int, time: Double, format: String, version: VersionReport, reason: String) {
        self.output = output; self.width = width; self.height = height; self.time = time; self.format = format; self.version = version; self.reason = reason
    }
}
