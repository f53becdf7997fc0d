/// The decision for each stream of one route's plan (`ExportPlanner.plan`). A main stream the route cannot deliver
/// adds a blocker (`PlanBlocker`), which makes the route impossible.
struct StreamDecider {
    let source: SourceInfo
    let preset: Preset
    let mode: ExportPlanner.Mode
    let container: Container
    let edits: EditSidecar?
    let tracks: TrackSelection
    /// Why the route cannot run, gathered stream by stream.
    var blockers: [PlanBlocker] = []
    /// A stream was dropped for the input's own fault (no decoder, a size or rate the probe could not read): an
    /// impossible route is then the input's, which the fallback chain may work around. Otherwise an impossible route
    /// is the request's (a container that cannot carry what the preset keeps), refused before any work.
    var inputFault = false

    private var ext: String { ".\(container.rawValue)" }

    /// The decision for one stream.
    mutating func decide(_ s: SourceStream) -> StreamDecision {
        let d = StreamDecision(index: s.index, kind: s.kind, codec: s.codec, action: .drop(reason: ""))
        if s.isChapterTrack || s.isTimecodeTrack {
            var carried = d.dropped(s.isChapterTrack ? ExportPlanner.chapterTrackReason : ExportPlanner.timecodeTrackReason)
            carried.carriedElsewhere = true
            return carried
        }
        if s.isAttachedPicture { return coverArt(s, d) }
        if edits?.mute == true && s.kind == .audio { return d.dropped("muted by the edit sidecar", asked: true) }
        if s.kind == .audio && !tracks.wants(language: s.language) {
            return d.dropped("language \(s.language ?? "und") is not in --audio-language \((tracks.audioLanguages ?? []).joined(separator: ","))",
                             asked: true)
        }
        if s.kind == .subtitle && !tracks.keepSubtitles { return d.dropped("--subtitles drop", asked: true) }
        if let why = PrivateStream.of(s, level: preset.metadataLevel) { return d.dropped(why.description) }
        if mode.streamCopy { return streamCopy(s, d) }
        switch s.kind {
        case .video: return video(s, d)
        case .audio: return audio(s, d)
        case .subtitle: return subtitle(s, d)
        case .data, .attachment: return d.dropped("\(s.kind.rawValue) streams are not exported")
        }
    }

    /// A stream to transcode without a decoder is dropped; a main one blocks the transcode instead (see `plan`).
    private mutating func undecodable(_ s: SourceStream, _ d: StreamDecision) -> StreamDecision {
        inputFault = true
        if s.index == source.mainVideo || s.index == source.mainAudio {
            blockers.append(.noDecoder(stream: s.index, kind: s.kind, codec: s.codec))
        }
        return d.dropped("no decoder for \(s.codec)")
    }

    /// Kept as cover art wherever FFmpeg writes it as such, by every route and preset (an audio-only one too:
    /// MP4's cover is no track); the picture is copied, never decoded, and stripped of its metadata as the level says
    /// (`CoverArt.treatment`).
    private func coverArt(_ s: SourceStream, _ d: StreamDecision) -> StreamDecision {
        let level = preset.metadataLevel
        let keys = OutputTags.needsQuickTimeKeys(OutputTags.forOutput(resource: source.tags, original: nil, level: level).tags)
        if let reason = CoverArt.dropReason(codec: s.codec, container: container, quickTimeKeys: keys) { return d.dropped(reason) }
        var d = d
        switch CoverArt.treatment(s.picture, level: level) {
        case .asIs: d.action = .coverArt(stripsMetadata: false)
        case .drop(let fault): return d.dropped(CoverArt.stripReason(fault, level: level))
        case .strip(let removed):
            d.action = .coverArt(stripsMetadata: true)
            if !removed.isEmpty { d.changes = [StreamChange(kind: .pictureMetadata, from: PictureMetadata.describe(removed), to: "none")] }
        }
        d.width = s.width > 0 ? s.width : nil; d.height = s.height > 0 ? s.height : nil
        d.note = CoverArt.note(container: container)
        return d
    }

