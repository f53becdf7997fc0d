import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// The byte copy, an attempt's last route (`ExportAttempt`): the resource's bytes under the requested name, checked.
extension ExportAttempt {
    /// The last route: the resource's bytes under the requested name with the resource's own extension.
    func byteCopy(report: VersionReport) throws -> ExportEvent.Completed {
        let source = run.selection.report.resource
        let ext = PathName.pathExtension(source).lowercased()
        let t = try session.makeTarget(try request.byteCopyPath(extension: ext), selection: run.selection, anyExtension: true)
        target = t
        if let limit = request.sizeLimit, run.snapshot.size > limit {
            throw ExportError.sizeLimitExceeded(path: t.finalPath, limit: limit, reason: "a byte copy of the \(run.snapshot.size)-byte source cannot be made smaller")
        }
        if request.preset.metadataLevel != .all {
            throw ExportError.noUsableStreams(path: source, reason: "a byte copy keeps every tag: it cannot drop metadata (--metadata \(request.preset.metadataLevel.rawValue))")
        }
        session.emit(.started(.init(input: request.input, output: t.finalPath, preset: request.preset.name, container: ext,
                                    duration: nil, timeRange: nil, streams: [], notes: [copyNote(source)], version: report)))
        let watchdog = run.watchdog
        let sha = try ByteCopy.copy(source: source, to: t, cancel: token, activity: { watchdog.touch() })
        try run.snapshot.verify()
        let verification = try verifyCopy(t, sha256: sha)
        try t.commit()
        var completed = describe(output: t.finalPath, muxed: false, skipped: 0,
                                 notes: request.timeRange != nil ? ["time range not applied by a byte copy"] : [], report: report)
        completed.sha256 = sha
        completed.verification = verification
        // The plan's own choice (the file already fits) is the started record's note; a copy the chain fell back to is a warning.
        var warnings = isStart ? [] : ["delivered as a byte copy of \(PathName.lastComponent(source)): no stream was transcoded or remuxed"]
        request.byteCopyPlacementWarning(extension: ext).map { warnings.append($0) }
        // The copy holds the damage an earlier route found: said, with what that route counted.
        if let damage = run.damage, copiedPartial() == nil { warnings.append("the copy holds the damaged data: \(damage)") }
        if request.timeRange != nil { warnings.append("time range not applied by a byte copy") }
        if let line = Accounting.versionWarning(report) { warnings.append(line) }
        if let partial = copiedPartial() {
            completed.duration = partial.duration
            completed.partial = partial
            warnings.insert(partial.warning, at: 0)
        }
        completed.warnings = warnings
        return completed
    }

    /// The started record's note of a byte copy: the plan's choice for a file that already fits, or a fallback's.
    func copyNote(_ source: String) -> String {
        isStart ? "byte copy of \(source): it already fits the preset, so nothing is transcoded or remuxed" : "byte copy of \(source)"
    }

    /// What a byte copy of a damaged input holds: where its data ends (its packets read, none decoded), when that is
    /// well before the length its header declares. nil for a whole file, or one that does not open as media.
    func copiedPartial() -> ExportEvent.Partial? {
        guard let source = try? run.source(cancel: token) else { return nil }
        if source.info.dataEnd == nil { try? source.measureDataEnd() }
        guard let cause = source.info.truncation, let end = source.info.dataEnd else { return nil }
        return .init(duration: end, declaredDuration: source.info.duration, cause: cause)
    }

    /// A byte copy's verification. `ByteCopy` read the copy back and compared its hash (`copyMismatch` otherwise);
    /// the rest is a look at the header alone first; formats whose streams only show in their packets (MPEG-PS) are
    /// then read as any input is.
    func verifyCopy(_ t: OutputTarget, sha256 sha: String) throws -> Verification {
        let sourceInfo = try? run.source(cancel: token).info
        let verifyBegan = Date()
        func check(decoding: Bool) -> Verification {
            let facts = try? t.withReadablePath { try OutputInspector.facts(path: $0, cancel: token, scanPackets: false, decodeFirstFrames: decoding) }
            return OutputVerifier.verifyCopy(source: sourceInfo, sourceSize: run.snapshot.size, sourceSHA256: sha, outputSHA256: sha,
                                             facts: facts ?? OutputFacts(formatName: "", streams: [], size: FileSystem.size(t.temporaryPath) ?? -1))
        }
        var verification = check(decoding: false)
        if !verification.passed { verification = check(decoding: true) }
        verification.seconds = Date().timeIntervalSince(verifyBegan)
        if !verification.passed { throw ExportError.verificationFailed(path: t.finalPath, checks: verification.failureSummary) }
        return verification
    }
}
