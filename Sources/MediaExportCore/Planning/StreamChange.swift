import Foundation

/// One change an export makes to a kept stream that a person would notice (a transcode's, or cover art stripped of its
/// metadata), from what the source has to what the output gets: named in the plan line (`#1 audio aac → aac (downmix 6
/// → 2 channels)`), in the `started` record's stream entry (`changes`) and, for the kinds no other note names, as a
/// note. Decided once by the planner (`StreamChange.planned`) from the stream's probe and its decision; pure.
public struct StreamChange: Codable, Sendable, Equatable {
    /// What changes.
    public enum Kind: String, Codable, Sendable {
        /// More channels than the preset keeps, mixed down (`from`/`to`: channel counts).
        case downmix
        /// Resampled (`from`/`to`: Hz).
        case sampleRate
        /// Frames left out to stay under `video.maxFrameRate` (`from`/`to`: frames a second; `from` "unknown").
        case frameRate
        /// Fewer bits a sample (`from`/`to`: bits, e.g. 10 → 8).
        case bitDepth
        /// HDR tone-mapped to SDR (`from`: `HLG` or `PQ`; `to`: `SDR`).
        case toneMap
        /// Interlaced fields made progressive frames (`from`: `top field first` or `bottom field first`; `to`: `progressive`).
        case deinterlace
        /// The picture resized (`from`/`to`: `WxH`, coded pixels; `from` is the crop's size when an edit crops).
        case scale
        /// The display matrix turned into the pixels (`from`: `90°`, `180° mirrored`…; `to`: the container, `.webm`,
        /// that keeps no matrix).
        case rotate
        /// Less colour resolution (`from`/`to`: the chroma subsampling, `4:4:4` → `4:2:0`).
        case chroma
        /// Another pixel format of the same bit depth and subsampling or more (`from`/`to`: pixel format names;
        /// `from` "unknown").
        case pixelFormat
        /// A bit rate above what the preset gives, brought down (`from`/`to`: kb/s; `to` the preset's cap, average or
        /// what its CRF gives).
        case bitRate
        /// Cover art's picture stripped of its metadata, its pixels unchanged (`from`: the kinds and bytes removed,
        /// `EXIF 312 bytes, XMP 131 bytes`; `to`: `none`).
        case pictureMetadata
    }

    /// What changes.
    public var kind: Kind
    /// The source's value.
    public var from: String
    /// The output's value.
    public var to: String

    /// Creates a change.
    public init(kind: Kind, from: String, to: String) { self.kind = kind; self.from = from; self.to = to }

    /// `downmix 6 → 2 channels`, `48000 → 44100 Hz`, `60 → 30 fps`, `10 → 8 bit`, `tone-mapped PQ → SDR`,
    /// `deinterlaced top field first → progressive`, `scaled 3840x2160 → 1280x720`,
    /// `rotate 90° into the pixels: .webm has no display matrix`.
    public var description: String {
        switch kind {
        case .downmix: return "downmix \(from) → \(to) channels"
        case .sampleRate: return "\(from) → \(to) Hz"
        case .frameRate: return "\(from) → \(to) fps"
        case .bitDepth: return "\(from) → \(to) bit"
        case .toneMap: return "tone-mapped \(from) → \(to)"
        case .deinterlace: return "deinterlaced \(from) → \(to)"
        case .scale: return "scaled \(from) → \(to)"
        case .rotate: return "rotate \(from) into the pixels: \(to) has no display matrix"
        case .chroma: return "chroma \(from) → \(to)"
        case .pixelFormat: return "pixel format \(from) → \(to)"
        case .bitRate: return "bit rate \(from) → at most \(to) kb/s"
        case .pictureMetadata: return "picture metadata stripped (\(from)), the pixels unchanged"
        }
    }

    /// True for the kinds another note of the plan already names (tone mapping, deinterlacing, the frame-rate cap) or
    /// the plan line's size says (scaling): the others become notes of their own (`note(stream:)`).
    /// A pixel format or bit rate brought to the preset's is what a transcode is for: said in the plan line only.
    public var hasOwnNote: Bool { [.toneMap, .deinterlace, .frameRate, .scale, .pixelFormat, .bitRate].contains(kind) }

    /// True for a change a copy of the source gives up nothing by skipping: audio resampled to a higher rate.
    public var losesNothing: Bool { kind == .sampleRate && (Int(from) ?? 0) < (Int(to) ?? 0) }

    /// `stream #1 audio: downmix 6 → 2 channels`: the note for a change no other note names.
    package func note(stream index: Int, kind streamKind: SourceStream.Kind) -> String {
        "stream #\(index) \(streamKind.rawValue): \(description)"
    }

