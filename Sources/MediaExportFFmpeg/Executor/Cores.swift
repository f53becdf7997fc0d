internal import CFFmpegLog
import Foundation

/// The processor the exports run on.
package enum Cores {
    /// The cores this process may run on: `sched_getaffinity`'s set (`taskset`, a container's cpuset), else
    /// `activeProcessorCount` (which counts every online core, whatever the affinity).
    package static var available: Int {
        let affinity = Int(cff_affinity_cores())
        return affinity > 0 ? affinity : max(1, ProcessInfo.processInfo.activeProcessorCount)
    }
}
