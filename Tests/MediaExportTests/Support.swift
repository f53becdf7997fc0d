import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// Paths and helpers shared by the tests.
enum TestSupport {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repoRoot.appendingPathComponent("Fixtures")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// A fresh empty folder, removed by the caller with `cleanup`.
    static func tempDir(_ label: String = #function) -> URL {
        let safe = label.filter { $0.isLetter || $0.isNumber }
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("mediaexport-tests-\(safe)-\(UUID().uuidString.prefix(8))")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func cleanup(_ url: URL) { try? FileManager.default.removeItem(at: url) }

    /// Names in a folder, hidden ones included (temporary files start with a dot).
    static func contents(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
    }

    static func preset(_ name: String) throws -> Preset { try PresetCatalog.builtIn().resolve(name) }

    /// Runs an export through the library.
    @discardableResult
    static func export(_ input: String, to output: String, preset: String, range: TimeRange? = nil, overwrite: Bool = false,
                       sandbox: String? = nil) throws -> ExportEvent.Completed {
        let request = ExportRequest(input: input, output: output, preset: try Self.preset(preset), timeRange: range,
                                    overwrite: overwrite, sandbox: sandbox)
        return try ExportSession(request: request).run()
    }

    /// The built `mediaexport` binary (next to the test bundle), or `$MEDIAEXPORT_BIN`.
    static var binary: String {
        if let env = ProcessInfo.processInfo.environment["MEDIAEXPORT_BIN"] { return env }
        var dir = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("mediaexport")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            dir = dir.deletingLastPathComponent()
        }
        return repoRoot.appendingPathComponent(".build/debug/mediaexport").path
    }

    struct RunResult { var status: Int32; var stdout: String; var stderr: String }

    /// Runs the tool with `--json`-style output until its first progress record, calls `midway`, sends `signal`,
    /// and returns the exit status (128 + the signal when it died of one) and everything it printed on stdout.
    static func interrupt(arguments: [String], with signal: Int32, midway: () -> Void = {}) throws -> (status: Int32, stdout: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var buffer = Data()
        while !String(decoding: buffer, as: UTF8.self).contains("\"progress\"") {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        midway()
        kill(process.processIdentifier, signal)
        buffer.append(pipe.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return (status, String(decoding: buffer, as: UTF8.self))
    }

    /// Runs a program to completion and captures its output.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes concurrently so neither fills up.
        let errData = LockedBox(Data())
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errData.withLock { $0 = data }
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self))
    }

    /// Runs the tool.
    static func tool(_ arguments: [String]) throws -> RunResult { try run(binary, arguments) }

    /// An FFMETADATA file titled `title` with the chapters "Opening" 0–1.5 s and "Second part" 1.5–4 s (`-i FILE
    /// -map_metadata N -map_chapters N`).
    static func twoChapters(in dir: URL, title: String) throws -> URL {
        let meta = dir.appendingPathComponent("chapters.txt")
        try """
        ;FFMETADATA1
        title=\(title)

        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=1500
        title=Opening

        [CHAPTER]
        TIMEBASE=1/1000
        START=1500
        END=4000
        title=Second part

        """.write(to: meta, atomically: true, encoding: .utf8)
        return meta
    }

    /// Makes a fixture with the ffmpeg CLI (quiet, overwriting); a failure is a recorded issue naming ffmpeg's message.
    static func ffmpeg(_ args: [String]) throws {
        let r = try run("/usr/bin/ffmpeg", ["-v", "error", "-y"] + args)
        #expect(r.status == 0, "ffmpeg: \(r.stderr)")
    }

    static func sha256(_ path: String) throws -> String {
        let r = try run("/usr/bin/sha256sum", [path])
        return String(r.stdout.prefix(64))
    }
}

/// ffprobe as an independent oracle: what the exported file really contains.
struct FFprobe {
    struct Stream {
        var type: String
        var codec: String
        var tag: String
        var width: Int?
        var height: Int?
        var pixelFormat: String?
        var sampleRate: Int?
        var channels: Int?
        var duration: Double?
        var startTime: Double?
        var rotation: Int?
    }
    var formatName: String
    var duration: Double
    var tags: [String: String]
    var streams: [Stream]

    var video: Stream? { streams.first { $0.type == "video" } }
    var audio: Stream? { streams.first { $0.type == "audio" } }

    init(_ path: String) throws {
        let r = try TestSupport.run("/usr/bin/ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path])
        guard r.status == 0, let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else {
            throw NSError(domain: "ffprobe", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: "ffprobe failed on \(path): \(r.stderr)"])
        }
        let format = json["format"] as? [String: Any] ?? [:]
        formatName = format["format_name"] as? String ?? ""
        duration = Double(format["duration"] as? String ?? "") ?? 0
        tags = format["tags"] as? [String: String] ?? [:]
        streams = (json["streams"] as? [[String: Any]] ?? []).map { s in
            let sideData = s["side_data_list"] as? [[String: Any]] ?? []
            let rotation = sideData.compactMap { $0["rotation"] as? Int }.first
            return Stream(type: s["codec_type"] as? String ?? "", codec: s["codec_name"] as? String ?? "",
                          tag: s["codec_tag_string"] as? String ?? "",
                          width: s["width"] as? Int, height: s["height"] as? Int, pixelFormat: s["pix_fmt"] as? String,
                          sampleRate: Int(s["sample_rate"] as? String ?? ""), channels: s["channels"] as? Int,
                          duration: Double(s["duration"] as? String ?? ""), startTime: Double(s["start_time"] as? String ?? ""),
                          rotation: rotation)
        }
    }

    /// True when the `moov` atom comes before `mdat` (faststart).
    static func isFaststart(_ path: String) throws -> Bool {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var offset: UInt64 = 0
        while true {
            try handle.seek(toOffset: offset)
            guard let header = try handle.read(upToCount: 16), header.count >= 8 else { return false }
            var size = UInt64(header[0]) << 24 | UInt64(header[1]) << 16 | UInt64(header[2]) << 8 | UInt64(header[3])
            let type = String(decoding: header[4..<8], as: UTF8.self)
            if type == "moov" { return true }
            if type == "mdat" { return false }
            if size == 1, header.count >= 16 { size = header[8..<16].reduce(0) { $0 << 8 | UInt64($1) } }
            if size < 8 { return false }
            offset += size
        }
    }
}
