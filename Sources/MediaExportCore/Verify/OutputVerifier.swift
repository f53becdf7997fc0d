import Foundation

/// Compares a finished output with its plan: the last step before the output takes its name. Pure: the FFmpeg
/// layer reads the `OutputFacts`; what passes is decided here.
///
/// Tolerances: a stream's duration within one frame (video; a frame counted at most as the stream's planned length)
/// or 1024 samples (audio) of the plan when the plan's duration can be trusted (`StreamDecision.durationExact`), else
/// of what the executor wrote (less, by as much as frames missing in holes, `DeliveredStream.missing`); a video frame
/// count within 1 % (at least one frame); tags compared as values (a creation time to the second). Cover art must be
/// there as cover art (an attached picture, not a video track), of its size; it has no duration or frames to check.
package enum OutputVerifier {
    /// The identity display matrix: the same as none.
    static let identity: [Int32] = [65536, 0, 0, 0, 65536, 0, 0, 0, 1 << 30]

    /// Every check of `facts` against `plan`.
    ///
    /// - Parameters:
    ///   - delivered: what the executor wrote per output stream (the plan's kept streams, in order).
    ///   - tags: the container tags the output was given (`creation_time`, `location` and the Live Photo identifier
    ///     `com.apple.quicktime.content.identifier` are checked).
    ///   - damaged: corrupt input was skipped (as the error policy allows): durations and frame counts are then
    ///     checked against what was written, and the shortfall against the plan is a warning of the export.
    package static func verify(plan: ExportPlan, source: SourceInfo, facts: OutputFacts, delivered: [DeliveredStream],
                              tags: [String: String], damaged: Bool = false) -> Verification {
        // Cover art is no track (MP4's `covr` atom, a Matroska attachment): it reads back after the tracks, wherever
        // it was among the output's streams. Both sides are compared in that order; `delivered` follows the plan's
        // output order (`keptInOutputOrder`).
        let keptAll = plan.keptInOutputOrder
        let order = keptAll.indices.filter { !keptAll[$0].isCoverArt } + keptAll.indices.filter { keptAll[$0].isCoverArt }
        let kept = order.map { keptAll[$0] }
        let outStreams = facts.streams.filter { !$0.isAttachedPicture } + facts.streams.filter(\.isAttachedPicture)
        let expectedKinds = kept.map { "\($0.kind.rawValue) \($0.outputCodec)\($0.isCoverArt ? " (cover art)" : "")" }
        let measuredKinds = outStreams.map { "\($0.kind.rawValue) \($0.codec)\($0.isAttachedPicture ? " (cover art)" : "")" }
        let sameKinds = expectedKinds.count == measuredKinds.count
            && zip(expectedKinds, measuredKinds).allSatisfy { sameCodec($0, $1, container: plan.container) }
        var checks = [check("streams", expectedKinds.joined(separator: ", "), measuredKinds.joined(separator: ", "), sameKinds)]

        for (j, planned) in kept.enumerated() {
            guard j < outStreams.count else { break }
            var decision = planned
            if damaged { decision.durationExact = false; decision.expectedFrames = nil }
            let src = decision.index < source.streams.count ? source.streams[decision.index] : nil
            checks += streamChecks(label: "stream #\(j) \(decision.kind.rawValue)", decision: decision, out: outStreams[j],
                                   delivered: order[j] < delivered.count ? delivered[order[j]] : nil, source: src, container: plan.container)
        }
        checks += tagChecks(wanted: tags, written: facts.tags, container: plan.container)
        checks += timecodeChecks(plan: plan, kept: kept, outStreams: outStreams, facts: facts)
        checks += metadataChecks(plan: plan, kept: kept, outStreams: outStreams, facts: facts)
        if let container = plan.container, container.isQuickTimeFamily {
            checks.append(check("faststart", "moov before mdat", facts.faststart.map { $0 ? "moov before mdat" : "moov after mdat" } ?? "not found",
                                facts.faststart == true))
        }
        return Verification(checks: checks)
    }

    /// The checks of one output stream against its decision.
    static func streamChecks(label: String, decision: StreamDecision, out: OutputFacts.Stream, delivered tally: DeliveredStream?,
                             source src: SourceStream?, container: Container? = nil) -> [Verification.Check] {
        if decision.isCoverArt {
            // One picture, no timeline: no duration, frame rate, language or display matrix to check. Its size is
            // known once read back with decoding (the header of MP4's `covr` does not say).
            guard let src else { return [] }
            return [check("\(label) cover art size", "\(src.width)x\(src.height)", out.width > 0 ? "\(out.width)x\(out.height)" : "unknown",
                          out.width > 0 ? out.width == src.width && out.height == src.height : nil)]
                + pictureMetadataCheck(label: label, decision: decision, out: out)
        }
        var checks = actionChecks(label: label, decision: decision, out: out, source: src)
        func add(_ name: String, _ expected: String, _ measured: String, _ ok: Bool?) { checks.append(check(name, expected, measured, ok)) }
        if let language = src?.language {
            // As the container stores it (`Container.language`): MOV spells French `fra` and has no Swedish at all.
            let stored = container.map { $0.language(language) } ?? language
            add("\(label) language", stored ?? "none (.\(container?.rawValue ?? "") cannot store \(language))", out.language ?? "none",
                out.language == stored)
        }
        if decision.kind == .video || decision.kind == .audio {
            checks.append(durationCheck(label: label, decision: decision, out: out, delivered: tally, source: src))
        }
        if decision.kind == .audio, let written = tally?.packets {
            // Every audio packet written is in the file (the container's sample table, or its packets).
            // (MOV counts PCM in samples, not packets: not comparable. A copy may lose an empty packet to the
            // muxer, as AC-3 from AVI into MOV does: 1 %, at least one.)
            var slack = 0
            if case .copy = decision.action { slack = max(1, written / 100) }
            add("\(label) packets", "\(written)\(slack > 0 ? " ± \(slack)" : "") (as written)", out.frameCount.map(String.init) ?? "unknown",
                out.codec.hasPrefix("pcm_") ? nil : out.frameCount.map { abs($0 - written) <= slack })
        }
        if decision.kind == .video {
            checks.append(frameCountCheck(label: label, decision: decision, out: out, delivered: tally))
            let expected = plannedMatrix(decision) ?? src?.displayMatrix
            add("\(label) display matrix", matrixText(expected), matrixText(out.displayMatrix),
                normalized(expected) == normalized(out.displayMatrix))
        }
        if decision.kind != .subtitle {
            add("\(label) timestamps", "increasing", out.timestampsIncreasing.map { $0 ? "increasing" : "not increasing" } ?? "not measured",
                out.timestampsIncreasing)
        }
        return checks
    }

    /// The checks of what the stream's action set: a transcode's size, pixel format, colour, channels and rate; a
    /// copied video's size.
    static func actionChecks(label: String, decision: StreamDecision, out: OutputFacts.Stream, source src: SourceStream?) -> [Verification.Check] {
        switch decision.action {
        case .transcodeVideo(let v):
            var checks = [check("\(label) size", "\(v.width)x\(v.height)", "\(out.width)x\(out.height)", out.width == v.width && out.height == v.height),
                          check("\(label) pixel format", v.pixelFormat, out.pixelFormat ?? "unknown",
                                out.pixelFormat.map { samePixelFormat(v.pixelFormat, $0) })]
            if let want = v.outputColor {
                // Tone-mapped output must say BT.709, kept HDR its transfer and primaries: players go by the tags.
                let expected = [want.transfer, want.primaries].map { $0 ?? "unspecified" }.joined(separator: "/")
                let measured = [out.color?.transfer, out.color?.primaries].map { $0 ?? "unspecified" }.joined(separator: "/")
                checks.append(check("\(label) colour", expected, measured, out.color.map { _ in expected == measured }))
            }
            if let matrix = v.yuvMatrix {
                // RGB converted to YUV: the matrix tag is what makes players show its colours (`gbr` on YUV is wrong).
                let measured = out.color?.matrix ?? "unspecified"
                checks.append(check("\(label) colour matrix", matrix, measured, out.color.map { _ in measured == matrix }))
            }
            return checks
        case .transcodeAudio(let a):
            return [check("\(label) channels", "\(a.channels)", "\(out.channels)", out.channels == a.channels),
                    check("\(label) sample rate", "\(a.settings.sampleRate)", "\(out.sampleRate)", out.sampleRate == a.settings.sampleRate)]
        case .copy:
            // A copied audio stream's channel count is in its bitstream, which a copy cannot change (HE-AAC v2
            // signals its stereo only in the data, so headers disagree): not checked.
            guard let src, src.kind == .video else { return [] }
            return [check("\(label) size", "\(src.width)x\(src.height)", "\(out.width)x\(out.height)", out.width == src.width && out.height == src.height)]
        case .transcodeSubtitle, .coverArt, .drop:
            return []
        }
    }

    /// The checks of a byte copy: the bytes (size, SHA-256 read back), and the same streams and duration as the source.
    package static func verifyCopy(source: SourceInfo?, sourceSize: Int64, sourceSHA256: String, outputSHA256: String,
                                  facts: OutputFacts?) -> Verification {
        var checks: [Verification.Check] = []
        func add(_ name: String, _ expected: String, _ measured: String, _ ok: Bool?) { checks.append(check(name, expected, measured, ok)) }
        let size = facts?.size ?? -1
        add("size", "\(sourceSize) bytes", "\(size) bytes", size == sourceSize)
        add("sha256", sourceSHA256, outputSHA256, sourceSHA256 == outputSHA256)
        if let source {
            // Video and audio: data streams of unknown codecs may not be listed the same way twice.
            let want = source.streams.filter { $0.kind == .video || $0.kind == .audio }.map { "\($0.kind.rawValue) \($0.codec)" }
            let got = facts?.streams.filter { $0.kind == .video || $0.kind == .audio }.map { "\($0.kind.rawValue) \($0.codec)" }
            add("streams", want.joined(separator: ", "), got?.joined(separator: ", ") ?? "not readable", got.map { $0 == want })
            add("format", source.formatName, facts?.formatName ?? "not readable", facts.map { $0.formatName == source.formatName })
            let tags = source.tags["creation_time"]
            add("creation_time", tags ?? "none", facts?.tags["creation_time"] ?? "none", tags == nil ? nil : sameInstant(tags!, facts?.tags["creation_time"]))
        } else {
            // Not media FFmpeg could open: the bytes are all there is to check.
            add("streams", "not probed (the source is not readable as media)", "not probed", nil)
            add("format", "not probed", "not probed", nil)
            add("creation_time", "not probed", "not probed", nil)
        }
        return Verification(checks: checks)
    }

    // MARK: - Parts

    /// A check whose outcome is `ok`: passed, failed, or skipped when nil (it could not be measured).
    static func check(_ name: String, _ expected: String, _ measured: String, _ ok: Bool?) -> Verification.Check {
        .init(name: name, expected: expected, measured: measured, outcome: ok.map { $0 ? .passed : .failed } ?? .skipped)
    }

    /// The same stream as planned, allowing for names a container cannot tell apart: MP4/MOV store MPEG audio
    /// layers 1-3 under one object type, read back as `mp3`.
    static func sameCodec(_ planned: String, _ measured: String, container: Container?) -> Bool {
        if planned == measured { return true }
        let mpegAudio: Set<String> = ["audio mp1", "audio mp2", "audio mp3"]
        return container?.isQuickTimeFamily == true && mpegAudio.contains(planned) && mpegAudio.contains(measured)
    }

    /// `yuvj420p` is `yuv420p` in full range (a full-range source keeps its range flag): the same layout.
    static func samePixelFormat(_ planned: String, _ measured: String) -> Bool {
        planned == measured || planned.replacingOccurrences(of: "yuv", with: "yuvj") == measured
    }

    static func plannedMatrix(_ d: StreamDecision) -> [Int32]? {
        switch d.action {
        case .transcodeVideo(let v): return v.displayMatrix
        case .copy(let m): return m
        default: return nil
        }
    }

    static func normalized(_ m: [Int32]?) -> [Int32] { (m?.count == 9 ? m! : identity) }

    static func matrixText(_ m: [Int32]?) -> String {
        let n = normalized(m)
        if n == identity { return "none" }
        // Clockwise degrees, as `probe` shows the rotation; a mirrored matrix says so.
        let a = Double(n[0]), b = Double(n[1]), c = Double(n[3]), d = Double(n[4])
        let ccw = atan2(b / max(1e-9, hypot(b, d)), a / max(1e-9, hypot(a, c))) * 180 / .pi
        let clockwise = Rotation.normalized(Int(ccw.rounded()))
        return "rotate \(clockwise)°" + (a * d - b * c < 0 ? " mirrored" : "")
    }

    /// The duration check of a stream. When the plan's duration is exact (`durationExact`: the source declares it
    /// to the frame, cut to what its packets held), the file's stream must match it within one frame of transcoded
    /// video (three of copied video: a copy keeps its B-frame reordering, which MP4 accounts in its last samples)
    /// and 4096 samples of audio (1024 for the codec's frame, the rest for encoder priming and padding, which
    /// sources declare inconsistently). Otherwise it must match what the executor wrote, with the same tolerances
    /// (the written span counts presentation times, a track header its samples' durations).
    static func durationCheck(label: String, decision: StreamDecision, out: OutputFacts.Stream, delivered: DeliveredStream?,
                              source: SourceStream?) -> Verification.Check {
        var tolerance: Double
        if decision.kind == .video {
            let rate = source?.frameRate ?? 0
            var frame = max(out.frameDuration ?? 0, rate > 0 ? 1 / rate : 1.0 / 24)
            // A frame counts at most as long as its stream is planned (1/24 s at least): a broken rate that makes one
            // frame last 46 hours (an MP4 `stts` delta of 2^31 ticks) widens nothing.
            if let planned = decision.expectedDuration { frame = min(frame, max(1.0 / 24, planned)) }
            if case .copy = decision.action { tolerance = 3 * frame } else { tolerance = frame }
        } else {
            var rate = out.sampleRate
            if case .transcodeAudio(let a) = decision.action { rate = a.settings.sampleRate }
            tolerance = 4096 / Double(max(8000, rate))
        }
        tolerance += 0.002
        func text(_ d: Double?) -> String { d.map { String(format: "%.3f s", $0) } ?? "unknown" }
        let name = "\(label) duration"
        let written = delivered?.duration
        guard let written, (delivered?.packets ?? 0) > 0 else {
            return .init(name: name, expected: "some media (nothing was written)", measured: text(out.duration), outcome: .failed)
        }
        let want: Double, what: String
        if decision.durationExact, let planned = decision.expectedDuration {
            want = planned; what = ""
        } else {
            want = written; what = " (as written; the source's durations are not exact)"
        }
        // Frames missing in holes of the written span may be left out of a length counted by decode times.
        let missing = delivered?.missing ?? 0
        // A copy cut's B-frame references shown past the end (`framesPastEnd`) make it that much longer.
        let past = want == written ? 0 : Double(decision.framesPastEnd) * (source?.frameRate.map { 1 / max($0, 1) } ?? 1.0 / 24)
        let outcome: Verification.Outcome = out.duration.map { $0 - want <= tolerance + past && want - $0 <= tolerance + missing ? .passed : .failed } ?? .skipped
        let less = missing > 0 ? String(format: " (or up to %.3f s less: frames missing)", missing) : ""
        let more = past > 0 ? String(format: " (or up to %.3f s more: frames shown past the end)", past) : ""
        return .init(name: name, expected: String(format: "%.3f s ± %.3f%@%@%@", want, tolerance, less, more, what), measured: text(out.duration),
                     outcome: outcome)
    }

    /// The video frame count: the plan's (1 %, at least one frame) when the source declares one, else what was written.
    /// Under a frame-rate cap the plan's count is a ceiling, and what was written must all be there.
    /// Frames are counted as players show them: what an edit list hides (a copy's lead-in, a source's hidden
    /// samples) is neither expected nor measured.
    static func frameCountCheck(label: String, decision: StreamDecision, out: OutputFacts.Stream, delivered: DeliveredStream?) -> Verification.Check {
        let name = "\(label) frames"
        var out = out
        out.frameCount = out.shownFrames ?? out.frameCount
        let measured = out.frameCount.map(String.init) ?? "unknown"
        if let want = decision.expectedFrames {
            let slack = decision.framesEstimated ? max(2, Int((Double(want) * 0.03).rounded(.up))) : max(1, Int((Double(want) * 0.01).rounded(.up)))
            if case .transcodeVideo(let v) = decision.action, v.frameRateCap != nil, let written = delivered.map({ $0.shown ?? $0.packets }) {
                // Frames left out by the frame-rate cap: the plan's count takes the source's frames as evenly spaced,
                // and a source slower than the cap in places (a phone's variable rate) keeps fewer. So: no more than
                // the cap allows, and every frame written is in the file.
                return check(name, "\(written) (as written), at most \(want + slack)", measured,
                             out.frameCount.map { $0 <= want + slack && $0 == written && written > 0 })
            }
            // A copy cut may also show its B-frame references past the end (`framesPastEnd`).
            let past = decision.framesPastEnd
            return check(name, "\(want) ± \(slack)\(past > 0 ? " (or up to \(past) more past the end)" : "")", measured,
                         out.frameCount.map { $0 - want <= slack + past && want - $0 <= slack })
        }
        guard let written = delivered.map({ $0.shown ?? $0.packets }) else {
            return check(name, "unknown", measured, nil)
        }
        return check(name, "\(written) (as written)", measured, written == 0 ? false : out.frameCount.map { $0 == written })
    }
}