    private mutating func streamCopy(_ s: SourceStream, _ d: StreamDecision) -> StreamDecision {
        let isMain = s.index == source.mainVideo || s.index == source.mainAudio
        let holds = s.fitsIn.contains(container)
        if (s.kind == .video && !mode.keepVideo) || (s.kind == .audio && !mode.keepAudio) {
            return d.dropped("preset \(mode.presetName) has no \(s.kind.rawValue)", asked: true)
        }
        // An audio codec FFmpeg does not know (an iPhone's spatial audio, APAC) beside one the container holds: a
        // stream copy cannot carry it anywhere, and it is no reason to lose the rest; dropped with its reason.
        if s.kind == .audio && !s.codecKnown && !holds,
           source.streams.contains(where: { $0.kind == .audio && $0.codecKnown && $0.fitsIn.contains(container) && tracks.wants(language: $0.language) }) {
            return d.dropped("\(s.codec) is a codec FFmpeg does not know: no container can carry it (the other audio is kept)")
        }
        // The main video and every audio stream are never dropped by a stream copy: a container that cannot
        // hold one makes the route impossible (the chain goes on), and the reason names containers that can.
        if (isMain && (s.kind == .video || s.kind == .audio) || s.kind == .audio) && !holds {
            // A rotated main video: only the containers that keep its display matrix can take its copy.
            let rotated = s.kind == .video && s.index == source.mainVideo && PixelOrientation(matrix: copiedMatrix(s)) != nil
            if !s.codecKnown { inputFault = true }  // no container can carry a codec FFmpeg does not know
            let can = Container.allCases.filter { s.fitsIn.contains($0) && (!rotated || $0.keeps.displayMatrix) }
            blockers.append(.containerCannot(stream: s.index, kind: s.kind, codec: s.codec, container: container, can: can))
            return d.dropped("\(ext) cannot hold \(s.codec)")
        }
        // MP4/MOV write each audio track's sample rate in its header: a copy of one whose rate no probe found fails
        // there ("sample rate not set"), so the plan says so instead (a camcorder fragment, a cut TS).
        if s.kind == .audio && s.sampleRate <= 0 && container.isQuickTimeFamily {
            blockers.append(.sampleRateUnknown(stream: s.index, codec: s.codec, container: container))
            inputFault = true
            return d.dropped("sample rate unknown")
        }
        if s.kind == .data || s.kind == .attachment || !s.codecKnown { return d.dropped("\(s.kind.rawValue) streams are not copied") }
        guard holds else { return d.dropped("\(ext) cannot hold \(s.codec)") }
        var d = d
        var matrix: [Int32]? = nil
        if s.kind == .video {
            d.width = s.width; d.height = s.height
            // Only the main video carries the edit's geometry; other video streams keep their own matrix.
            if s.index == source.mainVideo, let edits {
                matrix = VideoGeometry.displayMatrix(sourceClockwise: s.rotation, edits: edits)
                if matrix != nil { d.note = ExportPlanner.losslessGeometryNote }
            }
            // A copy cannot turn pixels: losing the main video's rotation is no delivery.
            if s.index == source.mainVideo, let reason = orientationRefusal(s, finalMatrix: copiedMatrix(s)) {
                blockers.append(reason)
                return d.dropped("\(ext) keeps no display matrix")
            }
        }
        d.action = .copy(displayMatrix: matrix)
        return d
    }

