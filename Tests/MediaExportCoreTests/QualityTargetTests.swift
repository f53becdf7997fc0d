import Foundation
import Testing
@testable import MediaExportCore

/// `--quality METRIC:TARGET` and preset `video.quality` (`QualityTarget`): what parses, what is refused and why.
@Suite struct QualityTargetTests {
    @Test("ssim:0.985, PSNR:42 and vmaf:95 parse; the metric's name in any case")
    func parses() throws {
        #expect(try QualityTarget(parsing: "ssim:0.985") == QualityTarget(metric: .ssim, target: 0.985))
        #expect(try QualityTarget(parsing: "PSNR:42") == QualityTarget(metric: .psnr, target: 42))
        #expect(try QualityTarget(parsing: "vmaf:95").metric == .vmaf)
        #expect(try QualityTarget(parsing: "ssim:0.985").text == "ssim:0.985")
        #expect(try QualityTarget(parsing: "psnr:42").text == "psnr:42")
    }

    @Test("malformed text, an unknown metric and targets out of range are refused, each with its reason",
          arguments: [("ssim", QualityTarget.Problem.malformed("ssim")), ("ssim:", .malformed("ssim:")), ("ssim:abc", .malformed("ssim:abc")),
                      ("ssim:0.9:1", .malformed("ssim:0.9:1")), ("ssim:nan", .malformed("ssim:nan")), ("butter:3", .unknownMetric("butter")),
                      ("ssim:2", .outOfRange(.ssim, 2)), ("ssim:1", .outOfRange(.ssim, 1)), ("ssim:0.4", .outOfRange(.ssim, 0.4)),
                      ("psnr:19", .outOfRange(.psnr, 19)), ("psnr:81", .outOfRange(.psnr, 81)), ("vmaf:101", .outOfRange(.vmaf, 101))])
    func refused(text: String, problem: QualityTarget.Problem) {
        #expect(throws: problem) { try QualityTarget(parsing: text) }
    }

    @Test("the reasons say what is accepted")
    func reasons() {
        #expect(QualityTarget.Problem.outOfRange(.ssim, 2).reason == "ssim target 2 is outside 0.5 ≤ ssim < 1")
        #expect(QualityTarget.Problem.outOfRange(.psnr, 19.5).reason == "psnr target 19.5 is outside 20…80 dB")
        #expect(QualityTarget.Problem.unknownMetric("butter").reason.contains("ssim, psnr or vmaf"))
        #expect(QualityTarget.Problem.malformed("x").reason.contains("ssim:0.985"))
    }

    @Test("CRF bounds: within the encoder's scale, minCRF at most maxCRF")
    func crfBounds() {
        let x264 = 0...51, svt = 0...63
        #expect(QualityTarget(metric: .ssim, target: 0.97, minCRF: 14, maxCRF: 32).problem(crfRange: x264) == nil)
        #expect(QualityTarget(metric: .ssim, target: 0.97).problem(crfRange: x264) == nil)
        #expect(QualityTarget(metric: .ssim, target: 0.97, minCRF: 60).problem(crfRange: x264) == .crfBounds(min: 60, max: nil, scale: x264))
        #expect(QualityTarget(metric: .ssim, target: 0.97, minCRF: 60).problem(crfRange: svt) == nil)
        #expect(QualityTarget(metric: .psnr, target: 40, minCRF: 30, maxCRF: 20).problem(crfRange: x264) != nil)
        #expect(QualityTarget(metric: .ssim, target: 1.5).problem(crfRange: x264) == .outOfRange(.ssim, 1.5))
    }

    @Test("a preset's quality round-trips through JSON")
    func roundTrip() throws {
        let target = QualityTarget(metric: .ssim, target: 0.985, minCRF: 14, maxCRF: 32)
        let data = try JSONEncoder().encode(target)
        #expect(try JSONDecoder().decode(QualityTarget.self, from: data) == target)
        let written = try JSONDecoder().decode(QualityTarget.self, from: Data(#"{"metric": "psnr", "target": 42}"#.utf8))
        #expect(written == QualityTarget(metric: .psnr, target: 42))
    }
}
