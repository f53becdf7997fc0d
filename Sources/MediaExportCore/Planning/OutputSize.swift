import Foundation

/// How big an output will be (the `started` record's `estimatedBytes`, `batch --dry-run`), and which bit rates
/// make it fit a size limit (`--max-size`, a preset's `maxFileSize`). Pure: the FFmpeg layer measures a CRF
/// encode's rate on samples of the source (`SampleEncode`) and hands it in.
public enum OutputSize {
    /// How an estimate was made (the `started` record's `estimateMethod`).
    public enum EstimateMethod: String, Codable, Sendable, CaseIterable {
        /// A CRF video's rate measured on sample encodes of the source.
        case samples
        /// Every stream at a rate the plan fixes (average, cap) or the source's (copied).
        case rates
        /// A CRF video at a bits-per-pixel guess from the CRF: can be off by 2× or more (noise, still scenes).
        case guess
        /// A byte copy: the source's size.
        case source
    }

    /// x264's and x265's default keyframe interval: the frames a long encode spends on keyframes.
    static let keyframeInterval = 250.0

    /// The video bit rate (bits/s) a full encode will have, from a sample encode: `frames` packets of `bytes`, of
    /// which `keyframes` (each sample starts with one) weigh `keyframeBytes`. A full encode has a keyframe every
    /// `keyframeInterval` frames, so the samples' keyframes are weighed at that share, not theirs.
    package static func videoBitrate(sampleFrames frames: Int, bytes: Int64, keyframes: Int, keyframeBytes: Int64,
                                    frameRate: Double, duration: Double) -> Double? {
        guard frames > 0, bytes > 0, frameRate > 0, duration > 0 else { return nil }
        let total = max(1, frameRate * duration)
        let keyShare = min(1, max(1, (total / keyframeInterval).rounded(.up)) / total)
        let perFrame: Double
        if frames > keyframes, keyframes > 0 {
            let key = Double(keyframeBytes) / Double(keyframes)
            let other = Double(bytes - keyframeBytes) / Double(frames - keyframes)
            perFrame = keyShare * key + (1 - keyShare) * other
        } else {
            perFrame = Double(bytes) / Double(frames)
        }
        return perFrame * 8 * frameRate
    }

    /// What the muxer adds: headers and the sample tables (about 20 bytes a video frame, 10 an audio frame).
    static func overheadBytes(duration: Double, frameRate: Double?, audioStreams: Int) -> Double {
        1500 + duration * ((frameRate ?? 30) * 20 + Double(audioStreams) * 47 * 10)
    }

    /// What sample encodes measured (`SampleEncode.rates`): the main video's bit rate, and each transcoded audio
    /// stream's by source stream index (silence or a quiet track encodes far under its nominal rate).
    package struct Measured: Sendable, Equatable {
        /// Bits a second of the main video.
        package var video: Double
        /// Bits a second of each transcoded audio stream measured.
        package var audio: [Int: Double]
        package init(video: Double, audio: [Int: Double] = [:]) { self.video = video; self.audio = audio }

        /// A VBV cap holds the full encode under it (the samples' start may overshoot while the buffer fills).
        package func capped(by video: VideoPlan) -> Measured {
            var m = self
            if let cap = video.settings.maxBitrate { m.video = min(m.video, Double(cap)) }
            return m
        }
    }

