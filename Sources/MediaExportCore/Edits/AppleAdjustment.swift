import Foundation

/// One edit of an Apple adjustment record (`.AAE`), decoded from its `adjustmentData`: what Photos did, in seconds and
/// pixels, for the planner to render or to name as not renderable. Times are on the original's timeline.
///
/// Encoded flat, one object per adjustment, `kind` naming the settings case and its values beside it:
/// `{"identifier":"Trim","enabled":true,"kind":"trim","start":0.51176,"end":2.76596}`,
/// `{"identifier":"SlowMotion","enabled":true,"kind":"slowMotion","rate":0.125,"regions":[{"start":0.398,"duration":1.857}]}`,
/// `{"identifier":"Mute","enabled":true,"kind":"mute"}`,
/// `{"identifier":"Crop","enabled":true,"kind":"crop","x":0,"y":0,"width":1920,"height":1080}`,
/// `{"identifier":"Orientation","enabled":true,"kind":"orientation","orientation":6}`,
/// `{"identifier":"VideoPosterFrame","enabled":true,"kind":"posterFrame","time":1.2}`,
/// `{"identifier":"PortraitVideo","enabled":true,"kind":"other"}`,
/// `{"identifier":"Trim","enabled":true,"kind":"unreadable","reason":"settings.endTime: timescale 0 is not positive"}`.
public struct AppleAdjustment: Codable, Sendable, Equatable {
    /// Photos' name for the adjustment (`Trim`, `SlowMotion`, `SmartTone`), cut for display.
    public var identifier: String
    /// False when Photos keeps the adjustment but has switched it off; true when the record does not say.
    public var enabled: Bool
    /// What the adjustment does, as far as it is understood here.
    public var settings: Settings

    /// The settings of the adjustments we can read; every other identifier is `other`, kept by name.
    public enum Settings: Sendable, Equatable {
        /// Keep `[start, end)` seconds of the original (`Trim`).
        case trim(start: Double, end: Double)
        /// Play each region at `rate` (0.125 is 8 times slower), the rest at normal speed (`SlowMotion`, or the
        /// binary plist of `com.apple.video.slomo`).
        case slowMotion(rate: Double, regions: [SlowMotionRegion])
        /// Drop the audio (`Mute`).
        case mute
        /// Crop to a rectangle in pixels of the original (`Crop`; straightening and perspective are not read, and
        /// whether y counts from the top or the bottom is not verified).
        case crop(x: Double, y: Double, width: Double, height: Double)
        /// The total EXIF orientation, 1 to 8 (`Orientation`, or the record's `metadata.orientation` when not 1).
        case orientation(Int)
        /// The frame shown as the still, in seconds (`LivePhotoKeyFrame`, `VideoPosterFrame`): no change to the movie.
        case posterFrame(Double)
        /// An adjustment not read here (`SmartTone`, `PortraitVideo`, …): Core Image or proprietary processing.
        case other
        /// A known identifier whose settings could not be read, and why.
        case unreadable(String)
    }

    /// Creates the value from each of its fields.
    public init(identifier: String, enabled: Bool = true, settings: Settings) {
        self.identifier = identifier; self.enabled = enabled; self.settings = settings
    }

    private enum CodingKeys: String, CodingKey {
        case identifier, enabled, kind, start, end, rate, regions, x, y, width, height, orientation, time, reason
    }

    /// Writes the adjustment as `{"identifier", "enabled", "kind", …}` with the fields of its kind.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(enabled, forKey: .enabled)
        switch settings {
        case .trim(let start, let end):
            try c.encode("trim", forKey: .kind); try c.encode(start, forKey: .start); try c.encode(end, forKey: .end)
        case .slowMotion(let rate, let regions):
            try c.encode("slowMotion", forKey: .kind); try c.encode(rate, forKey: .rate); try c.encode(regions, forKey: .regions)
        case .mute:
            try c.encode("mute", forKey: .kind)
        case .crop(let x, let y, let width, let height):
            try c.encode("crop", forKey: .kind)
            try c.encode(x, forKey: .x); try c.encode(y, forKey: .y); try c.encode(width, forKey: .width); try c.encode(height, forKey: .height)
        case .orientation(let o):
            try c.encode("orientation", forKey: .kind); try c.encode(o, forKey: .orientation)
        case .posterFrame(let t):
            try c.encode("posterFrame", forKey: .kind); try c.encode(t, forKey: .time)
        case .other:
            try c.encode("other", forKey: .kind)
        case .unreadable(let reason):
            try c.encode("unreadable", forKey: .kind); try c.encode(reason, forKey: .reason)
        }
    }

    /// Reads the form `encode(to:)` writes.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try c.decode(String.self, forKey: .identifier)
        enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
        switch try c.decode(String.self, forKey: .kind) {
        case "trim": settings = .trim(start: try c.decode(Double.self, forKey: .start), end: try c.decode(Double.self, forKey: .end))
        case "slowMotion": settings = .slowMotion(rate: try c.decode(Double.self, forKey: .rate), regions: try c.decode([SlowMotionRegion].self, forKey: .regions))
        case "mute": settings = .mute
        case "crop":
            settings = .crop(x: try c.decode(Double.self, forKey: .x), y: try c.decode(Double.self, forKey: .y),
                             width: try c.decode(Double.self, forKey: .width), height: try c.decode(Double.self, forKey: .height))
        case "orientation": settings = .orientation(try c.decode(Int.self, forKey: .orientation))
        case "posterFrame": settings = .posterFrame(try c.decode(Double.self, forKey: .time))
        case "other": settings = .other
        case "unreadable": settings = .unreadable(try c.decode(String.self, forKey: .reason))
        case let kind:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown adjustment kind \(UntrustedFile.echo(kind))")
        }
    }
}

