import Testing
@testable import MediaExportCore

/// Frames a header declares against frames the data holds, and the one truncation rule (issue 29, item 4).
@Suite struct VerificationDeclaredFramesTests {
    @Test("7 of 750 frames gone: 7 missing, 29.72 s held, named against the header")
    func fewFramesLost() {
        let frames = DeclaredFrames(declared: 750, held: 743, declaredSeconds: 30)
        #expect(frames.missing == 7)
        #expect(abs(frames.heldSeconds - 29.72) < 1e-9)
        #expect(frames.clause == "743 of the 750 frames the header declares")
        #expect(!SourceInfo.isTruncated(end: frames.heldSeconds, of: 30))
    }

    @Test("Half the declared frames gone is a truncation; more frames than declared is nothing missing")
    func halfLostIsTruncated() {
        let frames = DeclaredFrames(declared: 750, held: 380, declaredSeconds: 30)
        #expect(SourceInfo.isTruncated(end: frames.heldSeconds, of: 30))
        let more = DeclaredFrames(declared: 750, held: 760, declaredSeconds: 30)
        #expect(more.missing == 0 && more.heldSeconds == 30)
    }

    @Test("Only AVI declares frame counts apart from its index")
    func onlyAVI() {
        #expect(SourceInfo(path: "x.avi", formatName: "avi", streams: []).declaresFrameCounts)
        #expect(!SourceInfo(path: "x.mp4", formatName: "mov,mp4,m4a,3gp,3g2,mj2", streams: []).declaresFrameCounts)
    }
}
