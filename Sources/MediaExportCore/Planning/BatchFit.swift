import Foundation

// The batch's `--policy needed` judgement — does the file already fit the preset? — and its size estimate, over a
// `SourceInfo` instead of `MediaInfo`. Messages and thresholds are today's (BatchPlan.swift `misfit`, `estimate`).

extension ExportPlanner {
    /// Why the source does not already fit the preset (so a batch transcodes it), or nil when it fits and a remux
    /// or copy will do. Judges the first video that is not cover art, at its displayed size, and every audio stream.
    package static func misfit(_ source: SourceInfo, preset: Preset) -> String? {
        let video = source.firstVideo
        let audio = source.streams.filter { $0.kind == .audio }
        if let v = video {
            guard let settings = preset.video else { return "preset \(preset.name) has no video" }
            if v.codec != settings.codec.rawValue { return "video codec \(v.codec) is not \(settings.codec.rawValue)" }
            // The pictures as a transcode would make them: the pixel format (10 bits when HDR is kept), SDR, progressive.
            var picture = VideoPlan(width: v.width, height: v.height, settings: settings)
            PictureProcessing.decide(&picture, stream: v)
            if v.pixelFormat != picture.pixelFormat { return "pixel format \(v.pixelFormat ?? "unknown") is not \(picture.pixelFormat)" }
            if let t = picture.toneMap { return "HDR (\(t.source.rawValue.uppercased())) needs tone mapping to SDR" }
            if case .fields(let order) = picture.deinterlace { return "\(order.description) needs deinterlacing" }
            let shown = v.displaySize
            let w = shown.width, h = shown.height
            if let box = settings.maxSize, max(w, h) > box.long || min(w, h) > box.short {
                return "\(w)x\(h) does not fit the \(box) box"
            }
            if w % 2 != 0 || h % 2 != 0 { return "odd picture size \(w)x\(h)" }
            if let cap = FrameRateCap.planned(maxFrameRate: settings.maxFrameRate, sourceRate: v.frameRate), let fps = cap.sourceRate {
                return "\(FrameRateCap.format(fps)) fps is above the preset's \(FrameRateCap.format(cap.maxFrameRate)) fps"
            }
            if let bitrate = v.bitRate, let cap = settings.maxBitrate, bitrate > cap {
                return "video bit rate \(bitrate / 1000) kb/s is above the preset's cap of \(cap / 1000) kb/s"
            }
            if let bitrate = v.bitRate, let average = settings.bitrate {
                if Double(bitrate) > Double(average) * 1.25 { return "video bit rate \(bitrate / 1000) kb/s is above the preset's \(average / 1000)" }
            } else if let bitrate = v.bitRate, let fps = v.frameRate, w > 0, h > 0 {
                // A bit-rate ceiling derived from the CRF: about 0.25 bits per pixel at CRF 18, halving every 6 steps.
                let ceiling = 0.25 * pow(2, (18 - settings.x264EquivalentCRF) / 6) * Double(w) * Double(h) * fps * 1.5
                if Double(bitrate) > ceiling { return "video bit rate \(bitrate / 1000) kb/s is above what CRF \(settings.crf) gives (about \(Int(ceiling / 1500)) kb/s)" }
            }
        }
        for a in audio {
            guard let settings = preset.audio else { return "preset \(preset.name) has no audio" }
            // The codec an encode into the preset's container would make (Opus for a WebM preset).
            let codec = (Container(extension: preset.defaultExtension) ?? .mp4).encodedAudio(settings.codec)
            if a.codec != codec.rawValue { return "audio codec \(a.codec) is not \(codec.rawValue)" }
            if a.channels > settings.channels { return "\(a.channels) audio channels, preset keeps \(settings.channels)" }
            if a.sampleRate > settings.sampleRate { return "audio at \(a.sampleRate) Hz, preset uses \(settings.sampleRate)" }
            if let b = a.bitRate, Double(b) > Double(settings.bitrate) * 1.25 { return "audio bit rate \(b / 1000) kb/s is above the preset's \(settings.bitrate / 1000)" }
        }
        if video == nil && audio.isEmpty { return "no audio or video stream" }
        return remuxDiffers(source, preset: preset, container: Container(extension: preset.defaultExtension) ?? .mp4)
    }

    /// What a remux of `source` into `container` would fail to deliver of the preset's transcode, asked of the plans
    /// themselves (not judged by rules of the batch's own): a stream the transcode keeps and the remux drops — text
    /// subtitles only a transcode converts, cover art the container's keys decide — or a remux that is impossible (a
    /// rotation Matroska cannot carry). nil when the remux keeps every stream the transcode keeps.
    package static func remuxDiffers(_ source: SourceInfo, preset: Preset, container: Container, edits: EditSidecar? = nil,
                                     tracks: TrackSelection = .all) -> String? {
        guard let transcode = try? plan(source: source, preset: preset, route: .transcode, container: container, edits: edits, range: nil, tracks: tracks),
              let remux = try? plan(source: source, preset: preset, route: .remux, container: container, edits: edits, range: nil, tracks: tracks)
        else { return nil }  // a range or language the request cannot have: the run refuses it as any export would
        if let why = remux.impossible { return "a remux into .\(container.rawValue) cannot deliver it: \(why)" }
        let differ = zip(transcode.streams, remux.streams).filter { $0.isKept && !$1.isKept }.map { t, r in
            let s = source.streams[t.index]
            return "stream #\(s.index) \(s.kind.rawValue) (\(s.codec)): a remux drops it (\(r.streamPlan.reason ?? ""))"
        }
        return differ.isEmpty ? nil : "has streams only a transcode treats as the preset does: " + differ.joined(separator: "; ")
    }

    /// A rough output size in bytes. `fits`: the batch remuxes or copies the file (it fits the preset, or the preset
    /// is passthrough) — the source's size. Otherwise a transcode: bits per pixel from the CRF at the fitted
    /// displayed size (30 fps when the rate is unknown), plus the preset's audio bit rate; nil without a duration.
    package static func estimatedBytes(_ source: SourceInfo, preset: Preset, fits: Bool) -> Int64? {
        if fits { return source.size }
        guard let duration = source.duration else { return nil }
        var bits = 0.0
        if let v = source.firstVideo, let settings = preset.video {
            let shown = v.displaySize
            let size = SizeBox.fitting(width: shown.width, height: shown.height, into: settings.maxSize)
            bits += OutputSize.guessedBitsPerPixel(settings) * Double(size.width) * Double(size.height) * min(v.frameRate ?? 30, settings.maxFrameRate ?? .infinity) * duration
        }
        if source.streams.contains(where: { $0.kind == .audio }), let a = preset.audio { bits += Double(a.bitrate) * duration }
        return Int64(saturating: bits / 8)  // a displayed size from a 2³¹:1 sample aspect ratio, a file's duration
    }
}