    private mutating func video(_ s: SourceStream, _ d: StreamDecision) -> StreamDecision {
        guard let v = preset.video else { return d.dropped("preset \(mode.presetName) has no video", asked: true) }
        guard s.index == source.mainVideo else { return d.dropped("only the main video stream is exported") }
        if container == .m4a { return d.dropped(".m4a holds audio only", asked: true) }
        // A container that holds video but not this preset's codec (WebM and H.264): the reason names what can, and
        // losing the only video makes the route impossible (`kindsLost`).
        if !container.holds(v.codec) { return d.dropped(codecRefusal(v.codec)) }
        if !s.decodable { return undecodable(s, d) }
        if s.width <= 0 || s.height <= 0 { inputFault = true; return d.dropped("picture size unknown") }
        var crop: PixelRect? = nil
        var matrix: [Int32]? = nil
        if let edits {
            crop = edits.crop.map { VideoGeometry.codedRect(displayed: $0, codedWidth: s.width, codedHeight: s.height, sourceClockwise: s.rotation) }
            matrix = VideoGeometry.displayMatrix(sourceClockwise: s.rotation, edits: edits)
        }
        let size = VideoGeometry.outputSize(codedWidth: s.width, codedHeight: s.height, sampleAspect: s.sampleAspect, crop: crop, box: v.maxSize)
        // A sample aspect ratio is the file's word (up to 2³¹−1:1): the picture it implies must stay a size an
        // encoder can be asked for (`Int32`), or the plan says why not.
        if size.width > VideoGeometry.maximumSide || size.height > VideoGeometry.maximumSide {
            inputFault = true
            return d.dropped("picture size \(size.width)×\(size.height) is above \(VideoGeometry.maximumSide) pixels a side")
        }
        var plan = VideoPlan(width: size.width, height: size.height, settings: v, crop: crop, displayMatrix: matrix)
        orientPixels(&plan, finalMatrix: matrix ?? Self.ownMatrix(s))
        // The encoder's own limit, a fact of the request (the preset's codec), not of the input: a refusal, not a fallback.
        if case let p = v.codec.profile, min(plan.width, plan.height) < p.minimumSide {
            return d.dropped("\(p.encoder) encodes pictures of at least \(p.minimumSide)x\(p.minimumSide), not \(plan.width)x\(plan.height)"
                             + " (an H.264 or HEVC preset takes it)")
        }
        var d = d
        d.width = plan.width; d.height = plan.height
        PictureProcessing.decide(&plan, stream: s)
        d.action = .transcodeVideo(plan)
        return d
    }

    private mutating func audio(_ s: SourceStream, _ d: StreamDecision) -> StreamDecision {
        guard var a = preset.audio else { return d.dropped("preset \(mode.presetName) has no audio", asked: true) }
        // WebM holds no AAC: its audio is Opus (48 kHz, the rate Opus works at), the preset's bit rate and channels.
        if container.encodedAudio(a.codec) != a.codec { a.codec = container.encodedAudio(a.codec); a.sampleRate = 48_000 }
        if !container.holds(a.codec) { return d.dropped("\(ext) cannot hold \(a.codec.rawValue)") }
        if !s.decodable { return undecodable(s, d) }
        if s.sampleRate <= 0 { inputFault = true; return d.dropped("sample rate unknown") }
        if s.channels <= 0 { inputFault = true; return d.dropped("channel count unknown") }
        var d = d
        d.action = .transcodeAudio(AudioPlan(channels: max(1, min(a.channels, s.channels)), settings: a, gain: edits?.volume ?? 1))
        return d
    }