    /// The estimated size of `plan`'s output in bytes: transcoded streams at their bit rates (the main video and the
    /// audio at the rates a sample encode `measured`, else the video at its average or cap, else a bits-per-pixel guess
    /// from the CRF, and the audio at its nominal rate), copied streams at the source's rates. nil without a duration.
    package static func estimatedBytes(plan: ExportPlan, source: SourceInfo, measured: Measured?) -> Int64? {
        if plan.route == .copy { return source.size }
        guard let duration = plan.timeline.expectedDuration ?? source.duration, duration > 0 else { return nil }
        var bits = 0.0
        var audioStreams = 0
        var frameRate: Double?
        for decision in plan.streams {
            let stream = decision.index < source.streams.count ? source.streams[decision.index] : nil
            let seconds = decision.expectedDuration ?? duration
            switch decision.action {
            case .transcodeVideo(let v):
                frameRate = Self.outputRate(v, source: stream)
                bits += (measured?.video ?? configuredVideoRate(v, frameRate: frameRate).bitsPerSecond) * seconds
            case .transcodeAudio(let a):
                audioStreams += 1
                bits += (measured?.audio[decision.index] ?? Double(a.settings.bitrate)) * seconds
            case .transcodeSubtitle:
                bits += 800 * seconds
            case .copy:
                if decision.kind == .audio { audioStreams += 1 }
                if decision.kind == .video, !(stream?.isAttachedPicture ?? false) { frameRate = stream?.frameRate }
                if let rate = stream?.bitRate, rate > 0 {
                    bits += Double(rate) * seconds
                } else if let whole = source.duration, whole > 0 {
                    // Unknown rate: the file's average, shared among its streams.
                    bits += Double(source.size) * 8 / whole / Double(max(1, source.streams.count)) * seconds
                }
            case .drop, .coverArt:
                // A cover's bytes are not in the probe (one picture: tens of kB, counted by the size check when done).
                break
            }
        }
        // Durations and rates are the file's: their product may pass Int64.
        return Int64(saturating: bits / 8 + overheadBytes(duration: duration, frameRate: frameRate, audioStreams: audioStreams))
    }

    /// The output's frames a second: the source's, at most a frame-rate cap's.
    static func outputRate(_ v: VideoPlan, source: SourceStream?) -> Double? {
        guard let cap = v.frameRateCap?.maxFrameRate else { return source?.frameRate }
        return min(source?.frameRate ?? cap, cap)
    }

    /// The video bit rate a preset asks for without measuring, and how it is known: its average (`rates`), else its
    /// cap when that binds below the guess (`rates`: an upper bound a VBV encode stays under), else a guess from the
    /// CRF (`guess`: bits per pixel, as the batch has guessed so far).
    static func configuredVideoRate(_ v: VideoPlan, frameRate: Double?) -> (bitsPerSecond: Double, method: EstimateMethod) {
        if let b = v.settings.bitrate { return (Double(b), .rates) }
        let guess = guessedVideoBitrate(v, frameRate: frameRate)
        if let cap = v.settings.maxBitrate, Double(cap) <= guess { return (Double(cap), .rates) }
        return (guess, .guess)
    }

    /// A CRF video's bit rate guessed from its picture size and frame rate (`EncoderProfile.guessedBitsPerPixel`; 30
    /// fps unknown).
    static func guessedVideoBitrate(_ v: VideoPlan, frameRate: Double?) -> Double {
        v.settings.codec.profile.guessedBitsPerPixel(crf: v.settings.crf) * Double(v.width * v.height) * (frameRate ?? 30)
    }

    /// How `estimatedBytes(plan:source:measured:)` will have made its figure for `plan` (nil when it gives none).
    package static func estimateMethod(plan: ExportPlan, source: SourceInfo, measured: Measured?) -> EstimateMethod? {
        if plan.route == .copy { return .source }
        guard (plan.timeline.expectedDuration ?? source.duration ?? 0) > 0 else { return nil }
        for decision in plan.streams {
            guard case .transcodeVideo(let v) = decision.action else { continue }
            if measured != nil { return .samples }
            let stream = decision.index < source.streams.count ? source.streams[decision.index] : nil
            return configuredVideoRate(v, frameRate: outputRate(v, source: stream)).method
        }
        return .rates
    }

    /// What the muxer has been given of one output stream: its packets' bytes, and the output time they cover.
    package struct WrittenStream: Sendable, Equatable {
        /// Bytes of the packets written.
        package var bytes: Int64
        /// Seconds of output time from the first packet's start to the furthest end (0 before any packet).
        package var covered: Double
        /// Bytes of the first packet (a video's first keyframe: on a still, most of the file).
        package var firstBytes: Int64 = 0
        package init(bytes: Int64, covered: Double) { self.bytes = bytes; self.covered = covered }
    }

