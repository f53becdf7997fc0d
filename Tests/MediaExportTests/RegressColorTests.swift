import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// `regress` measures the outputs' colour and compares it exactly with the baseline; a baseline made before colour
/// was measured still loads and is not failed on what it does not record.
@Suite struct RegressColorTests {
    typealias Color = MediaExportCore.Measurement.Color

    /// A measurement of an SDR 1080p transcode, as a baseline would hold it.
    static func measurement(color: Color?) -> MediaExportCore.Measurement {
        MediaExportCore.Measurement(container: "mov,mp4,m4a,3gp,3g2,mj2", codecs: ["h264"], videoProfile: "High", width: 1920,
                                    height: 1080, pixelFormat: "yuv420p", frameCount: 30, duration: 1, frameDuration: 1.0 / 30,
                                    rotation: 0, timestampsIncreasing: true, size: 100_000, route: "transcode", color: color)
    }

    static let sdr = Color(VideoColor(primaries: "bt709", transfer: "bt709", matrix: "bt709", range: "tv", bitDepth: 8,
                                      fieldOrder: .progressive))

    @Test("a measured colour spells out what is unspecified (unknown) and absent (none), so nil only means not recorded")
    func colourRecordsEveryField() {
        let c = Color(VideoColor(range: "tv", bitDepth: 8, fieldOrder: .tt))
        #expect(c == Color(hdr: .sdr, transfer: "unknown", primaries: "unknown", matrix: "unknown", range: "tv", bitDepth: 8,
                           fieldOrder: "tt", mastering: "none", contentLight: "none", dolbyVision: "none"))
        let dv = Color(VideoColor(transfer: "smpte2084", dolbyVision: DolbyVision(profile: 8, level: 6, compatibility: 1)))
        #expect(dv.hdr == .dolbyVision && dv.dolbyVision == "8.1, level 6" && dv.fieldOrder == "unknown")
    }

    @Test("a transfer that differs from the baseline fails, named color.transfer")
    func differentTransferFails() throws {
        var hdr = Self.sdr
        hdr.transfer = "smpte2084"
        let differences = BaselineComparison.differences(Self.measurement(color: hdr), Self.measurement(color: Self.sdr), .defaults)
        #expect(differences == [Difference(property: "color.transfer", expected: .string("bt709"), measured: .string("smpte2084"))])
        // Each colour field is compared, the HDR kind first (the headline when PQ became SDR).
        var pq = Color(VideoColor(primaries: "bt2020", transfer: "smpte2084", matrix: "bt2020nc", range: "tv", bitDepth: 10,
                                  fieldOrder: .progressive, contentLight: ContentLightLevel(maxCLL: 1000, maxFALL: 400)))
        let lost = BaselineComparison.differences(Self.measurement(color: Self.sdr), Self.measurement(color: pq), .defaults)
        #expect(lost.map(\.property) == ["color.hdr", "color.transfer", "color.primaries", "color.matrix", "color.bitDepth", "color.contentLight"])
        #expect(lost.first?.description == "color.hdr: baseline pq, actual sdr")
        pq.fieldOrder = "tt"
        let woven = BaselineComparison.differences(Self.measurement(color: Self.sdr), Self.measurement(color: pq), .defaults)
        #expect(woven.contains(Difference(property: "color.fieldOrder", expected: .string("tt"), measured: .string("progressive"))))
        // An output that lost its video is "none" for each recorded field.
        let gone = BaselineComparison.differences(Self.measurement(color: nil), Self.measurement(color: Self.sdr), .defaults)
        #expect(gone.first == Difference(property: "color.hdr", expected: .string("sdr"), measured: .null))
    }

    @Test("a baseline without the colour, or without one of its fields, is not failed on it")
    func missingBaselineFieldsAreSkipped() throws {
        var hdr = Self.sdr
        hdr.transfer = "smpte2084"; hdr.hdr = .pq
        let actual = Self.measurement(color: hdr)
        #expect(BaselineComparison.differences(actual, Self.measurement(color: nil), .defaults).isEmpty)
        var partial = Self.sdr
        partial.transfer = nil; partial.hdr = nil
        #expect(BaselineComparison.differences(actual, Self.measurement(color: partial), .defaults).isEmpty)
        partial.primaries = "bt2020"
        #expect(BaselineComparison.differences(actual, Self.measurement(color: partial), .defaults).map(\.property) == ["color.primaries"])
    }

    @Test("a baseline made before colour was measured (the committed one, its colour taken out) loads, and its entries pass with a colour measured")
    func oldBaselineLoadsAndPasses() throws {
        var baseline = try Baseline.load(TestSupport.fixture("regress-baseline.json"))
        for key in baseline.entries.keys where baseline.entries[key]?.measurement != nil {
            baseline.entries[key]?.measurement?.color = nil
        }
        let entries = baseline.entries.values.compactMap(\.measurement)
        #expect(!entries.isEmpty)
        #expect(entries.allSatisfy { $0.color == nil })
        for base in entries {
            var actual = base
            actual.color = Self.sdr
            #expect(BaselineComparison.differences(actual, base, .defaults).isEmpty)
        }
        // Refreshing it records the colour, and says so (the comparison alone would call it unchanged).
        var refreshed = baseline
        for key in refreshed.entries.keys where refreshed.entries[key]?.measurement != nil {
            refreshed.entries[key]?.measurement?.color = Self.sdr
        }
        let changes = RegressRunner.changes(from: baseline, to: refreshed)
        #expect(changes.count == entries.count && changes.allSatisfy { $0.hasSuffix(": colour now recorded") }, "\(changes)")
        #expect(RegressRunner.changes(from: refreshed, to: refreshed).isEmpty)
    }

    @Test("the measurer records the colour probe reports, HDR10 metadata included")
    func measurerRecordsColour() throws {
        let pq = TestSupport.fixture("hdr-pq.mp4")
        let m = try Measurer.measure(output: pq, source: pq, route: "copy")
        let c = try #require(m.color)
        #expect(c.hdr == .pq && c.transfer == "smpte2084" && c.primaries == "bt2020" && c.matrix == "bt2020nc")
        #expect(c.range == "tv" && c.bitDepth == 10 && c.fieldOrder == "progressive")
        #expect(c.mastering == "R(0.68,0.32) G(0.265,0.69) B(0.15,0.06) WP(0.3127,0.329) L(0.0001,1000)")
        #expect(c.contentLight == "MaxCLL 1000, MaxFALL 400")
        #expect(c.dolbyVision == "none")
        let ts = TestSupport.fixture("interlaced.ts")
        #expect(try Measurer.measure(output: ts, source: ts, route: "copy").color?.fieldOrder == "tt")
        let audio = TestSupport.fixture("audio.m4a")
        #expect(try Measurer.measure(output: audio, source: audio, route: "copy").color == nil)
    }

    @Test("regress end to end: a passthrough records the colour; an edited transfer fails, a baseline without colour passes")
    func regressToolComparesColour() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let baseline = dir.appendingPathComponent("baseline.json")
        // Beside the baseline: a sample's key is its path relative to the baseline's folder.
        let sample = dir.appendingPathComponent("hdr-hlg.mov").path
        try FileManager.default.copyItem(atPath: TestSupport.fixture("hdr-hlg.mov"), toPath: sample)
        let args = ["regress", sample, "--preset", "passthrough", "--baseline", baseline.path]
        let update = try TestSupport.tool(args + ["--update-baseline"])
        #expect(update.status == 0, "\(update.stdout)\(update.stderr)")
        let recorded = try #require(try Baseline.load(baseline.path).entries["hdr-hlg.mov|passthrough"]?.measurement?.color)
        #expect(recorded.transfer == "arib-std-b67" && recorded.hdr == .hlg && recorded.bitDepth == 10)

        func editColour(_ change: (inout [String: Any]) -> Void) throws {
            var json = try JSONSerialization.jsonObject(with: Data(contentsOf: baseline)) as! [String: Any]
            var entries = json["entries"] as! [String: Any]
            var entry = entries["hdr-hlg.mov|passthrough"] as! [String: Any]
            var m = entry["measurement"] as! [String: Any]
            change(&m)
            entry["measurement"] = m
            entries["hdr-hlg.mov|passthrough"] = entry
            json["entries"] = entries
            try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]).write(to: baseline)
        }
        try editColour { m in
            var color = m["color"] as! [String: Any]
            color["transfer"] = "bt709"
            m["color"] = color
        }
        let fail = try TestSupport.tool(args)
        #expect(fail.status == ExitStatus.regression)
        #expect(fail.stdout.contains("FAIL") && fail.stdout.contains("color.transfer: baseline bt709, actual arib-std-b67"), "\(fail.stdout)")
        try editColour { m in m["color"] = nil }
        let pass = try TestSupport.tool(args)
        #expect(pass.status == 0, "\(pass.stdout)\(pass.stderr)")
    }
}
