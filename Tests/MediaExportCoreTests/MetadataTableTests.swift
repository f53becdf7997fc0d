import Foundation
import Testing
@testable import MediaExportCore

/// The one table of what each metadata level drops (`MetadataLevel`), the plan it makes and the verifier's check.
@Suite struct MetadataTableTests {
    static let iPhoneTags = ["creation_time": "2024-05-01T12:34:56Z", "com.apple.quicktime.location.ISO6709": "+48.8584+002.2945/",
                             "location": "+48.8584+002.2945/", "location-eng": "+48.8584+002.2945/", "©xyz": "+48+002/",
                             "com.apple.quicktime.make": "Apple", "com.apple.quicktime.model": "iPhone 15", "com.apple.quicktime.software": "17.1",
                             "com.apple.quicktime.author": "Jane", "com.apple.quicktime.content.identifier": "AB-12",
                             "com.apple.quicktime.camera.identifier": "Back", "title": "Paris", "artist": "Band", "GPS_POSITION": "1,2",
                             "camera_serial_number": "123", "major_brand": "qt  ", "encoder": "Lavf"]

    @Test func sharingDropsLocationOwnerAndIdentifiersOnly() {
        let (kept, dropped) = MetadataLevel.sharing.filter(Self.iPhoneTags, in: .container)
        #expect(dropped == ["GPS_POSITION", "artist", "camera_serial_number", "com.apple.quicktime.author", "com.apple.quicktime.camera.identifier",
                            "com.apple.quicktime.content.identifier", "com.apple.quicktime.location.ISO6709", "location", "location-eng", "©xyz"])
        #expect(Set(kept.keys) == ["creation_time", "com.apple.quicktime.make", "com.apple.quicktime.model", "com.apple.quicktime.software",
                                   "title", "major_brand", "encoder"])
        #expect(MetadataLevel.sharing.dropReason("LOCATION", in: .stream) == "location")
    }

    @Test func allKeepsEverythingAndNoneOnlyWhatPlays() {
        #expect(MetadataLevel.all.filter(Self.iPhoneTags, in: .container).dropped.isEmpty)
        #expect(Set(MetadataLevel.bare.filter(Self.iPhoneTags, in: .container).kept.keys) == ["major_brand", "encoder"])
        let stream = ["language": "fra", "handler_name": "SoundHandler", "creation_time": "x", "title": "Commentary", "vendor_id": "FFMP"]
        #expect(MetadataLevel.bare.filter(stream, in: .stream).dropped == ["creation_time", "title"])
    }

    @Test func containerTagsAtEachLevel() {
        let all = OutputTags.forOutput(resource: Self.iPhoneTags, original: nil)
        #expect(all.dropped.isEmpty && all.tags["location"] == "+48.8584+002.2945/")
        let shared = OutputTags.forOutput(resource: ["com.apple.quicktime.location.ISO6709": "+1+2/", "creation_time": "t"], original: nil, level: .sharing)
        #expect(shared.tags == ["creation_time": "t"] && shared.dropped == ["com.apple.quicktime.location.ISO6709"])
    }

    @Test func plannedAndVerified() throws {
        var source = SourceInfo.make([.h264(0, 1920, 1080), .aac(1)])
        source.streams[1].tags = ["language": "eng", "location": "+1+2/"]
        var preset = Presets.named("passthrough")
        preset.metadata = .sharing
        let plan = try ExportPlanner.plan(source: source, preset: preset, route: .transcode, container: .mkv, edits: nil, range: nil)
        #expect(plan.metadata.level == .sharing && plan.metadata.streams == [1: ["location"]])
        #expect(plan.metadata.droppedNames == ["stream #1: location"])
        var audio = OutputFacts.Stream(kind: .audio, codec: "aac")
        audio.tags = ["LANGUAGE": "eng"]
        var facts = OutputFacts(formatName: "matroska", streams: [OutputFacts.Stream(kind: .video, codec: "h264"), audio], tags: ["ENCODER": "Lavf"])
        func outcome() -> Verification.Outcome? {
            OutputVerifier.metadataChecks(plan: plan, kept: plan.keptInOutputOrder, outStreams: facts.streams, facts: facts).first?.outcome
        }
        #expect(outcome() == .passed)
        facts.streams[1].tags["LOCATION"] = "+1+2/"
        #expect(outcome() == .failed)
        facts.streams[1].tags = [:]
        facts.tags["com.apple.quicktime.location.ISO6709"] = "+1+2/"
        #expect(outcome() == .failed, "sharing checks every key of the table, not only those dropped")
        preset.metadata = nil
        let today = try ExportPlanner.plan(source: source, preset: preset, route: .transcode, container: .mkv, edits: nil, range: nil)
        #expect(today.metadata == MetadataPlan() && OutputVerifier.metadataChecks(plan: today, kept: [], outStreams: [], facts: facts).isEmpty)
    }

    /// A preset's `metadata` key: `all` reads as no key at all (the preset's JSON, and a batch's settings hash, as before).
    @Test func presetKey() throws {
        func preset(_ json: String) throws -> Preset { try JSONDecoder().decode(Preset.self, from: Data(json.utf8)) }
        #expect(try preset(#"{"name": "x", "metadata": "sharing"}"#).metadataLevel == .sharing)
        #expect(try preset(#"{"name": "x", "metadata": "none"}"#).metadata == .bare)
        let all = try preset(#"{"name": "x", "metadata": "all"}"#)
        let plain = try preset(#"{"name": "x"}"#)
        #expect(all.metadata == nil && all.metadataLevel == .all && all == plain)
        #expect(throws: DecodingError.self) { try preset(#"{"name": "x", "metadata": "private"}"#) }
        let encoded = String(decoding: try JSONEncoder().encode(all), as: UTF8.self)
        #expect(!encoded.contains("metadata"))
    }
}
