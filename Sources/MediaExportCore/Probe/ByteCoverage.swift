import Foundation

/// Which bytes of a file the packets a demuxer read came from: what tells a file whose data ends early (its last
/// packet at the file's end) from one with a stretch the demuxer could not read (zeroed or garbled bytes it skipped
/// to find its next packet), which AVI and MP3 demuxers bridge without a gap in their timestamps.
package struct ByteCoverage: Sendable, Equatable, Codable {
    /// Bytes packets came from, with the times of the packets read there (seconds on the source's clock).
    package struct Stretch: Sendable, Equatable, Codable {
        package var from: Int64
        package var to: Int64
        package var firstTime: Double?
        package var lastTime: Double?
    }

    /// Bytes between two stretches that no packet came from.
    package struct Hole: Sendable, Equatable, Codable {
        /// Where the hole starts and how many bytes it spans.
        package var offset: Int64
        package var bytes: Int64
        /// The latest packet time before it and the earliest after it, if known.
        package var after: Double?
        package var resumes: Double?
        /// Creates a hole.
        package init(offset: Int64, bytes: Int64, after: Double?, resumes: Double?) {
            self.offset = offset; self.bytes = bytes; self.after = after; self.resumes = resumes
        }
        /// The same hole with its times `seconds` later (on another clock).
        package func moved(by seconds: Double) -> Hole {
            Hole(offset: offset, bytes: bytes, after: after.map { $0 + seconds }, resumes: resumes.map { $0 + seconds })
        }
    }

    /// The stretches, sorted by offset, apart by more than `joined` bytes.
    package private(set) var stretches: [Stretch] = []
    /// Bytes a second of each input stream whose packets keep near its declared bit rate (audio), nil for the others:
    /// an audio packet far larger than its duration holds is read over a stretch that is not its own (the MP3
    /// demuxer reads zeroed bytes into the packet before its next frame).
    private var byteRates: [Double?] = []

    /// Nothing read yet, of a source whose audio streams declare the bit rates `source` says.
    package init(audioOf source: SourceInfo? = nil) {
        byteRates = source?.streams.map { $0.kind == .audio ? $0.bitRate.flatMap { $0 > 0 ? Double($0) / 8 : nil } : nil } ?? []
    }

    /// Bytes between packets that belong together anyway: a container's chunk, block and cluster headers, an MPEG-TS
    /// packet's interleaved neighbours (a quarter of the packet's size more).
    static func joined(size: Int64) -> Int64 { 4096 + size / 4 }

    /// At most this many stretches are kept (a file read out of order, or damaged in many places): the closest two are
    /// joined beyond it.
    static let limit = 64

    /// Notes a packet of stream `stream`, `size` bytes at `offset` (`AVPacket.pos`; negative: unknown, ignored),
    /// holding media from `start` to `end`. An audio packet counts for at most eight times the bytes its duration
    /// holds at its stream's bit rate (and a kilobyte).
    package mutating func note(stream: Int, offset: Int64, size: Int, start: Double?, end: Double?) {
        guard offset >= 0, size > 0 else { return }
        var bytes = Int64(size)
        if stream >= 0, stream < byteRates.count, let rate = byteRates[stream], let start, let end, end > start {
            bytes = min(bytes, Int64(8 * rate * (end - start)) + 1024)
        }
        let piece = Stretch(from: offset, to: offset + bytes, firstTime: start, lastTime: end)
        let slack = Self.joined(size: Int64(size))
        // Read in file order, a packet joins the last stretch: look from the back.
        var i = stretches.count
        while i > 0 && stretches[i - 1].from > piece.to + slack { i -= 1 }
        if i > 0 && stretches[i - 1].to + slack >= piece.from {
            stretches[i - 1].absorb(piece)
            i -= 1
        } else {
            stretches.insert(piece, at: i)
        }
        while i + 1 < stretches.count && stretches[i + 1].from <= stretches[i].to + slack { stretches[i].absorb(stretches.remove(at: i + 1)) }
        while i > 0 && stretches[i - 1].to + slack >= stretches[i].from { stretches[i - 1].absorb(stretches.remove(at: i)); i -= 1 }
        if stretches.count > Self.limit, let k = (0..<stretches.count - 1).min(by: { gap($0) < gap($1) }) {
            stretches[k].absorb(stretches.remove(at: k + 1))
        }
    }

    private func gap(_ k: Int) -> Int64 { stretches[k + 1].from - stretches[k].to }

    /// The largest hole between two stretches, if any: a stretch of the file inside its media that no packet came from.
    package var largestHole: Hole? {
        guard stretches.count > 1, let k = (0..<stretches.count - 1).max(by: { gap($0) < gap($1) }) else { return nil }
        return Hole(offset: stretches[k].to, bytes: gap(k), after: stretches[k].lastTime, resumes: stretches[k + 1].firstTime)
    }
}

extension ByteCoverage.Stretch {
    /// Widens this stretch over `other`.
    mutating func absorb(_ other: Self) {
        from = min(from, other.from)
        to = max(to, other.to)
        firstTime = [firstTime, other.firstTime].compactMap { $0 }.min()
        lastTime = [lastTime, other.lastTime].compactMap { $0 }.max()
    }
}

/// Why a stream or file holds less than its header declares: its data ends early (a file cut short), or a stretch
/// of it could not be read (zeroed or garbled bytes the demuxer skipped). Words for the warnings and errors.
package enum DataShortfall: Sendable, Equatable {
    /// The data ends at `end` seconds of the `expected`.
    case truncated(end: Double, expected: Double)
    /// The data holds `end` seconds of the `expected` (it goes on after the hole, to the file's end).
    case unreadable(ByteCoverage.Hole, end: Double, expected: Double)

    /// `unreadable` when the packets read left a hole in the file (`ByteCoverage.largestHole`), else `truncated`.
    package init(end: Double, expected: Double, hole: ByteCoverage.Hole?) {
        if let hole { self = .unreadable(hole, end: end, expected: expected) } else { self = .truncated(end: end, expected: expected) }
    }

    /// `the data ends at 6.00 s of 10.04 s: the file is truncated`; `the data holds 7.96 s of 10.04 s: an unreadable
    /// stretch at 3.96 s (262 kB without media)`; `frames`, a clause on frames the header declares, goes after the seconds.
    package func description(frames: String? = nil) -> String {
        let clause = frames.map { " (\($0))" } ?? ""
        switch self {
        case .truncated(let end, let expected):
            return String(format: "the data ends at %.2f s of %.2f s%@: the file is truncated", max(0, end), expected, clause)
        case .unreadable(let hole, let end, let expected):
            let kB = String(format: "%.0f kB without media", Double(hole.bytes) / 1000)
            let place: String
            if let after = hole.after, let resumes = hole.resumes, resumes - after > 0.1 {
                place = String(format: "a zeroed or unreadable stretch from %.2f s to %.2f s (%@)", after, resumes, kB)
            } else {
                place = String(format: "an unreadable stretch at %.2f s (%@)", hole.after ?? hole.resumes ?? 0, kB)
            }
            return String(format: "the data holds %.2f s of %.2f s%@: %@", max(0, end), expected, clause, place)
        }
    }
}
