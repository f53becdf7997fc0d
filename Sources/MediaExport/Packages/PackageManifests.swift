import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// The package's manifests, written from the segments as they are (placeholder until the manifest writers land).
enum PackageManifests {
    static func write(_ encoded: [(LadderRung, ExportEvent.Completed)], plan: LadderPlan, into folder: PackageFolder) throws -> [PackagedRung] {
        []
    }

    static func validate(_ rungs: [PackagedRung], plan: LadderPlan, folder: PackageFolder) throws -> PackageValidation {
        PackageValidation(checks: 0, findings: [])
    }
}
