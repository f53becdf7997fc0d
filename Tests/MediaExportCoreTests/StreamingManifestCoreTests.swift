import Testing
@testable import MediaExportCore

/// Manifests and the validator over renditions named directly: the text written, the bandwidth rule, the findings.
@Suite struct StreamingManifestCoreTests {
    static let tracks = [
        InitSegment.Track(id: 1, kind: .video, timescale: 30000, sampleEntry: "avc1", codec: "avc1.64001F", width: 640,
                          height: 360, defaults: .init()),
        InitSegment.Track(id: 2, kind: .audio, timescale: 48000, sampleEntry: "mp4a", codec: "mp4a.40.2", defaults: .init()),
    ]

    /// A rung of 29.97 fps segments of `frames` frames each (1001 units a frame), with `bytes` bytes each.
    static func rendition(_ id: String, frames: [Int], bytes: [Int], starts shift: UInt64 = 0, sync: Bool = true,
                          audio: Bool = true) -> Rendition {
        var start: UInt64 = shift
        var segments: [SegmentFacts] = []
        for (i, (n, size)) in zip(frames, bytes).enumerated() {
            let units = UInt64(n * 1001)
            var tracks = [SegmentFacts.Track(id: 1, kind: .video, timescale: 30000, startUnits: start, durationUnits: units,
                                             sampleCount: n, startsWithSync: sync)]
            if audio {
                tracks.append(.init(id: 2, kind: .audio, timescale: 48000, startUnits: start * 8 / 5, durationUnits: units * 8 / 5,
                                    sampleCount: n, startsWithSync: true))
            }
            segments.append(SegmentFacts(name: "seg_\(String(repeating: "0", count: 4))\(i).m4s", bytes: size, tracks: tracks,
                                         firstVideoSample: .init(offset: 24, length: size / 4)))
            start += units
        }
        let initSegment = InitSegment(tracks: audio ? tracks : [tracks[0]])
        return Rendition(id: id, folder: id, initName: "init.mp4", initSegment: initSegment, segments: segments)
    }

    @Test func fixedDecimalsAreLocaleFree() {
        #expect(ManifestText.fixed(4, places: 6) == "4.000000")
        #expect(ManifestText.fixed(29.97002997, places: 3) == "29.970")
        #expect(ManifestText.fixed(0.0000005, places: 6) == "0.000001")
        #expect(ManifestText.fixed(-1.25, places: 1) == "-1.3" || ManifestText.fixed(-1.25, places: 1) == "-1.2")
        #expect(ManifestText.fixed(.nan, places: 2) == "0.00")
        #expect(ManifestText.uri("r 0/seg\"1.m4s") == "r%200/seg%221.m4s")
    }

