import Foundation
import Testing
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Independent checks of a streaming package, by reading its playlists as text and its segments with ffprobe,
/// and playing it with GStreamer and the ffmpeg CLI (the package's own validator is not used).
enum PackageCheck {
    struct Variant { var uri: String; var bandwidth: Int }

    /// The master playlist's variants (`#EXT-X-STREAM-INF` followed by a URI).
    static func variants(_ folder: String) throws -> [Variant] {
        let lines = try String(contentsOfFile: folder + "/master.m3u8", encoding: .utf8).split(separator: "\n").map(String.init)
        var found: [Variant] = []
        for (i, line) in lines.enumerated() where line.hasPrefix("#EXT-X-STREAM-INF:") && i + 1 < lines.count {
            let bandwidth = attribute("BANDWIDTH", in: line).flatMap { Int($0) } ?? 0
            found.append(Variant(uri: lines[i + 1], bandwidth: bandwidth))
        }
        return found
    }

    static func attribute(_ name: String, in line: String) -> String? {
        let body = line.split(separator: ":", maxSplits: 1).last.map(String.init) ?? ""
        for part in body.split(separator: ",") where part.hasPrefix(name + "=") {
            return String(part.dropFirst(name.count + 1))
        }
        return nil
    }

    /// A media playlist's segments: URI (relative to the folder) and EXTINF duration.
    static func segments(_ folder: String, playlist: String) throws -> [(uri: String, duration: Double)] {
        let base = (playlist as NSString).deletingLastPathComponent
        let lines = try String(contentsOfFile: folder + "/" + playlist, encoding: .utf8).split(separator: "\n").map(String.init)
        var found: [(String, Double)] = []
        for (i, line) in lines.enumerated() where line.hasPrefix("#EXTINF:") && i + 1 < lines.count {
            let duration = Double(line.dropFirst(8).split(separator: ",").first ?? "") ?? 0
            found.append(((base.isEmpty ? "" : base + "/") + lines[i + 1], duration))
        }
        return found
    }

    /// Apple's peak: the largest segment's bytes × 8 / its EXTINF duration.
    static func peakBitRate(_ folder: String, playlist: String) throws -> Double {
        try segments(folder, playlist: playlist).map { Double(FileSystem.size(folder + "/" + $0.uri) ?? 0) * 8 / $0.duration }.max() ?? 0
    }

    /// Each segment's first video packet, by ffprobe on the init segment + that segment: time and keyframe flag.
    static func segmentStarts(_ folder: String, playlist: String) throws -> [(time: Double, keyframe: Bool)] {
        let base = (playlist as NSString).deletingLastPathComponent
        let initData = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + (base.isEmpty ? "" : base + "/") + "init.mp4"))
        var starts: [(Double, Bool)] = []
        for segment in try segments(folder, playlist: playlist) {
            let joined = FileManager.default.temporaryDirectory.appendingPathComponent("seg-\(getpid()).mp4")
            defer { try? FileManager.default.removeItem(at: joined) }
            try (initData + Data(contentsOf: URL(fileURLWithPath: folder + "/" + segment.uri))).write(to: joined)
            let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags",
                                                             "-read_intervals", "%+#1", "-of", "csv=p=0", joined.path])
            let fields = r.stdout.split(separator: "\n").first?.split(separator: ",") ?? []
            starts.append((Double(fields.first ?? "") ?? -1, fields.count > 1 && fields[1].hasPrefix("K")))
        }
        return starts
    }

    /// The rung's init segment followed by its first media segment, as a file ffprobe reads (the caller removes it).
    static func firstSegment(_ folder: String, rung: String) throws -> String {
        let joined = FileManager.default.temporaryDirectory.appendingPathComponent("first-\(getpid())-\(rung).mp4")
        let parts = try ["init.mp4", "seg_00000.m4s"].map { try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(rung)/\($0)")) }
        try (parts[0] + parts[1]).write(to: joined)
        return joined.path
    }

    /// The ffmpeg CLI decodes every variant of `manifests` with no error (FFmpeg 5.1's DASH demuxer reads one stream
    /// per representation, so an MPD over rungs that carry their audio is for other players: GStreamer's test).
    static func ffmpegDecodes(_ folder: String, variants: Int, manifests: [String] = ["master.m3u8"]) throws {
        for manifest in manifests {
            for n in 0..<variants {
                // HLS: one program per variant; DASH (FFmpeg 5.1): one program, a stream per representation.
                let map = manifest.hasSuffix(".mpd") ? ["-map", "0:v:\(n)", "-map", "0:a?"] : ["-map", "0:p:\(n)"]
                let r = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "error", "-i", folder + "/" + manifest] + map + ["-f", "null", "-"])
                #expect(r.status == 0 && r.stderr.isEmpty, "\(manifest) program \(n): \(r.stderr.suffix(800))")
            }
        }
    }

    /// Integrated loudness (LUFS) and true peak (dBTP) of a file's audio by the ffmpeg CLI's `ebur128=peak=true`.
    static func loudness(_ path: String) throws -> (integrated: Double, truePeak: Double) {
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-nostats", "-i", path, "-map", "0:a:0", "-af", "ebur128=peak=true", "-f", "null", "-"])
        let summary = r.stderr.components(separatedBy: "Summary:").last ?? ""
        func value(after label: String) -> Double {
            guard let line = summary.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }) else { return .nan }
            return Double(line.split(separator: " ").dropFirst().first(where: { Double($0) != nil }) ?? "") ?? .nan
        }
        return (value(after: "I:"), value(after: "Peak:"))
    }

    static let hasGStreamer = FileManager.default.isExecutableFile(atPath: "/usr/bin/gst-launch-1.0")

    /// Serves `folder` on the loopback (GStreamer's adaptive demuxers read HTTP only) and plays `manifest` with
    /// playbin3 into fake sinks; true when it reached EOS within a minute.
    static func gstreamerPlays(folder: String, manifest: String) throws -> (ok: Bool, log: String) {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let port = 20000 + Int(getpid() % 20000)
        server.arguments = ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", folder]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        // SIGKILL: the test process blocks SIGTERM (its signal handling), and its children inherit the blocked mask.
        defer { kill(server.processIdentifier, SIGKILL); server.waitUntilExit() }
        for _ in 0..<50 where !serving(port) { usleep(100_000) }
        let r = try TestSupport.run("/usr/bin/timeout", ["-s", "KILL", "60", "gst-launch-1.0", "-m", "playbin3", "uri=http://127.0.0.1:\(port)/\(manifest)",
                                                         "video-sink=fakesink sync=false", "audio-sink=fakesink sync=false"])
        return (r.stdout.contains("Got EOS from element \"playbin3"), r.stdout + r.stderr)
    }

    /// True when something accepts connections on the loopback's `port`.
    private static func serving(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