    /// The output's final size projected from the packets written so far (`written`, in the output's stream order:
    /// `ExportPlan.keptInOutputOrder`), once `fraction` (0…1) of it is done: each video and audio stream at the rate
    /// of its own packets — bytes over the output time they cover, times its expected duration —, the other
    /// streams as written, plus the muxer's tables. Bytes on disk against the input's progress run low the whole way
    /// (the encoder's lookahead holds the latest frames, the muxer interleaves); the encoded packets do not. nil
    /// before a tenth, or while a video or audio stream has covered less than a twentieth of its length (its first
    /// keyframe would weigh too much).
    package static func projectedBytes(plan: ExportPlan, source: SourceInfo, written: [WrittenStream], fraction: Double) -> Int64? {
        guard fraction >= 0.1, let duration = plan.timeline.expectedDuration ?? source.duration, duration > 0 else { return nil }
        var bytes = 0.0, audioStreams = 0
        var frameRate: Double?
        for (j, decision) in plan.keptInOutputOrder.enumerated() {
            let done = j < written.count ? written[j] : WrittenStream(bytes: 0, covered: 0)
            let stream = decision.index < source.streams.count ? source.streams[decision.index] : nil
            let timed = (decision.kind == .video && !(stream?.isAttachedPicture ?? false)) || decision.kind == .audio
            guard timed else { bytes += Double(done.bytes); continue }
            if decision.kind == .audio { audioStreams += 1 } else if frameRate == nil {
                if case .transcodeVideo(let v) = decision.action { frameRate = outputRate(v, source: stream) } else { frameRate = stream?.frameRate }
            }
            let length = decision.expectedDuration ?? duration
            guard done.covered >= 0.05 * length, done.covered > 0 else { return nil }
            // A video's first keyframe is counted once, not for every stretch of its length: on a still or a screen of
            // text it is most of the file (projected 3-4x at a fifth done when it was).
            let first = decision.kind == .video ? Double(done.firstBytes) : 0
            bytes += first + (Double(done.bytes) - first) * max(1, length / done.covered)
        }
        return Int64(saturating: (bytes + overheadBytes(duration: duration, frameRate: frameRate, audioStreams: audioStreams)).rounded())
    }

    /// The bit rates chosen to fit a limit.
    package struct Budget: Sendable, Equatable {
        /// The main video's average bit rate (bits/s), encoded in two passes; nil without a video transcode.
        package var videoBitrate: Int?
        /// Every transcoded audio stream's bit rate (bits/s).
        package var audioBitrate: Int?
        /// What the plan's note says.
        package var note: String
    }

    /// The least video bit rate worth delivering (below it a picture is mush: the export fails instead).
    package static let minimumVideoBitrate = 20_000
    /// The least AAC bit rate per stream.
    package static let minimumAudioBitrate = 16_000

