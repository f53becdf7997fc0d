import Foundation
import Testing
@testable import MediaExportCore

// Hand-built probes: no media file is read by these tests. Sizes, codecs and what each container accepts for a
// stream copy are what FFmpeg 5.1 reports for such files (avformat_query_codec: h264/hevc go in mp4/mov/m4v/mkv,
// aac in all five (.m4a: aac/alac only), pcm_s16le in mov/mkv, an unknown fourcc nowhere).

enum Fits {
    static let h264: Set<Container> = [.mp4, .mov, .m4v, .mkv]
    static let aac: Set<Container> = Set(Container.allCases).subtracting([.webm])
    static let pcm: Set<Container> = [.mov, .mkv]
    static let movText: Set<Container> = [.mp4, .mov, .m4v]
}

extension SourceStream {
    static func h264(_ index: Int, _ w: Int, _ h: Int, rotation: Int = 0, sar: Rational? = nil, fps: Double? = 30,
                     bitRate: Int64? = 4_000_000, codec: String = "h264", pixelFormat: String = "yuv420p") -> SourceStream {
        SourceStream(index: index, kind: .video, codec: codec, fitsIn: Fits.h264, bitRate: bitRate, width: w, height: h,
                     sampleAspect: sar, rotation: rotation, frameRate: fps, pixelFormat: pixelFormat)
    }
    static func aac(_ index: Int, channels: Int = 2, rate: Int = 48_000, bitRate: Int64? = 128_000) -> SourceStream {
        SourceStream(index: index, kind: .audio, codec: "aac", fitsIn: Fits.aac, bitRate: bitRate, channels: channels, sampleRate: rate)
    }
    /// Cover art: one 500x500 picture (`AV_DISPOSITION_ATTACHED_PIC`), as an MP3's APIC or an MP4's `covr` probes.
    static func cover(_ index: Int, codec: String = "mjpeg") -> SourceStream {
        SourceStream(index: index, kind: .video, codec: codec, isAttachedPicture: true, fitsIn: Fits.h264, width: 500, height: 500)
    }
    static func pcm(_ index: Int, channels: Int = 2, rate: Int = 48_000) -> SourceStream {
        SourceStream(index: index, kind: .audio, codec: "pcm_s16le", fitsIn: Fits.pcm, bitRate: Int64(rate * channels * 16),
                     channels: channels, sampleRate: rate)
    }
}

extension SourceInfo {
    static func make(_ streams: [SourceStream], duration: Double? = 10, startTime: Double = 0, size: Int64 = 12_345_678,
                     cut: KeyframeLookup? = nil) -> SourceInfo {
        SourceInfo(path: "/in/clip.mov", formatName: "mov,mp4,m4a,3gp,3g2,mj2", duration: duration, startTime: startTime, size: size,
                   streams: streams,
                   mainVideo: streams.first { $0.kind == .video && !$0.isAttachedPicture }?.index,
                   mainAudio: streams.first { $0.kind == .audio }?.index, cutKeyframe: cut)
    }

    /// 1920x1080 H.264 + stereo AAC, 10 s.
    static let landscape1080 = make([.h264(0, 1920, 1080), .aac(1)])
    /// An iPhone portrait clip: coded 1920x1080, shown turned 90° clockwise (1080x1920).
    static let portraitRotated = make([.h264(0, 1920, 1080, rotation: 90), .aac(1)])
    /// HDV-style 1440x1080 with 4:3 pixels: shown 1920x1080.
    static let anamorphic = make([.h264(0, 1440, 1080, sar: Rational(4, 3), fps: 25), .aac(1)])
    /// Odd sides: 853x479.
    static let oddSize = make([.h264(0, 853, 479), .aac(1)])
    static let audioOnly = make([.aac(0, rate: 44_100)])
    static let videoOnly = make([.h264(0, 1280, 720)])
    /// Like Fixtures/bad/no-decoder.mp4: the video's fourcc is unknown (no decoder, no muxer takes it) + AAC.
    static let noDecodable = make([
        SourceStream(index: 0, kind: .video, codec: "unknown 'zzv9'", codecKnown: false, decodable: false, width: 1920, height: 1080),
        .aac(1),
    ])
    /// A WAV whose header gives no channel count.
    static let wav0ch = make([.pcm(0, channels: 0)])
    /// H.264 + PCM audio: the audio cannot be stream-copied into MP4.
    static let pcmAudio = make([.h264(0, 1920, 1080), .pcm(1)])
    /// Variable frame rate: no average rate; mono audio.
    static let vfr = make([.h264(0, 640, 360, fps: nil), .aac(1, channels: 1)])
    /// Video, audio, a mov_text subtitle, a timecode data stream and cover art.
    static let withExtras = make([
        .h264(0, 1920, 1080), .aac(1),
        SourceStream(index: 2, kind: .subtitle, codec: "mov_text", fitsIn: Fits.movText),
        SourceStream(index: 3, kind: .data, codec: "none", codecKnown: false),
        SourceStream(index: 4, kind: .video, codec: "mjpeg", isAttachedPicture: true, fitsIn: Fits.h264, width: 600, height: 600),
    ])

