import Foundation
import Testing
@testable import MediaExportCore

/// Which bytes packets came from tells a file cut short (its data ends) from one with a stretch that could not be
/// read (zeroed or garbled bytes skipped): the words of a short export.
@Suite struct ByteCoverageTests {
    /// Packets of `size` bytes one after the other from `from`, 40 ms each from `time`.
    static func read(_ coverage: inout ByteCoverage, from: Int64, count: Int, size: Int = 2_000, time: Double, stream: Int = 0) {
        for k in 0..<count {
            let t = time + Double(k) * 0.04
            coverage.note(stream: stream, offset: from + Int64(k * (size + 8)), size: size, start: t, end: t + 0.04)
        }
    }

    @Test func packetsReadInOrderLeaveNoHole() {
        var c = ByteCoverage()
        Self.read(&c, from: 1_000, count: 250, time: 0)
        #expect(c.stretches.count == 1 && c.largestHole == nil)
        // Read out of order (a non-interleaved file): the stretches join once the bytes between are read.
        var d = ByteCoverage()
        Self.read(&d, from: 600_000, count: 10, time: 0, stream: 1)
        Self.read(&d, from: 1_000, count: 10, time: 0)
        #expect(d.stretches.count == 2)
        Self.read(&d, from: 1_000 + 10 * 2_008, count: 289, time: 0.4)
        #expect(d.stretches.count == 1 && d.largestHole == nil, "\(d.stretches)")
    }

    @Test func aStretchSkippedIsAHoleWithItsTimes() {
        var c = ByteCoverage()
        Self.read(&c, from: 1_000, count: 100, time: 0)
        Self.read(&c, from: 1_000 + 100 * 2_008 + 100_000, count: 100, time: 4)
        let hole = c.largestHole
        #expect(hole?.bytes == 100_008 && hole?.after == 4 && hole?.resumes == 4, "\(String(describing: hole))")
        #expect(DataShortfall(end: 8, expected: 10, hole: hole).description()
                    == "the data holds 8.00 s of 10.00 s: an unreadable stretch at 4.00 s (100 kB without media)")
        let skipped = ByteCoverage.Hole(offset: 0, bytes: 100_000, after: 4, resumes: 6)
        #expect(DataShortfall(end: 8, expected: 10, hole: skipped).description(frames: "200 of the 250 frames the header declares")
                    == "the data holds 8.00 s of 10.00 s (200 of the 250 frames the header declares): a zeroed or unreadable stretch from 4.00 s to 6.00 s (100 kB without media)")
        #expect(DataShortfall(end: 6, expected: 10, hole: nil).description() == "the data ends at 6.00 s of 10.00 s: the file is truncated")
    }

    /// The MP3 demuxer reads zeroed bytes into the packet before its next frame: an audio packet far larger than its
    /// duration holds at the declared bit rate counts for that much only, the rest is a hole.
    @Test func anAudioPacketFarOverItsBitRateHoldsAHole() {
        var audio = SourceStream.aac(0)
        audio.bitRate = 128_000
        var c = ByteCoverage(audioOf: .make([audio]))
        Self.read(&c, from: 0, count: 100, size: 640, time: 0)
        c.note(stream: 0, offset: 100 * 648, size: 50_000, start: 4, end: 4.04)
        Self.read(&c, from: 100 * 648 + 50_000, count: 100, size: 640, time: 4.04)
        #expect(c.largestHole.map { $0.bytes > 40_000 && $0.after == 4.04 } == true, "\(c.stretches)")
        // Without a bit rate (or for video) the packet is its bytes.
        var plain = ByteCoverage()
        Self.read(&plain, from: 0, count: 100, size: 640, time: 0)
        plain.note(stream: 0, offset: 100 * 648, size: 50_000, start: 4, end: 4.04)
        #expect(plain.largestHole == nil)
    }
}