    private mutating func subtitle(_ s: SourceStream, _ d: StreamDecision) -> StreamDecision {
        var d = d
        // A copy keeps its timestamps: under slow motion only a conversion (mov_text, retimed) can keep step.
        let slowed = edits?.slowMotion.map { $0.rate != 1 && !$0.regions.isEmpty } ?? false
        if s.fitsIn.contains(container) && !(slowed && !(container.isQuickTimeFamily && s.codec == "mov_text")) {
            d.action = .copy(displayMatrix: nil)
            return d
        }
        if slowed && !(container.isQuickTimeFamily && container != .m4a) {
            return d.dropped("slow motion: \(s.codec) subtitles copied into \(ext) cannot be retimed")
        }
        // MP4/MOV/M4V hold text subtitles only as `mov_text` (3GPP timed text): other text formats are converted,
        // as HandBrake does. Their styling comes through as far as mov_text has it (see SubtitleTranscodeStage).
        // Pictures cannot become text. (`.m4a` holds audio only.)
        let bitmap = ["hdmv_pgs_subtitle": "PGS", "dvb_subtitle": "DVB", "dvd_subtitle": "VobSub", "xsub": "XSUB"]
        if let encoder = container.textSubtitleEncoder {
            if let kind = bitmap[s.codec] { return d.dropped("bitmap subtitles (\(kind)) cannot be converted to \(encoder); burn-in is not done") }
            if Container.convertibleTextSubtitles.contains(s.codec) {
                if !s.decodable { return undecodable(s, d) }
                d.action = .transcodeSubtitle(codec: encoder)
                return d
            }
        }
        return d.dropped("\(ext) cannot hold \(s.codec) subtitles")
    }
}

extension StreamDecider {
    /// A container that keeps no display matrix gets the picture turned upright in the pixels: the final matrix (the
    /// source's, or the edit's composed with it) as `pixelOrientation`, no matrix written (the identity), and the
    /// plan's size the upright one (the box is orientation-free, so the displayed size fits it as the coded did).
    func orientPixels(_ plan: inout VideoPlan, finalMatrix: [Int32]?) {
        guard !container.keeps.displayMatrix, let orientation = PixelOrientation(matrix: finalMatrix) else { return }
        plan.pixelOrientation = orientation
        plan.displayMatrix = DisplayMatrix.rotation(degrees: 0)
        if orientation.swapsSides { (plan.width, plan.height) = (plan.height, plan.width) }
    }

    /// The display matrix a copy of `s` shows: the edit's composed with the source's for the main video, else its own.
    func copiedMatrix(_ s: SourceStream) -> [Int32]? {
        guard s.index == source.mainVideo, let edits else { return Self.ownMatrix(s) }
        return VideoGeometry.displayMatrix(sourceClockwise: s.rotation, edits: edits) ?? Self.ownMatrix(s)
    }

    /// The stream's own display matrix; a rotation the probe read without one (a hand-built probe) as its matrix.
    static func ownMatrix(_ s: SourceStream) -> [Int32]? {
        s.displayMatrix ?? (s.rotation != 0 ? DisplayMatrix.rotation(degrees: Double(s.rotation)) : nil)
    }

    /// Why a stream copy of the main video into this container would lose its orientation (nil when it keeps it):
    /// the matrix needs a container that writes one, or a transcode (which turns the pixels).
    func orientationRefusal(_ s: SourceStream, finalMatrix: [Int32]?) -> PlanBlocker? {
        guard !container.keeps.displayMatrix, let orientation = PixelOrientation(matrix: finalMatrix) else { return nil }
        let can = Container.allCases.filter { $0.keeps.displayMatrix && s.fitsIn.contains($0) }
        return .orientationLost(stream: s.index, container: container, orientation: orientation, can: can)
    }

    /// Why the preset's video codec cannot go into this container, naming the containers that hold it and, for WebM,
    /// the codecs it takes.
    func codecRefusal(_ codec: VideoCodec) -> String {
        let can = Container.allCases.filter { $0.holds(codec) }.map { ".\($0.rawValue)" }.joined(separator: ", ")
        let takes = VideoCodec.allCases.filter { container.holds($0) }.map(\.rawValue).joined(separator: ", ")
        return "\(ext) cannot hold \(codec.rawValue) video (preset \(mode.presetName)); \(can) can; \(ext) takes \(takes) video"
    }
}

private extension StreamDecision {
    /// This decision, dropping its stream for `reason`; `asked`: the request asked for the drop (`StreamDecision.asked`).
    func dropped(_ reason: String, asked: Bool = false) -> StreamDecision {
        var d = self
        d.action = .drop(reason: reason)
        d.asked = asked
        return d
    }
}
