import Foundation
import MediaExport

// JSON Lines, one versioned record per line (README: "JSON events"). The library's events are plain `Codable`
// values; the tool writes them and adds what only it knows: the exit code of a `failed` record and of the batch.

extension ExportEvent {
    /// One JSON Lines record (no trailing newline), keys sorted for stable output: `{"version":1,"kind":…,"payload":…}`.
    /// A `failed` record's payload also has the tool's `exitCode`.
    func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = (try? encoder.encode(self)) ?? Data()
        if case .failed(let f) = self, var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
           var payload = object["payload"] as? [String: Any] {
            payload["exitCode"] = ExitStatus.code(for: f.error)
            object["payload"] = payload
            data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? data
        }
        return FileName.displayingRawBytes(inJSON: String(decoding: data, as: UTF8.self))
    }
}

extension BatchEvent {
    /// One JSON Lines record: `{"version":1,"kind":…,"job":…,"asset":…,"payload":…}`.
    func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func line<P: Encodable>(_ kind: String, _ payload: P, job: Int? = nil, asset: String? = nil) -> String {
            let data = (try? encoder.encode(BatchRecord(kind: kind, job: job, asset: asset, payload: payload))) ?? Data()
            return FileName.displayingRawBytes(inJSON: String(decoding: data, as: UTF8.self))
        }
        switch self {
        case .planned(let item):
            var shown = item
            shown.key = FileName.display(item.key); shown.input = FileName.display(item.input)
            shown.output = FileName.display(item.output); shown.resources = item.resources.map(FileName.display)
            shown.reason = FileName.display(item.reason)
            return line("planned", shown, asset: shown.key)
        case .job(let id, let key, let status): return line("job", ["status": status.rawValue], job: id, asset: key)
        case .export(let id, let key, let event):
            // Reuse the export record's own encoding, adding the job id and asset.
            guard var object = (try? JSONSerialization.jsonObject(with: Data(event.jsonLine().utf8))) as? [String: Any] else { return event.jsonLine() }
            object["job"] = id
            object["asset"] = key
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        case .finished(let f): return line("batchFinished", FinishedRecord(f))
        }
    }
}

/// The `batchFinished` payload as written: the library's, plus the tool's exit code.
private struct FinishedRecord: Encodable {
    var finished: BatchEvent.BatchFinished
    init(_ f: BatchEvent.BatchFinished) { finished = f }
    private enum Keys: String, CodingKey { case exitCode }
    func encode(to encoder: Encoder) throws {
        try finished.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(ExitStatus.code(for: finished.outcome), forKey: .exitCode)
    }
}

/// The JSON Lines envelope of batch records.
private struct BatchRecord<T: Encodable>: Encodable {
    var version = 1
    var kind: String
    var job: Int?
    var asset: String?
    var payload: T
}