/// A slowed part of the original: `duration` seconds from `start`.
public typealias SlowMotionRegion = SlowMotion.Region

/// Turns an `.AAE`'s `adjustmentData` into `AppleAdjustment`s, by the formats seen in real Photos files: a binary
/// plist (`com.apple.video.slomo`), else raw DEFLATE inflating to JSON (`com.apple.photo`, `com.apple.video`), else
/// zlib-wrapped DEFLATE, else opaque. The bytes are the uploader's: the inflated size, the JSON's nesting and value
/// count, the plist's structure and the number of adjustments are bounded, and nothing here throws or traps; what
/// cannot be read is a reason (`undecodable`) or an `unreadable` adjustment.
enum AdjustmentDataDecoder {
    /// The most bytes `adjustmentData` may inflate to (real ones are a few kB).
    static let maxInflatedBytes = 4 << 20
    /// The most adjustments read from one record.
    static let maxAdjustments = 1000
    /// The most slo-mo regions read from one adjustment.
    static let maxRegions = 1000
    /// The format identifiers whose data is Apple's and decoded here; any other is opaque.
    static let appleFormats: Set<String> = ["com.apple.photo", "com.apple.video", "com.apple.video.slomo"]

    /// A reason the data cannot be decoded (the caller puts "adjustmentData of <identifier>" before it).
    struct Undecodable: Error { var reason: String }

    /// The adjustments, or the reason there are none. `identifier` is the record's (already cut for display).
    static func decode(_ data: Data, identifier: String, inflate: (Data, _ limit: Int) -> Data?) -> (adjustments: [AppleAdjustment], undecodable: String?) {
        guard appleFormats.contains(identifier) else {
            let why = identifier.hasPrefix("com.apple.") ? "an Apple format not read here" : "third-party editor"
            return ([], "adjustmentData of \(identifier) is opaque (\(why))")
        }
        do {
            return (try adjustments(data, inflate: inflate), nil)
        } catch let error as Undecodable {
            return ([], "adjustmentData of \(identifier) \(error.reason)")
        } catch {
            return ([], "adjustmentData of \(identifier) could not be read: \(error)")
        }
    }

    private static func adjustments(_ data: Data, inflate: (Data, Int) -> Data?) throws -> [AppleAdjustment] {
        guard !data.isEmpty else { throw Undecodable(reason: "is empty") }
        if data.starts(with: Array("bplist00".utf8)) {
            let tree: PropertyValue
            do { tree = try BinaryPropertyList.decode(data) } catch let m as BinaryPropertyList.Malformed {
                throw Undecodable(reason: "is a binary plist that cannot be read: \(m.reason)")
            }
            guard let top = tree.dictionary else { throw Undecodable(reason: "is a binary plist whose top object is not a dictionary") }
            if top["$archiver"] != nil {
                throw Undecodable(reason: "is an NSKeyedArchiver archive (slo-mo format 1.0), not read")
            }
            if let slowMotion = top["slowMotion"] {
                return [AppleAdjustment(identifier: "SlowMotion", settings: AdjustmentSettings.slowMotion(slowMotion))]
            }
            if top["adjustments"] != nil { return try envelope(tree) }
            throw Undecodable(reason: "is a binary plist with neither slowMotion nor adjustments")
        }
        let json: Data
        if let raw = inflate(data, maxInflatedBytes) {
            json = raw
        } else if let wrapped = zlibPayload(data), let inflated = inflate(wrapped.deflate, maxInflatedBytes) {
            // The Adler-32 after the stream tells zlib data from bytes that happen to inflate.
            guard adler32(inflated) == wrapped.adler32 else { throw Undecodable(reason: "is zlib data whose checksum does not match") }
            json = inflated
        } else {
            throw Undecodable(reason: "is neither a binary plist nor DEFLATE data that inflates completely to at most \(maxInflatedBytes >> 20) MB")
        }
        let tree: PropertyValue
        do { tree = try PropertyValue.json(json, kind: "inflated adjustment data", maxBytes: maxInflatedBytes) } catch let refusal as UntrustedFile.Refusal {
            throw Undecodable(reason: "inflates to JSON that is refused: \(refusal.field == "-" ? "" : refusal.field + ": ")\(refusal.reason)")
        } catch PropertyValue.JSONFailure.notJSON {
            throw Undecodable(reason: "inflates to data that is not JSON")
        } catch PropertyValue.JSONFailure.tooManyValues {
            throw Undecodable(reason: "inflates to JSON of more than \(PropertyValue.maxValues) values")
        }
        return try envelope(tree)
    }

