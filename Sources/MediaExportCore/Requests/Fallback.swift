import Foundation

/// How an export reached its output.
public enum ExportRoute: String, Codable, Sendable {
    /// Decoded and encoded with the preset (or stream-copied, for `passthrough`).
    case transcode
    /// Stream copy into the requested container, no decoding.
    case remux
    /// A byte-exact copy of the resource, under the requested name with the resource's own extension.
    case copy
}

/// Which fallback steps an export may take when the input cannot be transcoded.
public enum FallbackPolicy: String, Codable, Sendable, CaseIterable {
    /// transcode → remux → copy.
    case auto
    /// transcode → remux.
    case remux
    /// transcode → copy.
    case copy
    /// No fallback: fail.
    case none

    /// The routes to try, in order, starting from `first`.
    package func chain(startingWith first: ExportRoute) -> [ExportRoute] {
        let fallbacks: [ExportRoute]
        switch self {
        case .auto: fallbacks = [.remux, .copy]
        case .remux: fallbacks = [.remux]
        case .copy: fallbacks = [.copy]
        case .none: fallbacks = []
        }
        let order: [ExportRoute] = [.transcode, .remux, .copy]
        let later = order.drop { $0 != first }.dropFirst()
        return [first] + fallbacks.filter { later.contains($0) }
    }
}

/// Limits that decide when a transcode gives up on its input.
public struct ErrorPolicy: Codable, Sendable, Equatable {
    /// Fail on the first corrupt packet or frame instead of skipping it.
    public var strict: Bool
    /// Corrupt packets/frames skipped before the transcode gives up (and falls back). Default 25.
    public var maxDecodeErrors: Int
    /// Seconds without progress before the watchdog stops the export (and falls back). Default 30.
    public var stallTimeout: Double

    /// The defaults: skip up to 25 corrupt packets, stall after 30 s.
    public init(strict: Bool = false, maxDecodeErrors: Int = 25, stallTimeout: Double = 30) {
        self.strict = strict; self.maxDecodeErrors = maxDecodeErrors; self.stallTimeout = stallTimeout
    }

    /// The threshold in effect (0 under `strict`).
    package var threshold: Int { strict ? 0 : maxDecodeErrors }
}