    @Test func mediaAndIFramePlaylists() {
        let r = Self.rendition("r0", frames: [120, 120, 60], bytes: [400_000, 300_000, 100_000])
        #expect(HLSPlaylist.media(r) == """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:5
        #EXT-X-MEDIA-SEQUENCE:0
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:4.004000,
        seg_00000.m4s
        #EXTINF:4.004000,
        seg_00001.m4s
        #EXTINF:2.002000,
        seg_00002.m4s
        #EXT-X-ENDLIST

        """)
        let iFrames = HLSPlaylist.iFrames(r) ?? ""
        #expect(iFrames.contains("#EXT-X-I-FRAMES-ONLY\n"))
        #expect(iFrames.contains("#EXTINF:4.004000,\n#EXT-X-BYTERANGE:75000@24\nseg_00001.m4s\n"))
        #expect(HLSPlaylist.iFrames(Self.rendition("a", frames: [120], bytes: [1], audio: true).withoutVideo) == nil)
    }

    @Test func masterListsHighestFirstWithMeasuredFigures() throws {
        let low = Self.rendition("360p", frames: [120, 120], bytes: [200_000, 100_000])
        let high = Self.rendition("720p", frames: [120, 120], bytes: [800_000, 600_000])
        let files = StreamingManifests.files(for: [low, high])
        #expect(files.map(\.name) == ["360p/media.m3u8", "360p/iframes.m3u8", "720p/media.m3u8", "720p/iframes.m3u8",
                                      "master.m3u8", "manifest.mpd"])
        let master = try #require(files.first { $0.name == "master.m3u8" }).text
        let peak = 800_000.0 * 8 / 4.004
        let declared = StreamingManifests.bandwidth(peak: peak)
        #expect(Double(declared) >= peak && Double(declared) <= peak * 1.025)
        let lines = master.split(separator: "\n").map(String.init)
        #expect(lines[3] == "#EXT-X-STREAM-INF:BANDWIDTH=\(declared),AVERAGE-BANDWIDTH=\(Int(high.averageBitRate.rounded(.up))),"
            + "CODECS=\"avc1.64001F,mp4a.40.2\",RESOLUTION=640x360,FRAME-RATE=29.970")
        #expect(lines[4] == "720p/media.m3u8" && lines[6] == "360p/media.m3u8")
        #expect(lines[7].hasPrefix("#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=") && lines[7].hasSuffix(",CODECS=\"avc1.64001F\",RESOLUTION=640x360,URI=\"720p/iframes.m3u8\""))
    }

    @Test func mpdHasExactTimelineAndTemplate() throws {
        let r = Self.rendition("r0", frames: [120, 120, 60], bytes: [400_000, 300_000, 100_000])
        let mpd = DASHManifest.mpd([r], declared: [StreamingManifests.declared(r)])
        #expect(mpd.contains("profiles=\"urn:mpeg:dash:profile:isoff-live:2011\" mediaPresentationDuration=\"PT10.010S\""))
        #expect(mpd.contains("segmentAlignment=\"true\" startWithSAP=\"1\""))
        #expect(mpd.contains("width=\"640\" height=\"360\" frameRate=\"30000/1001\" codecs=\"avc1.64001F,mp4a.40.2\""))
        #expect(mpd.contains("<SegmentTemplate timescale=\"30000\" initialization=\"r0/init.mp4\" media=\"r0/seg_$Number%05d$.m4s\" startNumber=\"0\">"))
        #expect(mpd.contains("<S t=\"0\" d=\"120120\" r=\"1\"/>\n          <S d=\"60060\"/>"))
        // Names that do not count up: a SegmentList naming each file.
        var odd = r
        odd.segments[1].name = "other.m4s"
        let list = DASHManifest.mpd([odd], declared: [StreamingManifests.declared(odd)])
        #expect(list.contains("profile:full:2011") && list.contains("<SegmentURL media=\"r0/other.m4s\"/>"))
        #expect(list.contains("<Initialization sourceURL=\"r0/init.mp4\"/>"))
    }

    @Test func separateAudioRenditionIsAGroupAndASecondSet() throws {
        let video = Self.rendition("720p", frames: [120, 120], bytes: [800_000, 600_000], audio: false)
        var audio = Self.rendition("audio", frames: [120, 120], bytes: [48_000, 48_000]).withoutVideo
        audio.initSegment.tracks[0].id = 1
        let files = StreamingManifests.files(for: [video], audio: audio)
        #expect(files.map(\.name) == ["720p/media.m3u8", "720p/iframes.m3u8", "audio/media.m3u8", "master.m3u8", "manifest.mpd"])
        let master = try #require(files.first { $0.name == "master.m3u8" }).text
        let declared = StreamingManifests.declared(video, audio: audio)
        #expect(declared.peak == video.peakBitRate + audio.peakBitRate)
        #expect(master.contains("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"audio\",DEFAULT=YES,AUTOSELECT=YES,URI=\"audio/media.m3u8\"\n"))
        #expect(master.contains("BANDWIDTH=\(declared.bandwidth),") && master.contains("CODECS=\"avc1.64001F,mp4a.40.2\""))
        #expect(master.contains(",AUDIO=\"audio\"\n720p/media.m3u8\n"))
        let mpd = try #require(files.first { $0.name == "manifest.mpd" }).text
        #expect(mpd.contains("<AdaptationSet id=\"1\" mimeType=\"audio/mp4\""))
        #expect(mpd.contains("bandwidth=\"\(StreamingManifests.bandwidth(peak: video.peakBitRate))\""))
        #expect(PackageValidator.check([video], declared: [declared, StreamingManifests.declared(audio)], audio: audio,
                                       targetDuration: 4).isEmpty)
        // Declared without the audio, the variant is under its peak.
        #expect(PackageValidator.check([video], declared: [StreamingManifests.declared(video)], audio: audio, targetDuration: 4)
            .contains { if case .bandwidthBelowPeak = $0 { true } else { false } })
    }

    @Test func validatorAcceptsAnAlignedLadder() {
        let a = Self.rendition("a", frames: [120, 120, 60], bytes: [400_000, 300_000, 100_000])
        let b = Self.rendition("b", frames: [120, 120, 60], bytes: [100_000, 90_000, 30_000], audio: false)
        let findings = PackageValidator.check([a, b], declared: [a, b].map { StreamingManifests.declared($0) }, targetDuration: 4)
        #expect(findings.isEmpty)
    }

    @Test func validatorNamesEachFault() {
        let a = Self.rendition("a", frames: [120, 120, 60], bytes: [400_000, 300_000, 100_000])
        let b = Self.rendition("b", frames: [121, 119, 60, 30], bytes: [1, 1, 1, 1], sync: false)
        let c = Self.rendition("c", frames: [150], bytes: [1], starts: 3000)
        var declared = [a, b, c].map { StreamingManifests.declared($0) }
        declared[0].bandwidth = Int(a.peakBitRate * 0.99)
        declared[1].bandwidth = Int(b.peakBitRate * 1.2) + 1
        let findings = PackageValidator.check([a, b, c], declared: declared, targetDuration: 4)
        #expect(findings.contains(.bandwidthBelowPeak(rendition: "a", declared: declared[0].bandwidth, peak: a.peakBitRate)))
        #expect(findings.contains(.bandwidthOverMargin(rendition: "b", declared: declared[1].bandwidth, peak: b.peakBitRate)))
        #expect(findings.contains(.segmentStartsWithoutSync(rendition: "b", segment: 0, trackID: 1)))
        #expect(findings.contains(.segmentCountDiffers(rendition: "b", count: 4, expected: 3)))
        #expect(findings.contains(.boundaryMisaligned(rendition: "b", segment: 1, start: 121 * 1001 / 30000.0, expected: 4.004)))
        #expect(findings.contains(.segmentTooLong(rendition: "c", segment: 0, duration: 5.005, limit: 4.5)))
        #expect(findings.contains(.firstSegmentStartsApart(rendition: "c", start: 0.1, expected: 0)))
    }

    @Test func cueCoverageFindsGaps() {
        #expect(PackageValidator.cueCoverage([(0, 5), (5, 10)], duration: 10).isEmpty)
        #expect(PackageValidator.cueCoverage([(5, 10), (0, 4)], duration: 12)
            == [.cuesLeaveGap(from: 4, to: 5), .cuesLeaveGap(from: 10, to: 12)])
    }
}

extension Rendition {
    /// The rung with its video track taken away (an audio-only rung for the I-frame test).
    var withoutVideo: Rendition {
        var copy = self
        copy.initSegment.tracks.removeAll { $0.kind == .video }
        return copy
    }
}
