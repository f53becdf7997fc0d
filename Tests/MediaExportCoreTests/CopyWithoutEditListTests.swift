import Foundation
import Testing
@testable import MediaExportCore

/// What a stream copy into a container without edit lists (Matroska, WebM) holds, as the plan predicts it: the
/// source's hidden lead-in shown, copied audio cut at whole packets, a long pre-skip that players would drop again.
@Suite struct CopyWithoutEditListTests {
    /// Ogg Opus whose pre-skip is `preSkip` seconds (mutagen's sample: 65535 samples at 48 kHz, 1.365 s).
    static func opus(preSkip: Double) -> SourceInfo {
        var s = SourceStream(index: 0, kind: .audio, codec: "opus", fitsIn: [.mp4, .m4v, .mkv, .webm], channels: 2, sampleRate: 48_000)
        s.preSkip = preSkip
        return .make([s])
    }

    @Test func aCutOfOpusWithALongPreSkipIsRefusedIntoMatroskaNotIntoMP4() throws {
        let cut = TimeRange(start: 1, end: 3)
        let mkv = try planned(Self.opus(preSkip: 1.365), Presets.passthrough, route: .remux, container: .mkv, range: cut)
        #expect(mkv.refusal?.contains(".mkv has no edit list: a copy of audio stream #0 (opus) cut after its start would lose its first 1.365 s") == true,
                "\(mkv.refusal ?? "none")")
        #expect(mkv.refusal?.contains(".mp4, .m4v or a transcode can") == true)
        #expect(try planned(Self.opus(preSkip: 1.365), Presets.passthrough, route: .remux, container: .mp4, range: cut).isPossible)
        // From the start the pre-skip is dropped once, as it should be; a usual pre-skip (312 samples) is within tolerance.
        #expect(try planned(Self.opus(preSkip: 1.365), Presets.passthrough, route: .remux, container: .mkv).isPossible)
        #expect(try planned(Self.opus(preSkip: 0.0065), Presets.passthrough, route: .remux, container: .mkv, range: cut).isPossible)
    }

    @Test func copiedAudioCutIntoMatroskaIsMeasuredAsWritten() throws {
        var audio = SourceStream.aac(0)
        audio.duration = 10; audio.durationIsOwn = true
        let source = SourceInfo.make([audio])
        let cut = try planned(source, Presets.passthrough, route: .remux, container: .mkv, range: TimeRange(start: 1, end: 3))
        #expect(cut.streams[0].durationExact == false, "whole packets at both ends: what was written is the measure")
        let mp4 = try planned(source, Presets.passthrough, route: .remux, container: .mp4, range: TimeRange(start: 1, end: 3))
        #expect(mp4.streams[0].durationExact, "an edit list trims the packets to the range")
    }

    @Test func aHiddenLeadInIsShownByACopyIntoMatroska() throws {
        var video = SourceStream.h264(0, 640, 360)
        video.hiddenLeadIn = .init(samples: 15, seconds: 0.5)
        let source = SourceInfo.make([video], duration: 3.5)
        let mkv = try planned(source, Presets.passthrough, route: .remux, container: .mkv)
        #expect(mkv.streams[0].shownLeadIn == 0.5 && mkv.streams[0].expectedDuration.map { abs($0 - 4.0) < 1e-9 } == true)
        #expect(mkv.notes.contains { $0.contains("the source's edit list hides 0.500 s before its start") }, "\(mkv.notes)")
        let mp4 = try planned(source, Presets.passthrough, route: .remux, container: .mp4)
        #expect(mp4.streams[0].shownLeadIn == 0 && mp4.streams[0].expectedDuration == 3.5)
    }
}