    /// The changes a decision makes to its source stream `s`, in a fixed order; empty for a copy, cover art or a drop.
    package static func planned(_ d: StreamDecision, stream s: SourceStream, container: Container? = nil) -> [StreamChange] {
        switch d.action {
        case .transcodeAudio(let a):
            var changes: [StreamChange] = []
            if s.channels > a.channels { changes.append(.init(kind: .downmix, from: "\(s.channels)", to: "\(a.channels)")) }
            if s.sampleRate > 0 && s.sampleRate != a.settings.sampleRate {
                changes.append(.init(kind: .sampleRate, from: "\(s.sampleRate)", to: "\(a.settings.sampleRate)"))
            }
            if let b = s.bitRate, Double(b) > Double(a.settings.bitrate) * 1.25 {
                changes.append(.init(kind: .bitRate, from: "\(b / 1000)", to: "\(a.settings.bitrate / 1000)"))
            }
            return changes
        case .transcodeVideo(let v): return video(v, stream: s, container: container)
        default: return []
        }
    }

    private static func video(_ v: VideoPlan, stream s: SourceStream, container: Container?) -> [StreamChange] {
        var changes: [StreamChange] = []
        let from = v.crop.map { ($0.width, $0.height) } ?? (s.width, s.height)
        // Scaling is judged before the pixels turn (a turned picture is not a resized one).
        let scaled = v.scaledSize
        if from.0 != scaled.width || from.1 != scaled.height {
            changes.append(.init(kind: .scale, from: "\(from.0)x\(from.1)", to: "\(scaled.width)x\(scaled.height)"))
        }
        if let o = v.pixelOrientation {
            changes.append(.init(kind: .rotate, from: o.description, to: container.map { ".\($0.rawValue)" } ?? "the container"))
        }
        if let cap = v.frameRateCap {
            changes.append(.init(kind: .frameRate, from: cap.sourceRate.map { FrameRateCap.format($0) } ?? "unknown",
                                 to: FrameRateCap.format(cap.maxFrameRate)))
        }
        if let depth = s.color?.bitDepth, depth > bitDepth(v.pixelFormat) {
            changes.append(.init(kind: .bitDepth, from: "\(depth)", to: "\(bitDepth(v.pixelFormat))"))
        }
        if let before = s.pixelFormat.flatMap(chroma), let after = chroma(v.pixelFormat), before != after {
            changes.append(.init(kind: .chroma, from: before, to: after))
        }
        if !changes.contains(where: { $0.kind == .bitDepth || $0.kind == .chroma }), s.pixelFormat != v.pixelFormat {
            changes.append(.init(kind: .pixelFormat, from: s.pixelFormat ?? "unknown", to: v.pixelFormat))
        }
        if let t = v.toneMap { changes.append(.init(kind: .toneMap, from: t.source.rawValue.uppercased(), to: "SDR")) }
        if case .fields(let order) = v.deinterlace {
            changes.append(.init(kind: .deinterlace, from: order.topFieldFirst ? "top field first" : "bottom field first", to: "progressive"))
        }
        if let ceiling = bitRateCeiling(v.settings, stream: s), let b = s.bitRate, b > ceiling {
            changes.append(.init(kind: .bitRate, from: "\(b / 1000)", to: "\(ceiling / 1000)"))
        }
        return changes
    }

    /// The most video bits a second the preset gives a source like `s`: at most its `maxBitrate`, and 1.25 times its
    /// average bit rate, or without one what its CRF gives at the source's displayed size and rate (about 0.25 bits
    /// a pixel at CRF 18, halving every 6 steps). nil when unknown (no rate: a variable frame rate, and no cap).
    static func bitRateCeiling(_ settings: VideoSettings, stream s: SourceStream) -> Int64? {
        let cap = settings.maxBitrate.map(Double.init)
        var rate: Double?
        if let average = settings.bitrate {
            rate = Double(average) * 1.25
        } else if let fps = s.frameRate, s.displaySize.width > 0, s.displaySize.height > 0 {
            rate = settings.codec.profile.bitRateCeiling(crf: settings.crf, width: s.displaySize.width, height: s.displaySize.height, frameRate: fps)
        }
        guard let ceiling = [cap, rate].compactMap({ $0 }).min() else { return nil }
        return Int64(min(ceiling, 1e15))
    }

    /// Bits a sample of a pixel format: 10 or 12 when its name says so (`yuv420p10le`), else 8.
    /// A planar YUV format's chroma subsampling (`yuv444p10le` → `4:4:4`, `nv12` → `4:2:0`); nil for others (RGB, gray).
    static func chroma(_ pixelFormat: String) -> String? {
        if pixelFormat.hasPrefix("nv12") || pixelFormat.hasPrefix("nv21") || pixelFormat.hasPrefix("p010") { return "4:2:0" }
        for (tag, name) in [("444", "4:4:4"), ("422", "4:2:2"), ("420", "4:2:0"), ("411", "4:1:1"), ("440", "4:4:0")]
        where pixelFormat.hasPrefix("yuv" + tag) || pixelFormat.hasPrefix("yuvj" + tag) || pixelFormat.hasPrefix("yuva" + tag) {
            return name
        }
        return nil
    }

    static func bitDepth(_ pixelFormat: String) -> Int {
        if pixelFormat.contains("p10") { return 10 }
        if pixelFormat.contains("p12") { return 12 }
        return 8
    }
}