    /// An audio book or song: AAC with its cover.
    static let withCover = make([.aac(0), .cover(1)])

    static let named: [String: SourceInfo] = [
        "landscape1080": .landscape1080, "portraitRotated": .portraitRotated, "anamorphic": .anamorphic, "oddSize": .oddSize,
        "audioOnly": .audioOnly, "videoOnly": .videoOnly, "noDecodable": .noDecodable, "pcmAudio": .pcmAudio, "vfr": .vfr,
    ]
}

/// The built-in presets, decoded with the copied `Preset` from the repository's JSON files (not media).
enum Presets {
    static let directory = ProcessInfo.processInfo.environment["MEDIAEXPORT_PRESETS_DIR"]
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Presets").path

    static let all: [String: Preset] = {
        var presets: [String: Preset] = [:]
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for file in files where file.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: directory + "/" + file),
                  let preset = try? JSONDecoder().decode(Preset.self, from: data) else { continue }
            presets[preset.name] = preset
        }
        return presets
    }()

    static func named(_ name: String) -> Preset {
        // A user's preset that writes Matroska (what the container keeps decides whether a file already fits).
        if name == "mkv1080" { var p = named("1920x1080"); p.defaultExtension = "mkv"; return p }
        guard let preset = all[name] else { fatalError("preset \(name) not found in \(directory)") }
        return preset
    }

    static var highest: Preset { named("highest") }
    static var m4a: Preset { named("m4a") }
    static var passthrough: Preset { named("passthrough") }
    static var low: Preset { named("low") }
}

/// One line per decision, compact enough for tables: `#0 video → h264 1280x720`, `#1 audio copy`, `#2 drop: …`.
func summary(_ d: StreamDecision) -> String {
    switch d.action {
    case .transcodeVideo(let v):
        var s = "#\(d.index) video → \(v.settings.codec.rawValue) \(v.width)x\(v.height)"
        if let c = v.crop { s += " crop \(c.left),\(c.top) \(c.width)x\(c.height)" }
        if let m = v.displayMatrix { s += " matrix \(m)" }
        return s
    case .transcodeAudio(let a):
        return "#\(d.index) audio → \(a.settings.codec.rawValue) \(a.channels)ch" + (a.gain != 1 ? " gain \(a.gain)" : "")
    case .transcodeSubtitle(let codec):
        return "#\(d.index) \(d.kind.rawValue) → \(codec)"
    case .copy(let m):
        var s = "#\(d.index) \(d.kind.rawValue) copy"
        if let w = d.width, let h = d.height { s += " \(w)x\(h)" }
        if let m { s += " matrix \(m)" }
        return s
    case .coverArt:
        var s = "#\(d.index) \(d.kind.rawValue) cover art"
        if let w = d.width, let h = d.height { s += " \(w)x\(h)" }
        return s
    case .drop(let reason):
        return "#\(d.index) \(d.kind.rawValue) drop: \(reason)"
    }
}

/// The plan as lines: every decision, then `impossible: …` when it cannot run.
func summary(_ plan: ExportPlan) -> [String] {
    plan.streams.map(summary) + (plan.impossible.map { ["impossible: \($0)"] } ?? [])
}

/// The plan for a preset's own container (its default extension).
func planned(_ source: SourceInfo, _ preset: Preset, route: ExportRoute = .transcode, container: Container? = nil,
             edits: EditSidecar? = nil, range: TimeRange? = nil) throws -> ExportPlan {
    try ExportPlanner.plan(source: source, preset: preset, route: route,
                           container: container ?? Container(extension: preset.defaultExtension), edits: edits, range: range)
}
