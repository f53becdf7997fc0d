internal import CFFmpeg

/// The flag that stops an export, shared by the exporting thread, FFmpeg's interrupt callback, a signal
/// handler's queue and the stall watchdog's timer. Every access is atomic (the shim's `cff_flag_*`), and the
/// memory lives as long as the last holder of this object, so a timer that fires late never touches freed memory.
///
/// Values: `running` (0), `cancelled` (1, by a caller: it always stands), `stalled` (2, by the watchdog:
/// it ends the current route only, and never replaces a cancellation).
package final class CancelFlag: @unchecked Sendable {
    static let running: Int32 = 0
    static let cancelled: Int32 = 1
    package static let stalled: Int32 = 2

    /// For FFmpeg's interrupt callback and the pipeline's polls (read with `cff_flag_load`).
    package let pointer: UnsafeMutablePointer<Int32>

    package init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: CancelFlag.running)
    }

    deinit { pointer.deallocate() }

    /// The current value.
    package var value: Int32 { cff_flag_load(pointer) }
    /// True once cancelled or stalled.
    package var isSet: Bool { value != CancelFlag.running }

    /// A caller's cancellation: overrides a stall, and nothing resets it.
    package func cancel() { cff_flag_store(pointer, CancelFlag.cancelled) }

    /// The watchdog's stall: set only while running, so a cancellation is never overwritten.
    @discardableResult
    package func markStalled() -> Bool { cff_flag_replace(pointer, CancelFlag.running, CancelFlag.stalled) != 0 }

    /// After a stalled route, the next fallback runs: clears a stall, never a cancellation.
    package func clearStall() { _ = cff_flag_replace(pointer, CancelFlag.stalled, CancelFlag.running) }
}

/// True when the cancel flag behind `pointer` is set (an atomic read).
func isCancelled(_ pointer: UnsafeMutablePointer<Int32>) -> Bool { cff_flag_load(pointer) != CancelFlag.running }
