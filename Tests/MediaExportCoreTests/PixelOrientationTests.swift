import Foundation
import Testing
@testable import MediaExportCore

/// A rotation into a container that keeps no display matrix (`ContainerKeeps.displayMatrix`), planned without media:
/// a transcode turns the pixels (`PixelOrientation`), a stream copy that would lose it is refused; RGB sources are
/// converted by the BT.709 matrix; subtitles alone are no export.
@Suite struct PixelOrientationTests {
    static func plan(_ source: SourceInfo, _ preset: Preset, _ container: Container, route: ExportRoute = .transcode,
                     edits: EditSidecar? = nil) throws -> ExportPlan {
        try ExportPlanner.plan(source: source, preset: preset, route: route, container: container, edits: edits, range: nil)
    }

    static func video(_ plan: ExportPlan) -> VideoPlan? {
        if case .transcodeVideo(let v) = plan.streams[0].action { return v }
        return nil
    }

    /// Every rotation and flip an edit can compose with a source's rotation gives the orientation the matrix shows,
    /// and filters that move a coded corner where the matrix does.
    @Test(arguments: [0, 90, 180, 270])
    func everyOrientationFromItsMatrix(source cw: Int) throws {
        for extra in [0, 90, 180, 270] {
            for flip in [nil, EditSidecar.Flip.horizontal, .vertical] {
                var edits = EditSidecar()
                edits.rotate = extra; edits.flip = flip
                let matrix = VideoGeometry.displayMatrix(sourceClockwise: cw, edits: edits) ?? DisplayMatrix.rotation(degrees: Double(cw))
                let o = PixelOrientation(matrix: matrix)
                let turn = Rotation.normalized(cw + extra)
                // A vertical flip is a half turn mirrored left to right.
                let expected = flip == .vertical ? (Rotation.normalized(turn + 180), true) : (turn, flip == .horizontal)
                #expect((o?.clockwise ?? 0) == expected.0 && (o?.mirrored ?? false) == expected.1, "cw \(cw) + \(extra) flip \(String(describing: flip))")
                #expect(o?.filters.isEmpty ?? true == (expected.0 == 0 && !expected.1))
            }
        }
    }

    @Test func theEightFilterChains() {
        let all = [0, 90, 180, 270].flatMap { cw in [false, true].map { PixelOrientation(clockwise: cw, mirrored: $0).filters.joined(separator: ",") } }
        #expect(all == ["", "hflip", "transpose=clock", "transpose=cclock_flip", "hflip,vflip", "vflip", "transpose=cclock", "transpose=clock_flip"])
        #expect(PixelOrientation(matrix: DisplayMatrix.rotation(degrees: 0)) == nil)
        #expect(PixelOrientation(matrix: nil) == nil)
    }

    @Test func aRotatedClipIntoMatroskaIsTurnedInThePixelsAtItsDisplayedSize() throws {
        let source = SourceInfo.make([.h264(0, 640, 360, rotation: 90), .aac(1)])
        for container in [Container.mkv, .webm] {
            let preset = container == .webm ? Presets.named("av1-1280x720") : Presets.highest
            let plan = try Self.plan(source, preset, container)
            let v = try #require(Self.video(plan))
            #expect(v.pixelOrientation == PixelOrientation(clockwise: 90, mirrored: false))
            #expect(v.width == 360 && v.height == 640 && plan.streams[0].width == 360)
            #expect(PixelOrientation(matrix: v.displayMatrix) == nil, "no matrix is written")
            #expect(plan.streams[0].changes.contains(StreamChange(kind: .rotate, from: "90°", to: ".\(container.rawValue)")))
            #expect(plan.notes.contains("stream #0 video: rotate 90° into the pixels: .\(container.rawValue) has no display matrix"), "\(plan.notes)")
            let graph = try #require(PictureProcessing.filterGraph(v, sourceWidth: 640, sourceHeight: 360, flaggedInterlaced: false))
            #expect(graph.hasPrefix("scale=640:360:flags=bicubic,transpose=clock,format="), "\(graph)")
        }
    }

    @Test func aBigRotatedClipFitsThePresetsBoxAsDisplayed() throws {
        let plan = try Self.plan(.portraitRotated, Presets.named("av1-1280x720"), .webm)
        let v = try #require(Self.video(plan))
        #expect(v.width == 720 && v.height == 1280 && v.scaledSize == PixelSize(width: 1280, height: 720))
    }

    @Test func intoMP4TheMatrixIsKeptAndThePixelsUntouched() throws {
        let plan = try Self.plan(.portraitRotated, Presets.highest, .mp4)
        let v = try #require(Self.video(plan))
        #expect(v.pixelOrientation == nil && v.width == 1920 && v.height == 1080)
        #expect(!plan.streams[0].changes.contains { $0.kind == .rotate })
        #expect(PictureProcessing.filterGraph(v, sourceWidth: 1920, sourceHeight: 1080, flaggedInterlaced: false) == nil)
    }

    @Test func aPassthroughThatWouldLoseTheRotationIsRefusedNamingTheContainersThatKeepIt() throws {
        let plan = try Self.plan(.portraitRotated, Presets.passthrough, .mkv, route: .remux)
        #expect(!plan.isPossible && (plan.refusal != nil))
        let reason = try #require(plan.impossible)
        #expect(reason.contains(".mkv keeps no display matrix") && reason.contains(".mp4, .mov, .m4v keep it"), "\(reason)")
        #expect(try Self.plan(.landscape1080, Presets.passthrough, .mkv, route: .remux).isPossible)
    }

    @Test func theRemuxFallbackIntoMatroskaIsImpossibleButNoRefusal() throws {
        let plan = try Self.plan(.portraitRotated, Presets.highest, .mkv, route: .remux)
        #expect(!plan.isPossible && plan.refusal == nil, "the transcode failed on the input: the byte copy may follow")
    }

    @Test func anInputFaultIsNoRefusal() throws {
        #expect(try Self.plan(.noDecodable, Presets.highest, .mp4).refusal == nil)
    }

    @Test(arguments: ["gbrp", "rgb24", "argb", "bgra", "pal8"])
    func anRGBSourceIsConvertedByBT709AndTaggedSo(pixelFormat: String) throws {
        for preset in [Presets.highest, Presets.named("av1-1280x720")] {
            let plan = try Self.plan(.make([.h264(0, 320, 240, pixelFormat: pixelFormat)]), preset, .mp4)
            let v = try #require(Self.video(plan))
            #expect(v.yuvMatrix == "bt709")
            #expect(v.outputColor == VideoColor(primaries: "bt709", transfer: "bt709", matrix: "bt709", range: "tv"))
            let graph = try #require(PictureProcessing.filterGraph(v, sourceWidth: 320, sourceHeight: 240, flaggedInterlaced: false))
            #expect(graph.contains("out_color_matrix=bt709:out_range=tv"), "\(graph)")
        }
        let yuv = try #require(Self.video(try Self.plan(.make([.h264(0, 320, 240)]), Presets.highest, .mp4)))
        #expect(yuv.yuvMatrix == nil && yuv.outputColor == nil)
    }

    @Test func subtitlesAloneAreNoExport() throws {
        let sub = SourceStream(index: 1, kind: .subtitle, codec: "subrip", fitsIn: [.mkv, .webm])
        let plan = try Self.plan(.make([.h264(0, 320, 240), sub]), Presets.m4a, .webm)
        #expect(!plan.isPossible && (plan.refusal != nil))
        #expect(plan.impossible?.contains("subtitles alone are no export") == true, "\(plan.impossible ?? "")")
    }
}
