import Foundation

/// What one route of an export does with every input stream, decided before any decoding: transcode, copy or drop,
/// on which stretch of the source's timeline, and whether the route can run at all.
package struct ExportPlan: Sendable, Equatable {
    /// The route planned.
    package var route: ExportRoute
    /// The output container; nil for the byte copy (it keeps the source's own).
    package var container: Container?
    /// One decision per source stream, in index order.
    package var streams: [StreamDecision]
    /// The part of the source to read.
    package var timeline: PlannedTimeline
    /// Things the user should know (e.g. a stream copy starts at an earlier keyframe).
    package var notes: [String]
    /// nil when the route can run; otherwise why it cannot (the fallback chain skips it with this reason; the
    /// session throws `noUsableStreams` only when the last route of its chain is impossible).
    package var impossible: String?
    /// Set with `impossible` when what was asked cannot be delivered from a healthy input (`ExportPlanner.refusal`):
    /// the session refuses the export before any work instead of falling back.
    package var refusal: String?
    /// What the route cannot deliver that makes it impossible (`PlanBlocker`): a main stream without a decoder, a
    /// container that cannot hold one, a kind of stream lost whole. Kept apart from `impossible` so that the session
    /// can tell a skipped route from an input with nothing to export.
    package var blockers: [PlanBlocker]
    /// The audio stream the output marks as its default, when a track selection chose among them (the first kept).
    package var defaultAudio: Int?
    /// The kept streams' input indices in the order the output holds them; nil: the input's order. An
    /// `--audio-language` list puts the audio streams in its own order (the other streams keep their places).
    package var outputOrder: [Int]?
    /// What happens to the source's timecode (nil: it has none): kept on the main video (a timecode track, a tag),
    /// moved by a trim, or dropped with its reason.
    package var timecode: TimecodePlan?
    /// The metadata level and the keys it drops (`MetadataLevel`): the stream tags planned here, the container's
    /// filled in with the output's tags (`OutputTags.forOutput`).
    package var metadata = MetadataPlan()
    /// The output's chapters: the source's placed on the output's timeline (`Chapters.forOutput`), their tags as the
    /// metadata level keeps them (`MetadataPlan.outputChapters`).
    package var chapters: [OutputChapter] = []

    /// True when an audio or video stream is copied: its packets go to the muxer with the times they came with,
    /// so each needs a PTS (`Demuxer.generatesPresentationTimes`).
    package var copiesTimedStream: Bool {
        keptInOutputOrder.contains { d in
            if case .copy = d.action { return d.kind == .audio || d.kind == .video }
            return false
        }
    }

    /// The kept streams, in the order the output holds them.
    package var keptInOutputOrder: [StreamDecision] {
        guard let order = outputOrder else { return streams.filter(\.isKept) }
        return order.compactMap { index in streams.first { $0.index == index && $0.isKept } }
    }

    /// Creates a plan.
    package init(route: ExportRoute, container: Container?, streams: [StreamDecision], timeline: PlannedTimeline,
                notes: [String] = [], impossible: String? = nil, blockers: [PlanBlocker] = []) {
        self.route = route; self.container = container; self.streams = streams; self.timeline = timeline
        self.notes = notes; self.impossible = impossible; self.blockers = blockers
    }

    /// True when the route can run.
    package var isPossible: Bool { impossible == nil }

    /// This plan with every stream that `keep` refuses dropped for `reason`, and no default audio: what a first
    /// pass (the video alone) and a sample encode (one stream) run.
    package func keeping(only keep: (StreamDecision) -> Bool, reason: String) -> ExportPlan {
        var plan = self
        for i in plan.streams.indices where !keep(plan.streams[i]) { plan.streams[i].action = .drop(reason: reason) }
        plan.defaultAudio = nil
        return plan
    }

    /// Where in `streams` the main video encoded by CRF is (the first video transcode without an average bit rate):
    /// what sample encodes measure and a quality search tunes; nil when there is none.
    package var crfVideo: Int? {
        streams.firstIndex { if case .transcodeVideo(let v) = $0.action { return v.settings.bitrate == nil }; return false }
    }

    /// This plan with its main video (`crfVideo`) encoded at `crf` instead: a quality search's probe, and the CRF it
    /// chose.
    package func withVideoCRF(_ crf: Int) -> ExportPlan {
        var plan = self
        guard let k = crfVideo, case .transcodeVideo(var video) = streams[k].action else { return plan }
        video.settings.crf = crf
        plan.streams[k].action = .transcodeVideo(video)
        return plan
    }

    /// This plan with its main audio (the input's stream `stream`, when transcoded) brought to a loudness target: a
    /// gain replaces the edit's volume (the target is the loudness the output has, whatever the volume). Unchanged
    /// when that stream is not transcoded.
    package func withLoudness(_ normalisation: LoudnessNormalisation, stream: Int) -> ExportPlan {
        var plan = self
        guard let k = streams.firstIndex(where: { $0.index == stream }), case .transcodeAudio(var audio) = streams[k].action else { return plan }
        audio.loudness = normalisation
        audio.gain = normalisation.method == .gain ? normalisation.linearGain : 1
        plan.streams[k].action = .transcodeAudio(audio)
        return plan
    }

    /// The `StreamPlan` records of the `started` event. Empty for the byte copy: it copies bytes, not streams.
    package var streamPlans: [StreamPlan] {
        route == .copy ? [] : streams.map(\.streamPlan)
    }
}

