internal import CFFmpeg

/// The token that stops an export: one reference-counted atomic shared by the exporting thread, FFmpeg's
/// interrupt callbacks (each demuxer and muxer retains the token for as long as its context lives), a signal
/// handler's queue and the stall watchdog (which retains it too, so a timer that fires late never touches freed
/// memory).
///
/// States: `running` → `cancelled` (a caller: it always stands) or `running` → `stalled` (the watchdog, by
/// compare-and-swap from `running` only, so a stall never overwrites a cancel). After a stalled route the session
/// moves `stalled` → `running` (again a compare-and-swap: a cancel that came in between stands).
///
/// `@unchecked Sendable`: the state is a C `int` that FFmpeg's callbacks read through a raw pointer, so it cannot
/// be a Swift `Atomic`; every access, from Swift and C alike, is a sequentially consistent `__atomic` builtin
/// (`cff_flag_*` in the shim, `guard_interrupted` in input_guard.c), and the memory is freed only in `deinit`,
/// after the last holder let go.
package final class CancelToken: @unchecked Sendable {
    package static let running: Int32 = 0
    package static let cancelled: Int32 = 1
    package static let stalled: Int32 = 2

    /// For FFmpeg's interrupt callbacks (read with `cff_flag_load`); valid while this token lives.
    let pointer: UnsafeMutablePointer<Int32>

    package init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: CancelToken.running)
    }

    deinit { pointer.deallocate() }

    /// The current state.
    package var value: Int32 { cff_flag_load(pointer) }
    /// True once cancelled or stalled.
    package var isSet: Bool { value != CancelToken.running }
    /// True when the watchdog stopped the route (and no caller cancelled).
    package var isStalled: Bool { value == CancelToken.stalled }

    /// A caller's cancellation: overrides a stall, and nothing resets it.
    package func cancel() { cff_flag_store(pointer, CancelToken.cancelled) }

    /// The watchdog's stall: set only while running, so a cancellation is never overwritten.
    @discardableResult
    package func markStalled() -> Bool { cff_flag_replace(pointer, CancelToken.running, CancelToken.stalled) != 0 }

    /// After a stalled route, the next fallback runs: clears a stall, never a cancellation.
    package func clearStall() { _ = cff_flag_replace(pointer, CancelToken.stalled, CancelToken.running) }
}
