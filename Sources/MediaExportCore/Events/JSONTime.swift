import Foundation

/// Times in the JSON the tool writes: seconds as numbers to the millisecond (`0.255`, never `0.2548999999999999`),
/// dates as ISO 8601 text in UTC (`2026-12-01T21:25:24Z`). The one place the rounding is done: every JSON Lines
/// record (`JSONLine`), the batch report and the thumbnail's line pass their payload through `rounded`, so a field
/// added later under a time's name is rounded like the others. The values themselves keep their precision (the
/// library's events, the database); only what is written is rounded.
package enum JSONTime {
    /// The keys whose numbers are seconds (or a speed, output seconds per second, and a frame rate): every time of
    /// docs/json-events.md. `frameDuration` is not one of them: a frame's period to the millisecond would be off by
    /// a percent at 30 fps, so it keeps its precision.
    package static let keys: Set<String> = [
        "time", "duration", "declaredDuration", "outputTime", "elapsed", "eta", "wallTime", "seconds", "start", "end", "at",
        "firstAt", "lostAudio", "dataEnd", "missing", "missingAt", "firstCorruptAt", "dataCheckSeconds", "avStartOffset",
        "firstDifferingTime", "worstSourceTime", "speed", "fps",
    ]

    /// `value` with every number under a key of `keys` rounded to the millisecond (in arrays too: an array of times).
    package static func rounded(_ value: JSONValue, key: String? = nil) -> JSONValue {
        switch value {
        case .number(let n) where key.map(keys.contains) == true: return .number(milliseconds(n))
        case .array(let a): return .array(a.map { rounded($0, key: key) })
        case .object(let o): return .object(o.reduce(into: [:]) { $0[$1.key] = rounded($1.value, key: $1.key) })
        default: return value
        }
    }

    /// Seconds to the millisecond: `0.2548999999999999` → `0.255` (the nearest double, which JSON writes as `0.255`).
    package static func milliseconds(_ seconds: Double) -> Double {
        guard seconds.isFinite else { return seconds }
        return (seconds * 1000).rounded() / 1000
    }

    /// Seconds since 1970 → ISO 8601 in UTC, to the second (`2026-12-01T21:25:24Z`): how every date is written.
    package static func iso8601(_ secondsSince1970: Double) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date(timeIntervalSince1970: secondsSince1970.rounded(.down)))
    }

    /// `value` as JSON, keys sorted and slashes unescaped, its times `rounded`.
    package static func encode<T: Encodable>(_ value: T, pretty: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        let plain = try JSONDecoder().decode(JSONValue.self, from: encoder.encode(value))
        return try encoder.encode(rounded(plain))
    }
}
