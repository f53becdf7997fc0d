import Foundation

/// Our JSON edit sidecar (`IMG_1234.edit.json`): the user's edits to apply to the original, in this order:
/// trim → crop → rotate → flip; `mute` drops the audio and `volume` scales it. The schema is in the README.
public struct EditSidecar: Codable, Sendable, Equatable {
    /// A part of the original's timeline, in seconds.
    public struct Trim: Codable, Sendable, Equatable {
        /// Seconds from the original's start where the trim begins.
        public var start: Double
        /// Seconds from the original's start where the trim ends.
        public var end: Double
        /// A trim from `start` to `end` seconds.
        public init(start: Double, end: Double) { self.start = start; self.end = end }
    }

    /// A rectangle in pixels of the picture as displayed (after the source's own rotation).
    public struct Crop: Codable, Sendable, Equatable {
        /// Left edge, in displayed pixels.
        public var x: Int
        /// Top edge, in displayed pixels.
        public var y: Int
        /// Width in displayed pixels.
        public var width: Int
        /// Height in displayed pixels.
        public var height: Int
        /// A crop of `width`×`height` displayed pixels from (`x`, `y`).
        public init(x: Int, y: Int, width: Int, height: Int) { self.x = x; self.y = y; self.width = width; self.height = height }
    }

    /// A mirror image.
    public enum Flip: String, Codable, Sendable, CaseIterable {
        case horizontal, vertical
    }

    /// The only schema version so far.
    public static let supportedFormatVersions = [1]

    /// The schema version the sidecar was written for (see `supportedFormatVersions`).
    public var formatVersion: Int
    /// The part of the original to keep.
    public var trim: Trim?
    /// The part of the picture to keep.
    public var crop: Crop?
    /// Clockwise degrees, a multiple of 90.
    public var rotate: Int?
    /// A mirror image, applied after the rotation.
    public var flip: Flip?
    /// True drops every audio stream.
    public var mute: Bool?
    /// Linear gain (1 = unchanged).
    public var volume: Double?
    /// Regions of the original's timeline played slower (Apple's slo-mo); needs a transcode.
    public var slowMotion: SlowMotion?

    /// Creates a sidecar value.
    public init(formatVersion: Int = 1, trim: Trim? = nil, crop: Crop? = nil, rotate: Int? = nil, flip: Flip? = nil,
                mute: Bool? = nil, volume: Double? = nil, slowMotion: SlowMotion? = nil) {
        self.formatVersion = formatVersion; self.trim = trim; self.crop = crop; self.rotate = rotate
        self.flip = flip; self.mute = mute; self.volume = volume; self.slowMotion = slowMotion
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case formatVersion, trim, crop, rotate, flip, mute, volume, slowMotion
    }

    /// True when the sidecar changes nothing.
    public var isEmpty: Bool {
        trim == nil && crop == nil && Rotation.normalized(rotate ?? 0) == 0 && flip == nil && mute != true && (volume ?? 1) == 1
            && (slowMotion.map { $0.rate == 1 || $0.regions.isEmpty } ?? true)
    }

    /// The edits that only a transcode can apply (passthrough refuses them).
    public var needsTranscode: [String] {
        var fields: [String] = []
        if crop != nil { fields.append("crop") }
        if let v = volume, v != 1 { fields.append("volume") }
        if let s = slowMotion, s.rate != 1, !s.regions.isEmpty { fields.append("slowMotion") }
        return fields
    }

    /// Parses and checks a sidecar file's bytes. Errors name the file and the field; nothing is ignored. Bytes
    /// over `UntrustedFile.maxBytes`, nesting deeper than `UntrustedFile.maxDepth` and a key given twice in one
    /// object are refused before parsing.
    public static func parse(_ data: Data, path: String) throws -> EditSidecar {
        func bad(_ field: String, _ reason: String) -> ExportError { .invalidSidecar(path: path, field: field, reason: reason) }
        do {
            try JSONStructure.check(data, kind: "edit sidecars")
        } catch let refusal as UntrustedFile.Refusal {
            throw bad(refusal.field, refusal.reason)
        }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch { throw bad("-", "not valid JSON") }
        guard let dict = object as? [String: Any] else { throw bad("-", "top level must be a JSON object") }
        let known = CodingKeys.allCases.map(\.rawValue)
        if let unknown = dict.keys.sorted().first(where: { !known.contains($0) }) {
            throw bad(UntrustedFile.echo(unknown), "unknown key (known: \(known.joined(separator: ", ")))")
        }
        for (key, sub) in [("trim", ["start", "end"]), ("crop", ["x", "y", "width", "height"]), ("slowMotion", ["rate", "regions"])] {
            if let d = dict[key] as? [String: Any], let unknown = d.keys.sorted().first(where: { !sub.contains($0) }) {
                throw bad("\(key).\(UntrustedFile.echo(unknown))", "unknown key (known: \(sub.joined(separator: ", ")))")
            }
        }
        let sidecar: EditSidecar
        do { sidecar = try JSONDecoder().decode(EditSidecar.self, from: data) } catch let error as DecodingError {
            throw ExportError.describe(error, file: path, sidecar: true)
        }
        try sidecar.validateShape(path: path)
        return sidecar
    }

