internal import CFFmpeg
import Foundation
import MediaExportCore

/// A video decoder on a thread of its own, so that decoding the next frames overlaps scaling and encoding the
/// current one (as FFmpeg 7's scheduler runs its decoders; FFmpeg 5.1's CLI does all of it on one thread).
///
/// The executor's thread sends packets (moved in, never copied) into a bounded inbox; the thread decodes them in
/// order, exactly as `StreamDecoder`'s tolerant calls would on the executor's thread (send one packet, receive
/// until the decoder wants more; a corrupt packet or frame is reported, not thrown), and puts what comes out —
/// reference-counted frames, damage reports — in a bounded outbox. The frames, their order and what is reported
/// are the same as without the thread, so the output is too (tested bit for bit).
///
/// Memory stays bounded: at most `inboxLimit` packets wait to be decoded and `outboxLimit` frames to be encoded.
/// The executor never blocks on a full inbox: `receive` waits for output instead (the thread then has packets to
/// decode), so the two can never wait on each other.
///
/// Every wait for the thread is bounded: `receive` wakes every `pollInterval` and gives up with `cancelled` once the
/// export's token is set (a cancellation, or the stall watchdog: a decoder that never returns is a stall), and the
/// owner's end waits at most `stopLimit` for the thread to leave the decoder, then leaves it there (the thread holds
/// what it uses: the decoder is never freed under it, and is not freed at all).
final class DecodeThread {
    /// What the thread hands back, in decoding order.
    enum Output {
        /// A decoded frame, with the input clock as it read when its packet was sent.
        case frame(Frame, InputClock.Reading?)
        /// The decoder rejected a packet or reported corrupt data.
        case damaged
        /// Nothing ready yet: send more input (only while input is still coming).
        case needsInput
        /// End of stream has been decoded through: nothing more will come.
        case drained
    }

    /// Packets waiting for the decoder: enough to keep it busy while the executor encodes.
    static let inboxLimit = 4
    /// Decoded frames waiting for the encoder: one being encoded while the next decodes is what overlaps.
    static let outboxLimit = 2
    /// Seconds between two looks at the cancel token while waiting for the thread.
    static let pollInterval = 0.1
    /// Seconds the owner waits for the thread to stop before leaving it.
    static let stopLimit = 5.0

    private let shared: Shared

    /// Starts the thread; it owns `decoder` from now on (nothing else may call it). `cancel` ends a wait for it.
    init(decoder: StreamDecoder, cancel: CancelToken = CancelToken()) {
        shared = Shared(decoder: decoder, cancel: cancel)
        let shared = shared
        let thread = Thread { shared.work() }
        thread.name = "mediaexport-decode"
        // FFmpeg's decoders can use deep stacks (FFmpeg's own threads get the system's 8 MiB); only what is touched
        // counts toward memory.
        thread.stackSize = 8 << 20
        thread.start()
    }

    deinit { shared.stop() }

    /// Queues a packet to decode, taking its data (the caller's packet is left empty), with the input clock's
    /// reading at this point (what a frame placed against it is compared with, as without the thread).
    func send(_ packet: Packet, clock: InputClock.Reading?) {
        let job = Packet()
        av_packet_move_ref(job.pointer, packet.pointer)
        shared.add(.packet(job, clock))
    }

    /// Queues the end of stream: the decoder is drained after the packets before it.
    func sendEndOfStream(clock: InputClock.Reading?) { shared.add(.end(clock)) }

    /// The next output. Waits for the thread only when it must: the end was sent, or the inbox is full (the executor
    /// must not read further ahead). Otherwise, with nothing decoded yet, it asks for more input.
    func receive() throws -> Output { try shared.next() }

    /// What both threads use, under one lock. The thread's closure and the owner each hold it.
    private final class Shared: @unchecked Sendable {
        enum Job {
            case packet(Packet, InputClock.Reading?)
            case end(InputClock.Reading?)
        }

        enum Item {
            case frame(Frame, InputClock.Reading?)
            case damaged
            case drained
            case failed(any Error)
        }

        /// Only the thread calls it once started.
        private let decoder: StreamDecoder
        private let cancel: CancelToken
        private let condition = NSCondition()
        // Guarded by `condition`.
        private var inbox: [Job] = []
        private var outbox: [Item] = []
        private var stopping = false
        private var exited = false
        private var endSent = false

        init(decoder: StreamDecoder, cancel: CancelToken) { (self.decoder, self.cancel) = (decoder, cancel) }

        func add(_ job: Job) {
            condition.lock()
            if case .end = job { endSent = true }
            inbox.append(job)
            condition.broadcast()
            condition.unlock()
        }

        func next() throws -> Output {
            condition.lock()
            defer { condition.unlock() }
            while outbox.isEmpty {
                if !endSent && inbox.count < DecodeThread.inboxLimit { return .needsInput }
                if cancel.isSet { throw ExportError.cancelled }
                _ = condition.wait(until: Date(timeIntervalSinceNow: DecodeThread.pollInterval))
            }
            switch outbox[0] {
            case .frame(let frame, let clock):
                outbox.removeFirst()
                condition.broadcast()  // room in the outbox
                return .frame(frame, clock)
            case .damaged:
                outbox.removeFirst()
                condition.broadcast()
                return .damaged
            case .drained:
                return .drained  // stays: nothing more comes
            case .failed(let error):
                throw error  // stays: the stage is broken
            }
        }

        /// Tells the thread to stop and waits until it has (it may be inside one decode call; that returns), at most
        /// `stopLimit`: a thread still inside the decoder then is left there, with what it holds.
        func stop() {
            condition.lock()
            stopping = true
            condition.broadcast()
            let limit = Date(timeIntervalSinceNow: DecodeThread.stopLimit)
            while !exited && condition.wait(until: limit) {}
            inbox.removeAll()
            outbox.removeAll()
            condition.unlock()
        }

        func work() {
            defer {
                condition.lock()
                exited = true
                condition.broadcast()
                condition.unlock()
            }
            while true {
                condition.lock()
                while inbox.isEmpty && !stopping { condition.wait() }
                if stopping { condition.unlock(); return }
                let job = inbox.removeFirst()
                condition.broadcast()  // room in the inbox: a waiting executor may read on
                condition.unlock()
                do {
                    switch job {
                    case .packet(let packet, let clock):
                        // A rejected packet is reported, and the decoder drained all the same, as the stage does on
                        // its own thread: the same calls in the same order give the same frames and damage.
                        if try decoder.sendSkippingDamage(packet) { guard put(.damaged) else { return } }
                        guard try drain(clock: clock) else { return }
                    case .end(let clock):
                        if try decoder.sendSkippingDamage(nil) { guard put(.damaged) else { return } }
                        guard try drain(clock: clock), put(.drained) else { return }
                    }
                } catch {
                    _ = put(.failed(error))
                    return
                }
            }
        }

        /// Receives until the decoder wants input (or is drained), as the stage would; false when stopping.
        private func drain(clock: InputClock.Reading?) throws -> Bool {
            while true {
                let frame = Frame()
                switch try decoder.receiveSkippingDamage(into: frame) {
                case .frame:
                    guard put(.frame(frame, clock)) else { return false }
                case .noFrame:
                    return true
                case .damaged:
                    // As the stage does: corrupt data ends this packet's (or the drain's) frames.
                    return put(.damaged)
                }
            }
        }

        /// Adds an item once the outbox has room; false when stopping.
        private func put(_ item: Item) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while outbox.count >= DecodeThread.outboxLimit && !stopping { condition.wait() }
            if stopping { return false }
            outbox.append(item)
            condition.broadcast()
            return true
        }
    }
}
