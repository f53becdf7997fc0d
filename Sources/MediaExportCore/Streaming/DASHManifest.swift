/// A static DASH MPD (ISO/IEC 23009-1) over the same segments as the HLS playlists: one Period, one AdaptationSet of
/// every rung (each Representation carries its rung's video and audio in the same segments, so its `codecs` lists
/// both), segments addressed by a `SegmentTemplate` with a `SegmentTimeline` of the exact durations (isoff-live), or,
/// when the file names do not follow one numbered pattern, by a `SegmentList` (the full profile).
public enum DASHManifest {
    /// The MPD text. `declared` gives each rung's `bandwidth` (`StreamingManifests.declared`); `audio`, a separate
    /// audio rendition and its figures, gets an AdaptationSet of its own.
    public static func mpd(_ renditions: [Rendition], declared: [StreamingManifests.Declared],
                           audio: (Rendition, StreamingManifests.Declared)? = nil) -> String {
        let templates = (renditions + (audio.map { [$0.0] } ?? [])).map(numberTemplate)
        let live = templates.allSatisfy { $0 != nil }
        let profile = live ? "urn:mpeg:dash:profile:isoff-live:2011" : "urn:mpeg:dash:profile:full:2011"
        let all = renditions + (audio.map { [$0.0] } ?? [])
        let duration = all.map(\.duration).max() ?? 0
        let buffer = all.map(\.longestSegment).max() ?? 0
        let video = renditions.contains { $0.hasVideo }
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"static\" profiles=\"\(profile)\""
                + " mediaPresentationDuration=\"\(ManifestText.isoDuration(duration))\""
                + " minBufferTime=\"\(ManifestText.isoDuration(buffer))\">",
            "  <Period id=\"0\" start=\"PT0S\">",
            "    <AdaptationSet id=\"0\" mimeType=\"\(video ? "video" : "audio")/mp4\" segmentAlignment=\"true\""
                + " startWithSAP=\"1\">",
        ]
        // A rung's own bandwidth here: with a separate audio set, the audio is the other set's.
        let own = audio == nil ? declared.map(\.bandwidth) : renditions.map { StreamingManifests.bandwidth(peak: $0.peakBitRate) }
        let ordered = zip(zip(renditions, own), templates).sorted { $0.0.1 > $1.0.1 }
        for ((rendition, bandwidth), template) in ordered {
            lines += representation(rendition, bandwidth: bandwidth, template: template)
        }
        lines.append("    </AdaptationSet>")
        if let (rendition, figures) = audio {
            lines.append("    <AdaptationSet id=\"1\" mimeType=\"audio/mp4\" segmentAlignment=\"true\" startWithSAP=\"1\">")
            lines += representation(rendition, bandwidth: figures.bandwidth, template: templates.last ?? nil)
            lines.append("    </AdaptationSet>")
        }
        lines += ["  </Period>", "</MPD>"]
        return lines.joined(separator: "\n") + "\n"
    }

    private static func representation(_ rendition: Rendition, bandwidth: Int, template: String?) -> [String] {
        var attributes = ["id=\"\(ManifestText.uri(rendition.id))\"", "bandwidth=\"\(bandwidth)\""]
        if let width = rendition.width, let height = rendition.height {
            attributes += ["width=\"\(width)\"", "height=\"\(height)\""]
        }
        if let rate = rendition.frameRateFraction {
            attributes.append("frameRate=\"\(rate.numerator)" + (rate.denominator == 1 ? "" : "/\(rate.denominator)") + "\"")
        }
        attributes.append("codecs=\"\(rendition.codecs.joined(separator: ","))\"")
        let timescale = rendition.segments.first?.timing?.timescale ?? 1
        let initialization = ManifestText.uri(ManifestText.join(rendition.folder, rendition.initName))
        var lines = ["      <Representation " + attributes.joined(separator: " ") + ">"]
        if let template {
            lines.append("        <SegmentTemplate timescale=\"\(timescale)\" initialization=\"\(initialization)\""
                + " media=\"\(template)\" startNumber=\"\(firstNumber(rendition) ?? 0)\">")
            lines += timeline(rendition) + ["        </SegmentTemplate>"]
        } else {
            lines += ["        <SegmentList timescale=\"\(timescale)\">",
                      "          <Initialization sourceURL=\"\(initialization)\"/>"]
            lines += timeline(rendition)
            for segment in rendition.segments {
                let media = ManifestText.uri(ManifestText.join(rendition.folder, segment.name))
                lines.append("          <SegmentURL media=\"\(media)\"/>")
            }
            lines.append("        </SegmentList>")
        }
        return lines + ["      </Representation>"]
    }

    /// `<S t d r>` entries: a run of equal durations is one entry, `t` written first and wherever a segment does not
    /// start where the previous one ended.
    static func timeline(_ rendition: Rendition) -> [String] {
        var runs: [(start: UInt64?, duration: UInt64, repeats: Int)] = []
        var expected: UInt64?
        for segment in rendition.segments {
            guard let timing = segment.timing else { continue }
            let start = timing.startUnits, duration = timing.durationUnits
            if let last = runs.last, start == expected, last.duration == duration {
                runs[runs.count - 1].repeats += 1
            } else {
                runs.append((start == expected ? nil : start, duration, 0))
            }
            expected = start &+ duration
        }
        let entries = runs.map { run in
            "          <S" + (run.start.map { " t=\"\($0)\"" } ?? "") + " d=\"\(run.duration)\""
                + (run.repeats > 0 ? " r=\"\(run.repeats)\"" : "") + "/>"
        }
        return ["          <SegmentTimeline>"] + entries + ["          </SegmentTimeline>"]
    }

    /// `folder/seg_$Number%05d$.m4s` when every segment's name is one prefix, a number of a fixed width counting up
    /// by one, and one suffix; nil otherwise.
    static func numberTemplate(_ rendition: Rendition) -> String? {
        guard let pattern = rendition.segments.first.flatMap({ NumberedName($0.name) }) else { return nil }
        for (i, segment) in rendition.segments.enumerated() where NumberedName(segment.name) != pattern.advanced(by: i) {
            return nil
        }
        let template = ManifestText.uri(ManifestText.join(rendition.folder, pattern.prefix)) + "$Number%0\(pattern.width)d$"
            + ManifestText.uri(pattern.suffix)
        return template.contains("$$") ? nil : template
    }

    private static func firstNumber(_ rendition: Rendition) -> Int? {
        rendition.segments.first.flatMap { NumberedName($0.name) }?.number
    }
}