    /// Checks that need no media: versions, signs, multiples of 90.
    func validateShape(path: String) throws {
        func bad(_ field: String, _ reason: String) -> ExportError { .invalidSidecar(path: path, field: field, reason: reason) }
        if !EditSidecar.supportedFormatVersions.contains(formatVersion) {
            throw bad("formatVersion", "unsupported version \(formatVersion) (supported: \(EditSidecar.supportedFormatVersions.map(String.init).joined(separator: ", ")))")
        }
        // Bounds keep later arithmetic (seconds → timestamps, pixels → Int32) far from overflow; the fuzzer
        // found both (`Fuzz/findings/`).
        let maxSeconds = 10_000_000.0, maxPixels = 65_536
        if let t = trim {
            if !(t.start.isFinite && t.start >= 0 && t.start <= maxSeconds) { throw bad("trim.start", "must be between 0 and \(Int(maxSeconds)) s") }
            if !(t.end.isFinite && t.end <= maxSeconds) { throw bad("trim.end", "must be at most \(Int(maxSeconds)) s") }
            if t.end <= t.start { throw bad("trim.end", "must be after trim.start (\(t.start))") }
        }
        if let c = crop {
            if !(0...maxPixels).contains(c.x) { throw bad("crop.x", "must be between 0 and \(maxPixels)") }
            if !(0...maxPixels).contains(c.y) { throw bad("crop.y", "must be between 0 and \(maxPixels)") }
            if !(2...maxPixels).contains(c.width) { throw bad("crop.width", "must be between 2 and \(maxPixels)") }
            if !(2...maxPixels).contains(c.height) { throw bad("crop.height", "must be between 2 and \(maxPixels)") }
        }
        if let r = rotate, r % 90 != 0 || abs(r) > 3600 { throw bad("rotate", "must be a multiple of 90 (at most ±3600), got \(r)") }
        if let v = volume, !(v.isFinite && v >= 0 && v <= 16) { throw bad("volume", "must be between 0 and 16, got \(v)") }
        if let s = slowMotion {
            if s.regions.count > 1000 { throw bad("slowMotion.regions", "at most 1000 regions") }
            if let problem = s.problem { throw bad("slowMotion", problem) }
        }
    }

    /// Checks the sidecar against the media it edits: the trim inside the duration, the crop inside the
    /// displayed picture. Throws `ExportError.invalidSidecar`.
    package func validate(against source: SourceInfo, path: String) throws {
        func bad(_ field: String, _ reason: String) -> ExportError { .invalidSidecar(path: path, field: field, reason: reason) }
        if let s = slowMotion, let d = source.duration, let first = s.normalized.regions.first, first.start >= d {
            throw bad("slowMotion.regions", String(format: "%.3f s is past the end of the media (%.3f s)", first.start, d))
        }
        if let t = trim, let d = source.duration {
            if t.start >= d { throw bad("trim.start", String(format: "%.3f s is past the end of the media (%.3f s)", t.start, d)) }
            if t.end > d + 0.001 { throw bad("trim.end", String(format: "%.3f s is past the end of the media (%.3f s)", t.end, d)) }
        }
        if let c = crop {
            guard let shown = source.firstVideo?.displaySize else { throw bad("crop", "the media has no video to crop") }
            if c.x + c.width > shown.width || c.y + c.height > shown.height {
                throw bad("crop", "\(c.width)x\(c.height) at (\(c.x), \(c.y)) is outside the \(shown.width)x\(shown.height) picture")
            }
        }
    }

}
