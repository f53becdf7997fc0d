import Foundation

extension Preset {
    /// Checks values that JSON types alone cannot (ranges, names the encoders know); errors are
    /// `ExportError.invalidPreset` naming `path` and the field. Preset files and command-line overrides
    /// (`applying(_:maxFileSize:)`) both pass through here, so both get the same ranges and messages.
    package func validate(path: String) throws {
        func bad(_ field: String, _ reason: String) -> ExportError { .invalidPreset(path: path, field: field, reason: reason) }
        if name.isEmpty || name.contains("/") { throw bad("name", "must be a non-empty name without '/'") }
        let containers = Preset.outputExtensions
        if !containers.contains(defaultExtension.lowercased()) {
            throw bad("defaultExtension", "must be one of \(containers.joined(separator: ", "))")
        }
        if !passthrough && video == nil && audio == nil {
            throw bad("video", "a preset needs video or audio settings, or passthrough: true")
        }
        if let v = video { try v.validate(bad) }
        if let size = maxFileSize {
            if size < 10_000 { throw bad("maxFileSize", "must be at least 10000 bytes, got \(size)") }
        }
        if let a = audio {
            if !(8_000...1_000_000).contains(a.bitrate) { throw bad("audio.bitrate", "must be between 8000 and 1000000 bits/s, got \(a.bitrate)") }
            let rates = [8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000]
            if !rates.contains(a.sampleRate) { throw bad("audio.sampleRate", "must be one of \(rates.map(String.init).joined(separator: ", "))") }
            if !(1...8).contains(a.channels) { throw bad("audio.channels", "must be between 1 and 8, got \(a.channels)") }
            if let l = a.loudness, let problem = LoudnessTarget.problem(integrated: l) { throw bad("audio.loudness", problem.reason) }
        }
    }

    /// The extensions a `defaultExtension` may name: `Container`'s cases (a test keeps them equal; the list is
    /// here so that presets do not depend on requests).
    package static let outputExtensions = ["mp4", "mov", "m4v", "m4a", "mkv", "webm"]
}

extension VideoSettings {
    /// The `video` section's checks (see `Preset.validate(path:)`).
    fileprivate func validate(_ bad: (String, String) -> ExportError) throws {
        let profile = codec.profile
        if !profile.speeds.contains(encoderPreset) { throw bad("video.encoderPreset", "must be one of \(profile.speeds.joined(separator: ", ")) for \(profile.encoder)") }
        if !profile.crfRange.contains(crf) { throw bad("video.crf", "must be between 0 and \(profile.crfRange.upperBound) for \(profile.encoder), got \(crf)") }
        if !profile.pixelFormats.contains(pixelFormat) {
            throw bad("video.pixelFormat", "must be one of \(profile.pixelFormats.joined(separator: ", "))")
        }
        let rates = 10_000...2_000_000_000
        if let m = maxBitrate, !rates.contains(m) { throw bad("video.maxBitrate", "must be between 10000 and 2000000000 bits/s, got \(m)") }
        if let b = bufferSize {
            if maxBitrate == nil { throw bad("video.bufferSize", "needs video.maxBitrate") }
            if !rates.contains(b) { throw bad("video.bufferSize", "must be between 10000 and 2000000000 bits, got \(b)") }
        }
        if let b = bitrate, !rates.contains(b) { throw bad("video.bitrate", "must be between 10000 and 2000000000 bits/s, got \(b)") }
        if twoPass && !profile.twoPass { throw bad("video.twoPass", "not with \(codec.rawValue) (FFmpeg 5.1's \(profile.encoder) has no two-pass)") }
        if twoPass && bitrate == nil { throw bad("video.twoPass", "needs video.bitrate (a CRF encode has nothing to aim for)") }
        if let q = quality {
            if let problem = q.problem(crfRange: profile.crfRange) { throw bad("video.quality", problem.reason) }
            if bitrate != nil { throw bad("video.quality", "not with video.bitrate (a quality target chooses the CRF)") }
        }
        if let b = bitrate, let m = maxBitrate, m < b { throw bad("video.maxBitrate", "must be at least video.bitrate (\(b)), got \(m)") }
        if let box = maxSize, !(2...16384).contains(box.short) || !(2...16384).contains(box.long) {
            throw bad("video.maxSize", "sides must be between 2 and 16384, got \(box)")
        }
        if let r = maxFrameRate, !(r.isFinite && (1...240).contains(r)) {
            throw bad("video.maxFrameRate", "must be between 1 and 240 frames/s, got \(String(format: "%g", r))")
        }
        if let k = keyframeInterval, !(k.isFinite && (0.5...20).contains(k)) {
            throw bad("video.keyframeInterval", "must be between 0.5 and 20 seconds, got \(String(format: "%g", k))")
        }
        if keyframeInterval != nil && codec == .av1 {
            throw bad("video.keyframeInterval", "not with av1 (FFmpeg 5.1's libsvtav1 turns a requested keyframe into no IDR)")
        }
        if hdr == .keep && profile.hdr == nil {
            let keeping = VideoCodec.allCases.filter { $0.profile.hdr != nil }.map(\.rawValue).joined(separator: " or ")
            throw bad("video.hdr", "keep needs codec \(keeping) (10-bit H.264 HDR plays almost nowhere); use tonemap")
        }
    }
}
