import Foundation
import Testing
@testable import MediaExportCore

/// The fallback chain is one pure function of the route, how it failed, and the policies (issues 30 and 31).
@Suite struct FallbackChainTests {
    typealias Step = (policy: FallbackPolicy, route: ExportRoute, failure: RouteFailure, damageSeen: Bool, damaged: DamagePolicy, next: ExportRoute?)

    @Test(arguments: [
        // A whole input that cannot take a route goes on as the policy allows.
        (.auto, .transcode, .inputFault, false, .salvage, .remux),
        (.auto, .transcode, .skipped, false, .salvage, .remux),
        (.auto, .remux, .inputFault, false, .salvage, .copy),
        (.remux, .remux, .inputFault, false, .salvage, nil),
        (.copy, .transcode, .inputFault, false, .salvage, .copy),
        (.none, .transcode, .inputFault, false, .salvage, nil),
        (.auto, .copy, .inputFault, false, .salvage, nil),
        // Not the input's fault: the chain stops whatever the policies.
        (.auto, .transcode, .hostFault, false, .salvage, nil),
        (.auto, .remux, .hostFault, true, .copy, nil),
        // A damaged input: the salvage (a remux would copy the damage unseen, issue 43), then the copy.
        (.auto, .transcode, .damaged, false, .salvage, .salvage),
        (.auto, .remux, .damaged, true, .salvage, .salvage),
        (.auto, .remux, .skipped, true, .salvage, .salvage),
        (.auto, .salvage, .damaged, true, .salvage, .copy),
        (.auto, .salvage, .skipped, true, .salvage, .copy),
        (.remux, .salvage, .damaged, true, .salvage, nil),
        (.copy, .transcode, .damaged, false, .salvage, .salvage),
        (.none, .transcode, .damaged, false, .salvage, nil),
        // `--damaged copy`: straight to the byte copy; `--damaged fail`: nothing.
        (.auto, .transcode, .damaged, false, .copy, .copy),
        (.auto, .remux, .inputFault, true, .copy, .copy),
        (.auto, .transcode, .damaged, false, .fail, nil),
        (.auto, .remux, .inputFault, true, .fail, nil),
    ] as [Step])
    func next(step: Step) {
        #expect(step.policy.next(after: step.route, failure: step.failure, damageSeen: step.damageSeen, damaged: step.damaged) == step.next,
                "\(step)")
    }

    @Test func errorsAreSortedByWhatTheyMeanNotByTheirStage() {
        #expect(ExportError.truncated(path: "a", reason: "r").routeFailure == .damaged)
        #expect(ExportError.tooManyDecodeErrors(path: "a", count: 30, threshold: 25).routeFailure == .damaged)
        #expect(ExportError.ffmpeg(stage: .decode, path: "a", code: -1, message: "m").routeFailure == .inputFault)
        #expect(ExportError.verificationFailed(path: "a", checks: "c").routeFailure == .inputFault)
        #expect(ExportError.ffmpeg(stage: .write, path: "a", code: -1, message: "m").routeFailure == .hostFault)
        #expect(ExportError.outputExists(path: "a").routeFailure == .hostFault)
        #expect(ExportError.inputChanged(path: "a", reason: "r").routeFailure == .hostFault)
        #expect(ExportError.cancelled.routeFailure == .hostFault)
    }

    @Test func aRequestWrittenBeforeTheDamagePolicyStillReads() throws {
        let old = #"{"strict":false,"maxDecodeErrors":25,"stallTimeout":30}"#
        let policy = try JSONDecoder().decode(ErrorPolicy.self, from: Data(old.utf8))
        #expect(policy.damaged == .salvage)
    }
}