/// The stretch of the source an export reads.
package struct PlannedTimeline: Sendable, Equatable {
    /// Where the output's time 0 is, in seconds on the source's clock (`startTime` + the start; a stream copy into a
    /// container without edit lists: the keyframe at or before it).
    package var origin: Double
    /// Seconds to export from `origin`; nil: to the end.
    package var length: Double?
    /// Seconds of media the output should hold (progress, and the truncation check), if known.
    package var expectedDuration: Double?
    /// Slow motion (a transcode only): output times are the source's stretched by it; `origin` and `length` stay on
    /// the source's clock (what is read), `expectedDuration` is the output's.
    package var slowMotion: SlowMotion?
    /// The source's `startTime`: `origin` minus it is where the output starts on the original's timeline.
    package var sourceStart: Double = 0
    /// Seconds of a stream copy's lead-in: the video from the keyframe before the cut to the cut, copied so that
    /// it decodes and hidden by the output's edit list (its packets get negative timestamps). 0: none — a
    /// transcode, a copy that starts at a keyframe, or a container without edit lists (it starts at the keyframe).
    package var leadIn: Double = 0

    /// Creates a timeline.
    package init(origin: Double, length: Double? = nil, expectedDuration: Double? = nil) {
        self.origin = origin; self.length = length; self.expectedDuration = expectedDuration
    }

    /// Output seconds for `seconds` of the source read from `origin` (the same, without slow motion).
    package func outputSeconds(_ seconds: Double) -> Double {
        guard let slow = slowMotion else { return seconds }
        let o = origin - sourceStart
        return slow.outputTime(o + seconds) - slow.outputTime(o)
    }

    /// Where `seconds` of the output come from, on the source's clock (the inverse of `outputSeconds`, plus
    /// `origin`): the source's picture shown there is the last one at or before it.
    package func sourceTime(atOutput seconds: Double) -> Double {
        guard let slow = slowMotion else { return origin + seconds }
        return sourceStart + originalTime(atOutput: seconds, slow)
    }

    /// The playback rate at `seconds` of the output (1 without slow motion).
    package func rate(atOutput seconds: Double) -> Double {
        guard let slow = slowMotion else { return 1 }
        return slow.rate(at: originalTime(atOutput: seconds, slow))
    }

    /// Where `seconds` of the output come from on the original's timeline (seconds from its start) under `slow`.
    private func originalTime(atOutput seconds: Double, _ slow: SlowMotion) -> Double {
        slow.originalTime(slow.outputTime(origin - sourceStart) + seconds)
    }
}

