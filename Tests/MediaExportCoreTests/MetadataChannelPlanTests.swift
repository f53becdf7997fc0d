import Foundation
import Testing
@testable import MediaExportCore

/// Every channel of the metadata table (issue 44): streams dropped whole for what they carry (`PrivateStream`),
/// chapter tags, the neutral values of `none`, and the verifier's read-back of each (`MetadataLeak`).
@Suite struct MetadataChannelPlanTests {
    static func preset(_ level: MetadataLevel, _ name: String = "highest") -> Preset {
        var p = Presets.named(name)
        p.metadata = level
        return p
    }

    static func subtitle(_ index: Int, text: String?) -> SourceStream {
        var s = SourceStream(index: index, kind: .subtitle, codec: "mov_text", fitsIn: Fits.movText)
        s.textSample = text
        return s
    }

    static func data(_ index: Int, tag: String?, handler: String? = nil) -> SourceStream {
        var s = SourceStream(index: index, kind: .data, codec: "bin_data")
        s.codecTag = tag
        if let handler { s.tags = ["handler_name": handler] }
        return s
    }

    /// A GoPro-like clip: video, audio, GPMF telemetry (`gpmd`), camera motion (`camm`, known by its handler only),
    /// a DJI-style telemetry subtitle and a spoken one.
    static let camera = SourceInfo.make([
        .h264(0, 1920, 1080), .aac(1), data(2, tag: "gpmd", handler: "GoPro MET"), data(3, tag: nil, handler: "CameraMetadataMotionHandler"),
        subtitle(4, text: "F/2.8, SS 1000, ISO 100, EV 0, GPS (8.6874, 47.3703, 21), D 2.36m"), subtitle(5, text: "Hello, how are you?"),
    ])

    @Test func positionsInText() {
        #expect(PrivateStream.namesPositions("[latitude: 47.370300] [longitude: 8.687400]"))
        #expect(PrivateStream.namesPositions("GPS (8.6874, 47.3703, 21)"))
        #expect(PrivateStream.namesPositions("lat: 47.37 lon: 8.68"))
        #expect(PrivateStream.namesPositions("+47.3703+008.6874/"))
        #expect(!PrivateStream.namesPositions("Hello, how are you? It is 10:30, 2.5 km to go."))
        #expect(!PrivateStream.namesPositions("The relationship is flat: long live the king"))
    }