/// A file name as prefix, number (the last run of digits before the extension, at most 9) and suffix: `seg_00012.m4s`.
struct NumberedName: Equatable {
    var prefix: String
    var number: Int
    var width: Int
    var suffix: String

    init?(_ name: String) {
        let characters = Array(name)
        let stem = characters.lastIndex(of: ".") ?? characters.endIndex  // the extension's digits (`m4s`) are no number
        guard let last = characters[..<stem].lastIndex(where: \.isASCIIDigit) else { return nil }
        var first = last
        while first > 0 && characters[first - 1].isASCIIDigit { first -= 1 }
        guard last - first < 9, let number = Int(String(characters[first...last])) else { return nil }
        self.init(prefix: String(characters[..<first]), number: number, width: last - first + 1,
                  suffix: String(characters[(last + 1)...]))
    }

    init(prefix: String, number: Int, width: Int, suffix: String) {
        self.prefix = prefix
        self.number = number
        self.width = width
        self.suffix = suffix
    }

    /// The name `by` places later, if its number still fits the width (`seg_00013.m4s` after `seg_00012.m4s`).
    func advanced(by: Int) -> NumberedName? {
        let next = NumberedName(prefix: prefix, number: number + by, width: width, suffix: suffix)
        return String(next.number).count <= width ? next : nil
    }
}

extension Character {
    /// `0`…`9` only (not other scripts' digits).
    var isASCIIDigit: Bool { isASCII && isNumber }
}
