import Foundation
import Synchronization
import MediaExportCore
import MediaExportFFmpeg

/// Stops an export that makes no progress: if `touch()` is not called for `timeout` seconds, it marks the
/// session's cancel flag `stalled` (only while it is running: a user's cancellation is never overwritten),
/// which FFmpeg's interrupt callback and the pipeline loop both see.
///
/// Idle time is wall time in which the process ran: a tick of its own timer that comes far too late (past
/// `lateTick(interval:)`) means the whole process was not running — stopped (SIGSTOP, Ctrl-Z), in a frozen
/// cgroup, a paused VM, or starved of CPU — and restarts the idle clock. A CPU-time clock would not do: a real
/// hang blocked in a read burns no CPU and would never be caught. A late tick can only postpone a stall, never
/// make one.
///
/// A stall the export thread does not come back from — the timeout again (at least `stuckGrace` seconds) after the
/// stall, no progress and no new route (the session touches the watchdog when it falls back) — means that thread is
/// inside a library call that does not return: `stuck` is called, once, on the timer's queue.
final class StallWatchdog {
    /// The time of the last progress, of the last tick and of the stall (uptime nanoseconds; 0: none); shared with the
    /// timer's handler (no reference back to the watchdog).
    private final class Clocks: Sendable {
        let progress = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)
        let tick = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)
        let stalled = Atomic<UInt64>(0)
        let stuckCalled = Atomic<Bool>(false)
    }
    /// The fewest seconds after a stall the export thread has to come back before it is taken as stuck.
    static let stuckGrace = 5.0
    private let last = Clocks()
    private let timer: DispatchSourceTimer

    /// `token` is held strongly by the timer's handler: it outlives any late firing.
    init(timeout: Double, token: CancelToken, stuck: @escaping @Sendable () -> Void = {}) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        let interval = max(0.05, min(1.0, timeout / 4))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        let last = self.last
        timer.setEventHandler {
            guard timeout > 0 else { return }
            // The last progress is read before the clock: a `touch()` in between would otherwise put it after
            // "now" (this subtraction once trapped on unsigned underflow in the middle of an export).
            let then = DispatchTime(uptimeNanoseconds: last.progress.load(ordering: .acquiring))
            let now = DispatchTime.now()
            let previous = DispatchTime(uptimeNanoseconds: last.tick.exchange(now.uptimeNanoseconds, ordering: .relaxed))
            if StallWatchdog.idleSeconds(now: now, since: previous) > StallWatchdog.lateTick(interval: interval) {
                last.progress.store(now.uptimeNanoseconds, ordering: .releasing)
            } else if StallWatchdog.idleSeconds(now: now, since: then) >= timeout {
                if token.markStalled() {
                    last.stalled.store(now.uptimeNanoseconds, ordering: .relaxed)
                } else if StallWatchdog.isStuck(last, token: token, now: now, grace: max(StallWatchdog.stuckGrace, timeout)) {
                    stuck()
                }
            }
        }
        timer.resume()
    }

    /// The longest gap between two ticks of a process that was running: two intervals and a quarter second for a
    /// busy machine's scheduling. A longer gap restarts the idle clock.
    static func lateTick(interval: Double) -> Double { 2 * interval + 0.25 }

    /// The route stalled `grace` seconds ago or more and is stalled still (no progress since, as the caller checked),
    /// and `stuck` was not called yet.
    private static func isStuck(_ last: Clocks, token: CancelToken, now: DispatchTime, grace: Double) -> Bool {
        let stalled = last.stalled.load(ordering: .relaxed)
        guard token.isStalled, stalled != 0,
              idleSeconds(now: now, since: DispatchTime(uptimeNanoseconds: stalled)) >= grace else { return false }
        return !last.stuckCalled.exchange(true, ordering: .relaxed)
    }

    /// Seconds from `since` to `now`; 0 when `since` is later (never traps).
    static func idleSeconds(now: DispatchTime, since: DispatchTime) -> Double {
        let a = now.uptimeNanoseconds, b = since.uptimeNanoseconds
        return a > b ? Double(a - b) / 1e9 : 0
    }

    /// Progress happened.
    func touch() { last.progress.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing) }

    /// Ends the watchdog; its handler never runs again.
    func stop() {
        timer.setEventHandler(handler: nil)
        timer.cancel()
    }
}
