import Foundation

/// A value that lives behind its own lock and is reached only through `withLock` (like swift-nio's
/// `NIOLockedValueBox`): no unlocked variable can sit beside the lock.
///
/// Built on `NSLock` (a pthread mutex) rather than the standard library's `Mutex`: on Linux `Mutex` waits with raw
/// `futex` calls that ThreadSanitizer cannot see, so it reported every access made under one as a data race
/// (`scripts/stress.sh` found 18 such reports in 150 runs).
package final class LockedBox<Value> {
    private let lock = NSLock()
    private var value: Value

    /// Boxes `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock.
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Sendable where the value is: every access holds `lock`, but what leaves `withLock` may be used on any thread.
extension LockedBox: @unchecked Sendable where Value: Sendable {}
