import Foundation
import Testing
@testable import MediaExport
@testable import mediaexport

/// The one JSON Lines envelope (`JSONLine`): every command's records in it, any kind read back and kept.
@Suite struct JSONLineTests {
    @Test func exportEventsRoundTripThroughTheEnvelope() throws {
        let event = ExportEvent.fallback(.init(from: .transcode, to: .remux, reason: "no decoder", stage: .decode))
        let record = try JSONLine(line: event.jsonLine())
        #expect(record.version == 1 && record.kind == "fallback" && record.job == nil && record.asset == nil)
        #expect(record.exportEvent == event)
        #expect(try JSONDecoder().decode(ExportEvent.self, from: Data(event.jsonLine().utf8)) == event)
        // The same bytes whichever way it is written: the event's Codable is the envelope's.
        #expect(String(decoding: try JSONEncoder.sorted.encode(event), as: UTF8.self) == record.text)
    }

    @Test func unknownKindsAreKeptNotThrown() throws {
        let text = #"{"kind":"segmentWritten","payload":{"bytes":1234,"name":"seg-001.m4s","new":true},"version":1}"#
        let record = try JSONLine(line: text)
        #expect(record.kind == "segmentWritten" && record.exportEvent == nil)
        #expect(record.payload == .object(["bytes": .number(1234), "name": .string("seg-001.m4s"), "new": .bool(true)]))
        #expect(record.text == text)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ExportEvent.self, from: Data(text.utf8)) }
    }

    @Test func batchRecordsCarryJobAndAssetInTheSameEnvelope() throws {
        let failed = ExportEvent.failed(.init(ExportError.cancelled))
        let record = try JSONLine(line: BatchEvent.export(id: 3, key: "a/b.mov", event: failed).jsonLine())
        #expect(record.job == 3 && record.asset == "a/b.mov" && record.kind == "failed")
        guard case .object(let payload) = record.payload else { Issue.record("payload is no object"); return }
        #expect(payload["exitCode"] != nil)
        #expect(record.exportEvent == failed)
        let job = try JSONLine(line: BatchEvent.job(id: 3, key: "a/b.mov", status: .exporting).jsonLine())
        #expect(job.kind == "job" && job.job == 3 && job.payload == .object(["status": .string("exporting")]))
    }
}

extension JSONEncoder {
    /// Keys sorted, slashes as they are: how every record is written.
    static var sorted: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }
}