/// What happens to one input stream.
package struct StreamDecision: Sendable, Equatable {
    /// Index of the stream in the input.
    package var index: Int
    /// The stream's media type.
    package var kind: SourceStream.Kind
    /// The input codec name.
    package var codec: String
    /// Transcode, copy or drop.
    package var action: Action
    /// How a kept stream is handled, when worth saying (e.g. "rotation/flip applied losslessly to the display
    /// matrix"). A drop's reason is in the action.
    package var note: String?
    /// The output picture size (coded) of a kept video stream: the encoder's for a transcode, the source's for a copy.
    package var width: Int?
    /// See `width`.
    package var height: Int?
    /// Seconds of this stream the output should hold: its own duration, cut to the timeline (nil: unknown).
    /// Each kept stream is checked against its own, never against a longer stream the preset drops.
    package var expectedDuration: Double?
    /// True when `expectedDuration` can be trusted to a frame (the stream's own declared duration, not one
    /// estimated from the bit rate, or the requested length of a trim).
    package var durationExact: Bool = false
    /// Video frames expected (the source's count, scaled to the timeline), when the source declares one; for a
    /// range of a stream of constant frame rate that declares none (MPEG-PS/TS), the range's length at that rate.
    package var expectedFrames: Int?
    /// True when `expectedFrames` is the range's length at the frame rate, not a count the source declares: the
    /// verifier allows it a little more (3 %, at least two frames).
    package var framesEstimated: Bool = false
    /// Frames shown after the timeline's end that a copied video may hold: a stream copy that ends inside the stream
    /// keeps the frames decoded before the last ones shown before the end (their B-frame references, shown after
    /// it), at most the source's reorder depth (`SourceStream.reorderDepth`); players show them, as they show
    /// `ffmpeg -ss 1 -i in -t 2 -c copy`'s. 0: the output ends at the end.
    package var framesPastEnd = 0
    /// Where a transcoded audio stream stops, seconds of output, besides the timeline's end: its own declared end
    /// (decoders emit an encoder's end padding that the source's edit list hides). nil: at the timeline's end.
    package var stopsAt: Double?
    /// Seconds of the source's hidden lead-in a copy shows (`ExportPlanner.showLeadIn`), included in `expectedDuration`.
    package var shownLeadIn: Double = 0
    /// What a transcode changes that a person would notice (downmix, resampling, …), decided by the planner.
    package var changes: [StreamChange] = []
    /// A dropped chapter or timecode track: what it holds is carried otherwise (the chapters, the planned
    /// timecode), so its drop is no loss to warn of.
    package var carriedElsewhere = false
    /// A drop the request asked for: a preset or container without this kind of stream (`m4a`'s video),
    /// `--subtitles drop`, `--audio-language`, an edit's mute. The plan says it; it is no loss to warn of.
    package var asked = false

    /// Creates a decision.
    package init(index: Int, kind: SourceStream.Kind, codec: String, action: Action, note: String? = nil, width: Int? = nil, height: Int? = nil) {
        self.index = index; self.kind = kind; self.codec = codec; self.action = action; self.note = note
        self.width = width; self.height = height
    }

    /// The stream's fate.
    package enum Action: Sendable, Equatable {
        /// Decode, scale/crop and encode with the preset's video settings.
        case transcodeVideo(VideoPlan)
        /// Decode, resample and encode with the preset's audio settings.
        case transcodeAudio(AudioPlan)
        /// Decode a text subtitle and encode it with the named subtitle encoder (`mov_text` for MP4/MOV/M4V), its
        /// cues moved onto the output's timeline.
        case transcodeSubtitle(codec: String)
        /// Copy the packets; `displayMatrix` replaces the source's (nil copies the source's).
        case copy(displayMatrix: [Int32]?)
        /// Copy cover art's one picture as the output's cover art (see `CoverArt`): MP4/M4V/M4A's `covr`, a Matroska
        /// attachment — never a video track. It has no timeline: no range or trim cuts it. `stripsMetadata`: without
        /// its EXIF, XMP, IPTC and text (`PictureMetadata.strip`), the pixels unchanged.
        case coverArt(stripsMetadata: Bool)
        /// Leave the stream out, and why.
        case drop(reason: String)
    }

    /// True unless the stream is dropped.
    package var isKept: Bool {
        if case .drop = action { return false }
        return true
    }

    /// True when the stream's audio is decoded and encoded again.
    package var isTranscodedAudio: Bool {
        if case .transcodeAudio = action { return true }
        return false
    }

    /// True when the stream is kept as cover art.
    package var isCoverArt: Bool {
        if case .coverArt = action { return true }
        return false
    }

    /// The codec the output stream has: the encoder's for a transcode, the source's otherwise.
    package var outputCodec: String {
        switch action {
        case .transcodeVideo(let v): return v.settings.codec.rawValue
        case .transcodeAudio(let a): return a.settings.codec.rawValue
        case .transcodeSubtitle(let codec): return codec
        case .copy, .coverArt, .drop: return codec
        }
    }

    /// The `started` event's record for this stream.
    package var streamPlan: StreamPlan {
        var plan = StreamPlan(index: index, type: kind.rawValue, codec: codec, action: .drop)
        switch action {
        case .transcodeVideo, .transcodeAudio, .transcodeSubtitle: plan.action = .transcode; plan.outputCodec = outputCodec
        case .copy, .coverArt: plan.action = .copy; plan.outputCodec = outputCodec
        case .drop(let reason): plan.reason = reason
        }
        plan.width = width; plan.height = height
        if let note { plan.reason = note }
        if isKept && !changes.isEmpty { plan.changes = changes }
        return plan
    }
}

