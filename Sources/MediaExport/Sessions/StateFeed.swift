import Foundation
import MediaExportCore

/// The states of a session or a batch, one `AsyncStream` per observer (`ExportSession.states(updateInterval:)`,
/// `BatchRunner.states(updateInterval:)`). Each observer gets the state when it subscribes, every state
/// published with `force` (a change of status), others at most every `updateInterval` seconds, and the final state
/// before its sequence finishes.
final class StateFeed<Value: Sendable>: Sendable {
    private struct Observer {
        var continuation: AsyncStream<Value>.Continuation
        var interval: Double
        var last: ContinuousClock.Instant
    }
    private struct Observers {
        var current: Value
        var ended = false
        var nextID = 0
        var all: [Int: Observer] = [:]
    }
    private let observers: LockedBox<Observers>

    init(_ initial: Value) { observers = LockedBox(Observers(current: initial)) }

    /// A fresh sequence for one observer; it starts with the current state.
    func observe(updateInterval: Double) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1000))
        let id: Int? = observers.withLock { box in
            continuation.yield(box.current)
            guard !box.ended else { return nil }
            defer { box.nextID += 1 }
            box.all[box.nextID] = Observer(continuation: continuation, interval: max(0, updateInterval), last: .now)
            return box.nextID
        }
        // Finished outside the lock: finishing calls `onTermination`, which takes it.
        guard let id else { continuation.finish(); return stream }
        continuation.onTermination = { [weak self] _ in self?.observers.withLock { _ = $0.all.removeValue(forKey: id) } }
        return stream
    }

    /// `value` to every observer whose interval has passed, or to all when `force`d (a change of status).
    func publish(_ value: Value, force: Bool) {
        observers.withLock { box in
            guard !box.ended else { return }
            box.current = value
            let now = ContinuousClock.now
            for (id, observer) in box.all where force || now - observer.last >= .seconds(observer.interval) {
                // An observer that went away before its `onTermination` was set is let go here.
                if case .terminated = observer.continuation.yield(value) { box.all[id] = nil; continue }
                box.all[id]?.last = now
            }
        }
    }

    /// The end: `final` (if any) to every observer, then every sequence finishes; later observers get `final` alone.
    func end(with final: Value?) {
        let ending: [AsyncStream<Value>.Continuation] = observers.withLock { box in
            guard !box.ended else { return [] }
            box.ended = true
            if let final { box.current = final }
            let all = box.all.values.map(\.continuation)
            box.all = [:]
            if let final { for c in all { c.yield(final) } }
            return all
        }
        for c in ending { c.finish() }
    }
}