    @Test(arguments: [MetadataLevel.all, .sharing, .bare], [ExportRoute.transcode, .remux])
    func streamsDroppedForWhatTheyCarry(level: MetadataLevel, route: ExportRoute) throws {
        let plan = try ExportPlanner.plan(source: Self.camera, preset: Self.preset(level), route: route, container: .mp4, edits: nil, range: nil)
        let expected: [Int: PrivateStream] = switch level {
        case .all: [:]
        case .sharing: [2: .telemetry, 3: .telemetry, 4: .positionsInText]
        case .bare: [2: .telemetry, 3: .telemetry, 4: .positionsInText, 5: .subtitleText]
        }
        #expect(plan.metadata.droppedStreams == expected)
        for (index, why) in expected { #expect(plan.streams[index].action == .drop(reason: why.description)) }
        // The spoken subtitle stays at `sharing` (and `all`); data streams are never exported.
        #expect(plan.streams[5].isKept == (level != .bare))
        #expect(expected.keys.allSatisfy { plan.metadata.droppedNames.contains("stream #\($0)") })
        // Named among the warnings, as every dropped stream is.
        let warnings = Accounting.warnings(plan: plan, skippedPackets: 0, droppedFrames: 0, timestampRepairs: 0, version: nil)
        #expect(expected.keys.allSatisfy { i in warnings.contains { $0.hasPrefix("stream #\(i) ") } })
    }

    static let taggedChapters = [
        SourceChapter(start: 0, end: 4, title: "Grandma's house", tags: ["LOCATION": "+48.8584+002.2945/", "AUTHOR": "Jane"]),
        SourceChapter(start: 4, end: 10, title: "Garden"),
    ]

    @Test func chapterTagsAtEachLevel() throws {
        var source = SourceInfo.landscape1080
        source.chapters = Self.taggedChapters
        func chapters(_ level: MetadataLevel) throws -> ExportPlan {
            try ExportPlanner.plan(source: source, preset: Self.preset(level), route: .transcode, container: .mkv, edits: nil, range: nil)
        }
        #expect(try chapters(.all).chapters.map(\.tags) == Self.taggedChapters.map(\.tags))
        let shared = try chapters(.sharing)
        #expect(shared.chapters.map(\.tags) == [["title": "Grandma's house"], ["title": "Garden"]])
        #expect(shared.metadata.droppedNames == ["chapter #1: AUTHOR", "chapter #1: LOCATION"])
        let bare = try chapters(.bare)
        #expect(bare.chapters.map(\.tags) == [["title": "Chapter 1"], ["title": "Chapter 2"]])
        #expect(bare.metadata.droppedNames == ["chapter #1: AUTHOR", "chapter #1: LOCATION", "chapter #1: title", "chapter #2: title"])
        // A range keeps the chapters it covers, numbered in the output's order.
        let cut = try ExportPlanner.plan(source: source, preset: Self.preset(.bare), route: .transcode, container: .mkv, edits: nil,
                                         range: TimeRange(start: 5, end: 9))
        #expect(cut.chapters.map(\.tags) == [["title": "Chapter 1"]] && cut.metadata.droppedNames == ["chapter #1: title"])
    }

    @Test func chapterLeaksAreFailures() throws {
        var source = SourceInfo.landscape1080
        source.chapters = Self.taggedChapters
        let plan = try ExportPlanner.plan(source: source, preset: Self.preset(.sharing), route: .transcode, container: .mkv, edits: nil, range: nil)
        var facts = OutputFacts(formatName: "matroska", streams: [OutputFacts.Stream(kind: .video, codec: "h264"), OutputFacts.Stream(kind: .audio, codec: "aac")])
        facts.chapters = [["title": "Grandma's house"], ["title": "Garden"]]
        func leaks() -> [String] {
            OutputVerifier.metadataLeaks(plan: plan, kept: plan.keptInOutputOrder, outStreams: facts.streams, facts: facts).map(\.description)
        }
        #expect(leaks().isEmpty)
        facts.chapters[0]["LOCATION"] = "+48.8584+002.2945/"
        facts.chapters[1]["title"] = "Garden at 12 Main St"
        #expect(leaks() == ["chapter #1: LOCATION", "chapter #2: title"])
        let check = OutputVerifier.metadataChecks(plan: plan, kept: plan.keptInOutputOrder, outStreams: facts.streams, facts: facts)
        #expect(check.first?.outcome == .failed && check.first?.measured == "present: chapter #1: LOCATION, chapter #2: title")
        // An untitled chapter reads back from MP4 with an empty title: nothing of the source's.
        #expect(OutputVerifier.chapterLeaks(["title": ""], planned: [:]).isEmpty)
    }

    @Test func aMatroskaCoverIsRenamedAtNone() throws {
        var cover = SourceStream.cover(1)
        cover.tags = ["filename": "Jane_Doe_passport.jpg", "mimetype": "image/jpeg", "title": "Jane"]
        cover.picture = .readable(.jpeg, removes: [])  // a picture the strip reads (else `none` drops the cover)
        let source = SourceInfo.make([.aac(0), cover])
        let bare = try ExportPlanner.plan(source: source, preset: Self.preset(.bare, "m4a"), route: .remux, container: .mkv, edits: nil, range: nil)
        #expect(bare.metadata.neutral == [1: ["filename": "cover.jpg"]] && bare.metadata.streams[1] == ["filename", "title"])
        var out = OutputFacts.Stream(kind: .video, codec: "mjpeg")
        out.isAttachedPicture = true
        out.tags = ["filename": "cover.jpg", "mimetype": "image/jpeg"]
        let facts = OutputFacts(formatName: "matroska", streams: [OutputFacts.Stream(kind: .audio, codec: "aac"), out])
        #expect(OutputVerifier.metadataLeaks(plan: bare, kept: bare.keptInOutputOrder, outStreams: facts.streams, facts: facts).isEmpty)
        var leaked = facts
        leaked.streams[1].tags["filename"] = "Jane_Doe_passport.jpg"
        #expect(OutputVerifier.metadataLeaks(plan: bare, kept: bare.keptInOutputOrder, outStreams: leaked.streams, facts: leaked).map(\.description)
                == ["stream #1: filename"])
        let shared = try ExportPlanner.plan(source: source, preset: Self.preset(.sharing, "m4a"), route: .remux, container: .mkv, edits: nil, range: nil)
        #expect(shared.metadata.neutral.isEmpty && shared.metadata.streams.isEmpty)
    }

    @Test func aFittingSourceWithATelemetryTrackIsRemuxedNotCopied() {
        let source = SourceInfo.make([.h264(0, 1920, 1080), .aac(1), Self.subtitle(2, text: "[latitude: 47.37] [longitude: 8.68]")])
        #expect(MetadataPlan.droppedCount(source, level: .all) == 0)
        #expect(MetadataPlan.droppedCount(source, level: .sharing) == 1)
        var request = ExportRequest(input: "/in/clip.mov", output: "/out/clip.mov", preset: Self.preset(.sharing, "1920x1080"))
        request.policy = .needed
        let decision = ExportPlanner.start(StartQuestion(request: request, source: source, resourceExtension: "mov"), truncation: { nil })
        #expect(decision.route == .remux && decision.reason == .fitsDroppingTags(count: 1, level: .sharing))
    }
}