    /// The DEFLATE stream inside zlib's wrapper (RFC 1950: a 2-byte header, compression method 8, no preset
    /// dictionary) and the Adler-32 of its last 4 bytes, or nil when the bytes do not start like zlib data.
    private static func zlibPayload(_ data: Data) -> (deflate: Data, adler32: UInt32)? {
        let b = [UInt8](data.prefix(2))
        guard data.count >= 6, b[0] & 0x0F == 8, b[0] >> 4 <= 7, (Int(b[0]) << 8 | Int(b[1])) % 31 == 0, b[1] & 0x20 == 0 else { return nil }
        let tail = [UInt8](data.suffix(4))
        return (Data(data.dropFirst(2)), UInt32(tail[0]) << 24 | UInt32(tail[1]) << 16 | UInt32(tail[2]) << 8 | UInt32(tail[3]))
    }

    /// zlib's Adler-32 checksum. The sums are reduced every 5552 bytes, zlib's NMAX: the largest run after which `b`
    /// still fits in 32 bits, so the additions cannot overflow.
    static func adler32(_ data: Data) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        var pending = 0
        for byte in data {
            a += UInt32(byte); b += a
            pending += 1
            // Reduce before b can overflow (zlib's NMAX).
            if pending == 5552 { a %= 65521; b %= 65521; pending = 0 }
        }
        return (b % 65521) << 16 | (a % 65521)
    }

    /// The JSON (or plist) envelope: `{"adjustments":[…]}`, with `{"metadata":{"orientation":N}}` for
    /// `com.apple.photo`. An orientation other than 1 in the metadata is an `Orientation` adjustment, unless the
    /// list has one of its own.
    static func envelope(_ tree: PropertyValue) throws -> [AppleAdjustment] {
        guard let top = tree.dictionary else { throw Undecodable(reason: "is not a dictionary of adjustments") }
        var result: [AppleAdjustment] = []
        if let list = top["adjustments"] {
            guard let items = list.array else { throw Undecodable(reason: "has adjustments that are not a list") }
            guard items.count <= maxAdjustments else { throw Undecodable(reason: "has \(items.count) adjustments; at most \(maxAdjustments) are read") }
            result = items.enumerated().map { adjustment($1, index: $0) }
        }
        if let orientation = top["metadata"]?["orientation"], orientation != .integer(1),
           !result.contains(where: { $0.identifier == "Orientation" }) {
            result.append(AppleAdjustment(identifier: "Orientation", settings: AdjustmentSettings.orientation(orientation, name: "metadata.orientation")))
        }
        return result
    }

    /// One element of `adjustments`: `{"identifier": …, "enabled": …, "settings": {…}}`.
    static func adjustment(_ item: PropertyValue, index: Int) -> AppleAdjustment {
        guard let identifier = item["identifier"]?.string else {
            return AppleAdjustment(identifier: "", settings: .unreadable("adjustments[\(index)] has no identifier"))
        }
        let enabled: Bool
        switch item["enabled"] {
        case .bool(let b)?: enabled = b
        case .integer(let i)?: enabled = i != 0
        default: enabled = true
        }
        return AppleAdjustment(identifier: UntrustedFile.echo(identifier), enabled: enabled,
                               settings: AdjustmentSettings.settings(identifier: identifier, item["settings"]))
    }
}

/// The settings of each identifier read here, from a `PropertyValue`; anything wrong is `.unreadable(reason)`.
enum AdjustmentSettings {
    private struct Unreadable: Error { var reason: String }

