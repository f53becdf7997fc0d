import Foundation

/// A part of the source's timeline, in seconds from its start (like `AVAssetExportSession.timeRange`).
public struct TimeRange: Codable, Sendable, Equatable {
    /// First second to export; `nil` or 0 is the start.
    public var start: Double?
    /// Second to stop at (exclusive); `nil` is the end.
    public var end: Double?
    /// Creates a range.
    public init(start: Double? = nil, end: Double? = nil) { self.start = start; self.end = end }
}

/// One export job as a plain value: what to read, what to write, how.
public struct ExportRequest: Codable, Sendable, Equatable {
    /// The input media file.
    public var input: String
    /// The output file; its extension chooses the container (`.mp4`, `.mov`, `.m4v`, `.m4a`, `.mkv`).
    public var output: String
    /// The preset to apply.
    public var preset: Preset
    /// Optional part of the timeline.
    public var timeRange: TimeRange?
    /// Replace an existing output.
    public var overwrite: Bool
    /// The output must resolve inside this folder; `nil` uses the output's own folder.
    public var sandbox: String?

    /// Creates a request.
    public init(input: String, output: String, preset: Preset, timeRange: TimeRange? = nil, overwrite: Bool = false, sandbox: String? = nil) {
        self.input = input; self.output = output; self.preset = preset; self.timeRange = timeRange
        self.overwrite = overwrite; self.sandbox = sandbox
    }
}
