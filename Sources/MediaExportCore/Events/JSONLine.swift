import Foundation

/// One record of the JSON Lines every `--json` command writes (docs/json-events.md), the one envelope of them all:
/// `{"version":1,"kind":…,"job":…,"asset":…,"payload":…}` — `job` and `asset` only on a batch's records.
///
/// Written from any `Encodable` payload; read back with the payload kept as `JSONValue`, whatever its kind: a
/// reader meets kinds newer than itself (a later version's records, another command's) and keeps them, where
/// `ExportEvent`'s own decoder would throw. `exportEvent` turns a record of a known export kind into its event.
public struct JSONLine: Codable, Sendable, Equatable {
    /// The envelope's version: 1.
    public static let currentVersion = 1

    /// The envelope's version, `currentVersion` when written here.
    public var version: Int
    /// What the record is: an export event's kind (`started` … `cancelled`), `planned`, `job`, `batchFinished`,
    /// `case`, `regressFinished`, a command's failure kind (`batchFailed`, `regressFailed`) …
    public var kind: String
    /// The batch job the record belongs to; nil outside a batch.
    public var job: Int?
    /// The batch asset (its key) the record belongs to; nil outside a batch.
    public var asset: String?
    /// The record's content, as written.
    public var payload: JSONValue

    /// A record of `kind` carrying `payload`, encoded as the line will hold it: its times to the millisecond
    /// (`JSONTime`).
    public init<P: Encodable>(kind: String, payload: P, job: Int? = nil, asset: String? = nil) throws {
        self.version = Self.currentVersion
        self.kind = kind
        self.job = job
        self.asset = asset
        self.payload = JSONTime.rounded(try JSONDecoder().decode(JSONValue.self, from: Self.encoder.encode(payload)))
    }

    /// Reads one line; any kind is kept (its payload as written).
    public init(line: String) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(line.utf8))
    }

    /// The record as one line (no newline), keys sorted so that the same record is always the same bytes.
    public var text: String {
        String(decoding: (try? Self.encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// The payload decoded as `type`.
    public func payload<P: Decodable>(as type: P.Type) throws -> P {
        try JSONDecoder().decode(type, from: Self.encoder.encode(payload))
    }

    /// The record's export event, or nil when its kind is not one (a batch or regress record, a newer kind).
    public var exportEvent: ExportEvent? {
        guard ExportEvent.kinds.contains(kind) else { return nil }
        return try? JSONDecoder().decode(ExportEvent.self, from: Data(text.utf8))
    }

    /// Sets one key of an object payload (the tool's `exitCode` on a failure record).
    public mutating func setPayload(_ key: String, _ value: JSONValue) {
        guard case .object(var object) = payload else { return }
        object[key] = value
        payload = .object(object)
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
