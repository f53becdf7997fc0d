import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// One output stream of a stream copy, packet by packet against the source: how many packets are not among the
/// source's and when the first of them starts.
public struct PacketStreamSummary: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The output stream's index.
    public var stream: Int
    /// Its packets.
    public var packets: Int
    /// How many of them are not among the source's packets (same bytes, any stream).
    public var differing: Int
    /// The presentation time of the first differing packet (seconds), if any has one.
    public var firstDifferingTime: Double?

    /// Creates a summary.
    public init(stream: Int, packets: Int, differing: Int, firstDifferingTime: Double? = nil) {
        self.stream = stream; self.packets = packets; self.differing = differing; self.firstDifferingTime = firstDifferingTime
    }

    /// `stream #0: 41 of 75 packets differ from 1.240 s`, or `stream #1: all 94 packets as in the source`.
    public var description: String {
        guard differing > 0 else { return "stream #\(stream): all \(packets) packets as in the source" }
        return "stream #\(stream): \(differing) of \(packets) packets differ" + (firstDifferingTime.map { String(format: " from %.3f s", $0) } ?? "")
    }

    /// Compares each packet of `output` with every packet of `source`.
    static func compare(output: String, source: String) throws -> [PacketStreamSummary] {
        let known = Set(try PacketDigests.read(source).joined().map(\.digest))
        return try PacketDigests.read(output).enumerated().map { index, packets in
            let differing = packets.filter { !known.contains($0.digest) }
            return PacketStreamSummary(stream: index, packets: packets.count, differing: differing.count,
                                       firstDifferingTime: differing.compactMap(\.time).min())
        }
    }
}

/// Per-stream packet checksums as people read them.
enum PacketStreams {
    /// `stream #0 differs (3f2706b84165… → 956495b6a95f…)`, for each stream whose checksum differs or is missing
    /// on one side.
    static func differing(_ before: [JSONValue], _ after: [JSONValue]) -> String {
        let parts = (0..<max(before.count, after.count)).compactMap { i -> String? in
            let a = before.indices.contains(i) ? before[i].shown : "none", b = after.indices.contains(i) ? after[i].shown : "none"
            return a == b ? nil : "stream #\(i) differs (\(short(a)) → \(short(b)))"
        }
        return parts.joined(separator: ", ")
    }

    /// A checksum's first 12 characters and an ellipsis.
    static func short(_ checksum: String) -> String { checksum.count > 12 ? checksum.prefix(12) + "…" : checksum }
}