    /// Chooses bit rates so that `plan`'s output fits `limit` bytes: audio keeps the preset's rate unless it would
    /// take more than a third of the room (then a third, at least `minimumAudioBitrate`), copied streams keep theirs,
    /// the video gets the rest (3 % kept back for the encoder's aim and the muxer), at most `ceiling` (what the
    /// preset would have spent: no point in inflating a short clip to the limit). `scale` < 1 aims lower (a retry).
    /// Throws a reason (a String) when the limit cannot be met.
    package static func budget(limit: Int64, plan: ExportPlan, source: SourceInfo, ceiling: Double?, scale: Double = 1) -> Result<Budget, SizeRefusal> {
        guard let duration = plan.timeline.expectedDuration ?? source.duration, duration > 0 else {
            return .failure(SizeRefusal(reason: "the source's duration is unknown: no bit rate can be chosen to fit"))
        }
        var fixedBits = 0.0, audioStreams = 0, transcodedAudio = 0, audioRate = 0, frameRate: Double?
        var hasVideo = false, passes = "two passes"
        for decision in plan.streams {
            let stream = decision.index < source.streams.count ? source.streams[decision.index] : nil
            let seconds = decision.expectedDuration ?? duration
            switch decision.action {
            case .transcodeVideo(let v):
                hasVideo = true; frameRate = Self.outputRate(v, source: stream)
                if case let p = v.settings.codec.profile, !p.twoPass { passes = "one pass (FFmpeg 5.1's \(p.encoder) has no two-pass)" }
            case .transcodeAudio(let a): audioStreams += 1; transcodedAudio += 1; audioRate = a.settings.bitrate
            case .transcodeSubtitle: fixedBits += 800 * seconds
            case .copy:
                if decision.kind == .audio { audioStreams += 1 }
                fixedBits += Double(stream?.bitRate ?? 0) * seconds
            case .drop, .coverArt: break  // a cover: see `estimatedBytes`
            }
        }
        let overhead = overheadBytes(duration: duration, frameRate: frameRate, audioStreams: audioStreams)
        let room = (Double(limit) * 0.97 * scale - overhead) * 8 - fixedBits
        let limitText = "\(limit) bytes"
        guard room > 0 else {
            return .failure(SizeRefusal(reason: fixedBits > 0 ? "the streams copied as they are already take more than \(limitText)"
                                        : String(format: "%.1f s of output needs about %d bytes for the container alone", duration, Int(saturating: overhead))))
        }
        var chosenAudio: Int?
        if transcodedAudio > 0 {
            let share = hasVideo ? room / 3 : room
            let perStream = Int(saturating: share / duration / Double(transcodedAudio))  // a file may say 1e-12 s
            let rate = min(audioRate, perStream)
            guard rate >= minimumAudioBitrate else {
                return .failure(SizeRefusal(reason: String(format: "%.1f s of audio cannot fit in %@ (%d kb/s a track is the least)", duration, limitText, minimumAudioBitrate / 1000)))
            }
            chosenAudio = rate
        }
        var note: String
        var chosenVideo: Int?
        if hasVideo {
            let videoBits = room - Double(chosenAudio ?? 0) * Double(transcodedAudio) * duration
            var rate = videoBits / duration
            if let ceiling, ceiling > 0 { rate = min(rate, ceiling) }
            guard rate >= Double(minimumVideoBitrate) else {
                return .failure(SizeRefusal(reason: String(format: "%.1f s of video would get %d kb/s (at least %d kb/s is needed)", duration, Int(max(0, rate)) / 1000, minimumVideoBitrate / 1000)))  // rate < the minimum here
            }
            chosenVideo = Int(saturating: rate)
            note = "size limit \(limitText): video at \(Int(saturating: rate) / 1000) kb/s average, \(passes)"
        } else {
            note = "size limit \(limitText)"
        }
        if let a = chosenAudio, a < audioRate { note += ", audio at \(a / 1000) kb/s" }
        return .success(Budget(videoBitrate: chosenVideo, audioBitrate: chosenAudio, note: note))
    }

    /// Why a size limit cannot be met.
    package struct SizeRefusal: Error, Sendable, Equatable {
        /// One clause, e.g. `10.0 s of video would get 12 kb/s (at least 20 kb/s is needed)`.
        package var reason: String
    }

    /// The preset with the budget applied: the video's average rate in two passes instead of its CRF, the audio's rate.
    package static func apply(_ budget: Budget, to preset: Preset) -> Preset {
        var p = preset
        if let v = budget.videoBitrate, var video = p.video {
            video.bitrate = v
            video.twoPass = video.codec.profile.twoPass
            if let cap = video.maxBitrate, cap < v { video.bitrate = cap }
            p.video = video
        }
        if let a = budget.audioBitrate, var audio = p.audio {
            audio.bitrate = min(audio.bitrate, a)
            p.audio = audio
        }
        return p
    }
}