/// How the main video is transcoded.
package struct VideoPlan: Sendable, Equatable {
    /// Output width, coded pixels (even).
    package var width: Int
    /// Output height, coded pixels (even).
    package var height: Int
    /// The preset's encoder settings.
    package var settings: VideoSettings
    /// Crop in coded pixels, applied before scaling; nil keeps the whole picture.
    package var crop: PixelRect?
    /// The display matrix to write; nil copies the source's.
    package var displayMatrix: [Int32]?
    /// The encoder's pixel format: the preset's, raised to 10 bits when an HDR or 10-bit source is kept so.
    package var pixelFormat: String
    /// Whether and how the pictures are deinterlaced.
    package var deinterlace: Deinterlace = .off
    /// HDR → SDR conversion, when the source is HDR and the preset tone-maps.
    package var toneMap: ToneMapping?
    /// What the source's pictures are, as the probe read them (the filter graph's input colour).
    package var sourceColor: VideoColor?
    /// How full a `maxBitrate` cap's VBV buffer starts (0…1; nil: the encoder's 90 %). See `ExportPlanner.fillVBV`.
    package var vbvInitialFill: Double?
    /// The colour the output is tagged with (primaries, transfer, matrix, range) and the HDR10 metadata it carries;
    /// nil copies the source's tags.
    package var outputColor: VideoColor?
    /// Frames left out evenly to keep the output at most `video.maxFrameRate` (nil: every frame is kept).
    package var frameRateCap: FrameRateCap?
    /// The matrix an RGB source's pictures are converted to YUV with (`bt709`), said in the output's tags too; nil:
    /// the source is YUV already and keeps its own matrix.
    package var yuvMatrix: String?
    /// The display matrix turned into the pixels (after crop and scale), for a container that keeps none; nil: the
    /// pixels keep their coded orientation. With it `displayMatrix` is the identity and `width`/`height` are upright.
    package var pixelOrientation: PixelOrientation?

    /// The size the picture is scaled to before `pixelOrientation` turns it (`width`x`height` with the sides
    /// swapped back for a quarter turn).
    package var scaledSize: PixelSize {
        pixelOrientation?.swapsSides == true ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
    }

    /// Creates a video plan.
    package init(width: Int, height: Int, settings: VideoSettings, crop: PixelRect? = nil, displayMatrix: [Int32]? = nil,
                pixelFormat: String? = nil) {
        self.width = width; self.height = height; self.settings = settings; self.crop = crop; self.displayMatrix = displayMatrix
        self.pixelFormat = pixelFormat ?? settings.pixelFormat
    }
}

/// Whether a transcode deinterlaces.
package enum Deinterlace: Sendable, Equatable {
    /// Frames are encoded as they are decoded.
    case off
    /// The stream says it is interlaced in this order: every frame is deinterlaced (`bwdif`, one frame per frame).
    case fields(FieldOrder)
    /// The stream does not say: frames the decoder flags as interlaced are deinterlaced, the others pass.
    case flaggedFrames
}

/// An HDR → SDR conversion: linearise, BT.2020 → BT.709, tone-map, BT.709 limited range.
package struct ToneMapping: Sendable, Equatable {
    /// The source's transfer (`hlg` or `pq`).
    package var source: HDRKind
    /// The curve.
    package var curve: ToneMapCurve
    /// The signal peak relative to 100 nits (`SignalPeak`).
    package var peak: Double

    /// Creates a conversion.
    package init(source: HDRKind, curve: ToneMapCurve, peak: Double) { self.source = source; self.curve = curve; self.peak = peak }
}

/// How an audio stream is transcoded.
package struct AudioPlan: Sendable, Equatable {
    /// Output channels: the source's, at most the preset's (more are downmixed).
    package var channels: Int
    /// The preset's encoder settings.
    package var settings: AudioSettings
    /// Linear gain from the sidecar's `volume` (1: unchanged).
    package var gain: Double
    /// The main audio brought to a loudness target (`LoudnessNormalisation`); nil: its level is left as it is.
    package var loudness: LoudnessNormalisation?

    /// Creates an audio plan.
    package init(channels: Int, settings: AudioSettings, gain: Double = 1) {
        self.channels = channels; self.settings = settings; self.gain = gain
    }
}
