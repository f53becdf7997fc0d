import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// Reads one rung's folder of a streaming package (an init segment and numbered media segments, as FFmpeg's `hls`
/// muxer writes them with `-hls_segment_type fmp4`) into a `Rendition`: the measuring is Core's `InitSegment` and
/// `SegmentFacts`; this only lists and reads the files.
public enum RenditionReader {
    /// The largest segment file read (a 6 s segment at 100 Mbit/s is 75 MB).
    public static let maxSegmentBytes = 256 << 20

    /// Why a rung's folder could not be read.
    public enum Failure: Error, Equatable {
        /// The folder or a file in it could not be listed or read (the system's reason), or is over `maxSegmentBytes`.
        case unreadable(path: String, reason: String)
        /// A file is not an init or media segment we read.
        case notASegment(path: String, fault: MP4Fault)
        /// The folder holds no media segment with the extension.
        case noSegments(folder: String)
    }

    /// The rung in `root`/`folder`: `initName` and every file ending in `segmentExtension`, in name order (the
    /// muxer's `seg_%05d.m4s` sorts in playback order). `id` defaults to the folder's name.
    public static func read(root: String, folder: String, id: String? = nil, initName: String = "init.mp4",
                            segmentExtension: String = ".m4s") throws -> Rendition {
        let directory = URL(fileURLWithPath: root).appendingPathComponent(folder)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(segmentExtension) && !$0.hasPrefix(".") }.sorted()
        } catch {
            throw Failure.unreadable(path: directory.path, reason: "\(error.localizedDescription)")
        }
        guard !names.isEmpty else { throw Failure.noSegments(folder: directory.path) }
        let initPath = directory.appendingPathComponent(initName).path
        let initSegment: InitSegment
        do { initSegment = try InitSegment(bytes: try bytes(initPath)) } catch let fault as MP4Fault {
            throw Failure.notASegment(path: initPath, fault: fault)
        }
        var segments: [SegmentFacts] = []
        for name in names {
            let path = directory.appendingPathComponent(name).path
            do { segments.append(try SegmentFacts(name: name, bytes: try bytes(path), initSegment: initSegment)) } catch let fault as MP4Fault {
                throw Failure.notASegment(path: path, fault: fault)
            }
        }
        return Rendition(id: id ?? folder, folder: folder, initName: initName, initSegment: initSegment, segments: segments)
    }

    private static func bytes(_ path: String) throws -> [UInt8] {
        do { return [UInt8](try FileSystem.read(path, limit: maxSegmentBytes)) } catch FileSystem.ReadError.unreadable(let reason) {
            throw Failure.unreadable(path: path, reason: reason)
        } catch FileSystem.ReadError.tooLarge(let size, let limit) {
            throw Failure.unreadable(path: path, reason: "\(size) bytes, over the \(limit) a segment may have")
        }
    }
}