    static func settings(identifier: String, _ settings: PropertyValue?) -> AppleAdjustment.Settings {
        switch identifier {
        case "Trim": return read {
            let s = try dictionary(settings, "settings")
            let start = try seconds(s["startTime"], "settings.startTime"), end = try seconds(s["endTime"], "settings.endTime")
            guard end > start else { throw Unreadable(reason: "settings.endTime \(end) s is not after settings.startTime \(start) s") }
            return .trim(start: start, end: end)
        }
        case "SlowMotion": return slowMotion(settings ?? .null)
        case "Mute": return .mute
        case "Crop": return read {
            let s = try dictionary(settings, "settings")
            func number(_ key: String) throws -> Double {
                guard let n = s[key]?.number else { throw Unreadable(reason: "settings.\(key) is missing or not a number") }
                return n
            }
            let crop = (x: try number("xOrigin"), y: try number("yOrigin"), width: try number("width"), height: try number("height"))
            guard crop.width > 0, crop.height > 0 else { throw Unreadable(reason: "settings.width or settings.height is not positive") }
            return .crop(x: crop.x, y: crop.y, width: crop.width, height: crop.height)
        }
        case "Orientation":
            let value = settings?["value"] ?? settings?["orientation"] ?? settings
            return orientation(value ?? .null, name: "settings")
        case "LivePhotoKeyFrame", "VideoPosterFrame": return read {
            // The time is the settings themselves, or their one CMTime entry (the key name is not known for sure).
            guard let s = settings?.dictionary else { throw Unreadable(reason: "settings are missing") }
            if s["timescale"] != nil { return .posterFrame(try seconds(settings, "settings")) }
            let times = s.filter { $0.value["timescale"] != nil }
            guard times.count == 1, let (key, time) = times.first else { throw Unreadable(reason: "settings hold no single time") }
            return .posterFrame(try seconds(time, "settings.\(UntrustedFile.echo(key))"))
        }
        default: return .other
        }
    }

    /// `{"rate": 0.125, "regions": [{"timeRange": {"start": CMTime, "duration": CMTime}}]}`.
    static func slowMotion(_ value: PropertyValue) -> AppleAdjustment.Settings {
        read {
            let s = try dictionary(value, "slowMotion")
            guard let rate = s["rate"]?.number, rate > 0 else { throw Unreadable(reason: "rate is missing or not a positive number") }
            var regions: [SlowMotionRegion] = []
            if let list = s["regions"] {
                guard let items = list.array else { throw Unreadable(reason: "regions are not a list") }
                guard items.count <= AdjustmentDataDecoder.maxRegions else { throw Unreadable(reason: "more than \(AdjustmentDataDecoder.maxRegions) regions") }
                for (i, item) in items.enumerated() {
                    // A region is {"timeRange": {start, duration}}; a bare {start, duration} is read too.
                    let range = try dictionary(item["timeRange"] ?? item, "regions[\(i)].timeRange")
                    let start = try seconds(range["start"], "regions[\(i)].timeRange.start")
                    let duration = try seconds(range["duration"], "regions[\(i)].timeRange.duration")
                    guard duration >= 0 else { throw Unreadable(reason: "regions[\(i)].timeRange.duration is negative") }
                    regions.append(SlowMotionRegion(start: start, duration: duration))
                }
            }
            return .slowMotion(rate: rate, regions: regions)
        }
    }

    /// An EXIF orientation, 1 to 8.
    static func orientation(_ value: PropertyValue, name: String) -> AppleAdjustment.Settings {
        guard let n = value.exactInteger, (1...8).contains(n) else { return .unreadable("\(name) is not an EXIF orientation (1 to 8)") }
        return .orientation(Int(n))
    }

    /// A CMTime dictionary `{value, timescale, flags, epoch}` in seconds. Valid only with a positive timescale
    /// and flags bit 0 (valid) set, and neither infinite (bits 2, 3) nor indefinite (bit 4).
    private static func seconds(_ value: PropertyValue?, _ name: String) throws -> Double {
        let time = try dictionary(value, name)
        guard let v = time["value"]?.exactInteger else { throw Unreadable(reason: "\(name).value is missing or not an integer") }
        guard let timescale = time["timescale"]?.exactInteger else { throw Unreadable(reason: "\(name).timescale is missing or not an integer") }
        guard timescale > 0, timescale <= Int64(Int32.max) else { throw Unreadable(reason: "\(name): timescale \(timescale) is not positive") }
        guard let flags = time["flags"]?.exactInteger else { throw Unreadable(reason: "\(name).flags is missing or not an integer") }
        guard flags & 1 == 1 else { throw Unreadable(reason: "\(name): flags \(flags) lack the valid bit") }
        guard flags & 0x1C == 0 else { throw Unreadable(reason: "\(name): flags \(flags) mark an infinite or indefinite time") }
        return Double(v) / Double(timescale)
    }

    private static func dictionary(_ value: PropertyValue?, _ name: String) throws -> [String: PropertyValue] {
        guard let value else { throw Unreadable(reason: "\(name) is missing") }
        guard let d = value.dictionary else { throw Unreadable(reason: "\(name) is not a dictionary") }
        return d
    }

    private static func read(_ body: () throws -> AppleAdjustment.Settings) -> AppleAdjustment.Settings {
        do { return try body() } catch let u as Unreadable { return .unreadable(u.reason) } catch { return .unreadable("\(error)") }
    }
}
