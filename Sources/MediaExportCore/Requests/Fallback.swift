import Foundation

/// How an export reached its output.
public enum ExportRoute: String, Codable, Sendable {
    /// Decoded and encoded with the preset (or stream-copied, for `passthrough`).
    case transcode
    /// Stream copy into the requested container, no decoding.
    case remux
    /// A damaged input's part that decodes, transcoded (or remuxed, for `passthrough`) into the requested container:
    /// the output is partial, and says so (`ExportEvent.Completed.partial`).
    case salvage
    /// A byte-exact copy of the resource, under the requested name with the resource's own extension.
    case copy
}

/// Which fallback steps an export may take when the input cannot be transcoded.
public enum FallbackPolicy: String, Codable, Sendable, CaseIterable {
    /// transcode → remux → copy (a damaged input: salvage → copy).
    case auto
    /// transcode → remux (and salvage for a damaged input).
    case remux
    /// transcode → copy (and salvage for a damaged input).
    case copy
    /// No fallback: fail.
    case none

    /// The route after `route` failed as `failure`, or nil when the chain ends there (the failure stands). The one
    /// rule of the chain, a function of values: a failure that is not the input's ends it; an input whose data is
    /// damaged (`damageSeen`: this route or an earlier one found it cut short or undecodable) goes as `damaged`
    /// says — a salvage (never a remux: it would copy the damage it cannot see), a byte copy, or nothing; any other
    /// input fault goes on to the next route this policy allows (transcode → remux → copy).
    package func next(after route: ExportRoute, failure: RouteFailure, damageSeen: Bool, damaged: DamagePolicy) -> ExportRoute? {
        guard failure != .hostFault, self != .none, route != .copy else { return nil }
        let remux = self == .auto || self == .remux, copy = self == .auto || self == .copy
        guard damageSeen || failure == .damaged else {
            return route == .transcode && remux ? .remux : copy ? .copy : nil
        }
        switch damaged {
        case .fail: return nil
        case .copy: return .copy
        case .salvage:
            switch route {
            case .transcode, .remux: return .salvage
            case .salvage, .copy: return copy ? .copy : nil
            }
        }
    }
}

/// What to deliver for an input whose data is damaged (cut short, or with more undecodable packets than allowed).
public enum DamagePolicy: String, Codable, Sendable, CaseIterable {
    /// The part that decodes, in the container asked for, said partial (then the byte copy if nothing decodes).
    case salvage
    /// A byte copy of the resource, as it is (as Photos' `PHAssetResourceManager.writeData` would).
    case copy
    /// Nothing: the export fails.
    case fail
}

/// Limits that decide when a transcode gives up on its input.
public struct ErrorPolicy: Codable, Sendable, Equatable {
    /// Fail on the first corrupt packet or frame instead of skipping it.
    public var strict: Bool
    /// Corrupt packets/frames skipped before the transcode gives up (and falls back). Default 25.
    public var maxDecodeErrors: Int
    /// Seconds without progress before the watchdog stops the export (and falls back). Default 30.
    public var stallTimeout: Double
    /// What a damaged input delivers once its remux failed too. Default `salvage`.
    public var damaged: DamagePolicy

    /// The defaults: skip up to 25 corrupt packets, stall after 30 s, salvage a damaged input.
    public init(strict: Bool = false, maxDecodeErrors: Int = 25, stallTimeout: Double = 30, damaged: DamagePolicy = .salvage) {
        self.strict = strict; self.maxDecodeErrors = maxDecodeErrors; self.stallTimeout = stallTimeout; self.damaged = damaged
    }

    private enum CodingKeys: String, CodingKey { case strict, maxDecodeErrors, stallTimeout, damaged }

    /// Reads a policy; `damaged` may be absent (requests written before it existed): `salvage`.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(strict: try c.decode(Bool.self, forKey: .strict), maxDecodeErrors: try c.decode(Int.self, forKey: .maxDecodeErrors),
                  stallTimeout: try c.decode(Double.self, forKey: .stallTimeout),
                  damaged: try c.decodeIfPresent(DamagePolicy.self, forKey: .damaged) ?? .salvage)
    }

    /// The threshold in effect (0 under `strict`).
    package var threshold: Int { strict ? 0 : maxDecodeErrors }
}
