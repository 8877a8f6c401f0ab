import IIOSensors
import MotionFusion
import CarouselProtocol
import Testing
@testable import CarouselDaemon

/// The shell's write path: `takeClientsToFlush` names exactly the connections with something to
/// do, and `flush(_:now:write:)` drains a queue through a scripted `send`.
@Suite struct DaemonCoreFlushTests {
    private func taken(_ h: CoreHarness) -> [ClientID] {
        var ids: [ClientID] = []
        h.core.takeClientsToFlush(into: &ids)
        return ids
    }

    /// Accepts everything, recording the bytes, like a socket with room.
    private final class Sink {
        var bytes: [UInt8] = []
        var calls = 0
        func write(_ b: UnsafeRawBufferPointer) -> DaemonCore.WriteResult {
            calls += 1
            bytes += b
            return .wrote(b.count)
        }
        var lines: [WireJSON] { bytes.split(separator: 0x0A).compactMap { try? WireJSONParser.parse($0) } }
    }

    @Test func onlyConnectionsWithNewOutputAreQueuedEachOnce() throws {
        var h = CoreHarness()
        let a = h.connect(), b = h.connect(), c = h.connect()
        // Three VERSION greetings: each connection once, in connection order.
        #expect(taken(h) == [a, b, c])
        #expect(taken(h).isEmpty)
        h.send(#"{"cmd":"status"}"#, from: b)
        h.send(#"{"cmd":"status"}"#, from: b)
        #expect(taken(h) == [b])
        // A watch: WATCH + LAYOUT + STATE for `a` only.
        h.send(#"{"cmd":"watch"}"#, from: a)
        #expect(taken(h) == [a])
        // A scroll moves the carousel: the request's ACK to `c` and a STATE to the watcher `a`
        // (which has read its first STATE, and whose 1/60 s interval has passed).
        _ = h.read(a)
        h.now += 20 * CoreHarness.ms
        h.send(#"{"cmd":"scroll_to","index":3,"animated":false}"#, from: c)
        #expect(Set(taken(h)) == [a, c])
        _ = h.read(a); _ = h.read(b); _ = h.read(c)
        // Nothing changed: a tick queues nobody.
        h.now += 100 * CoreHarness.ms
        h.core.tick(now: h.now)
        #expect(taken(h).isEmpty)
    }

    @Test func flushWritesTheWholeQueueAndReportsDrained() throws {
        var h = CoreHarness()
        let a = h.connect()
        h.send(#"{"cmd":"watch"}"#, from: a)
        let sink = Sink()
        #expect(h.core.flush(a, now: h.now, write: sink.write) == .drained)
        #expect(sink.lines.map { $0["class"] } == [.string("VERSION"), .string("WATCH"), .string("LAYOUT"), .string("STATE"), .string("SENSOR")])
        #expect(h.core.pendingOutput(for: a).isEmpty)
        // Nothing queued: no write at all.
        let calls = sink.calls
        #expect(h.core.flush(a, now: h.now, write: sink.write) == .drained)
        #expect(sink.calls == calls)
    }

    @Test func partialWritesResumeWhereTheyStoppedAndEAGAINBlocks() throws {
        var h = CoreHarness()
        let a = h.connect()
        let greeting = Array(h.core.pendingOutput(for: a))
        var got: [UInt8] = []
        var budget = 10  // the "socket" takes 10 bytes, then is full
        let outcome = h.core.flush(a, now: h.now) { b in
            guard budget > 0 else { return .wouldBlock }
            let n = min(budget, b.count, 4)  // at most 4 bytes per send
            got += b.prefix(n)
            budget -= n
            return .wrote(n)
        }
        #expect(outcome == .blocked)
        #expect(got == Array(greeting.prefix(10)))
        #expect(Array(h.core.pendingOutput(for: a)) == Array(greeting.dropFirst(10)))
        // The socket drains: the rest follows, byte-exact.
        let sink = Sink()
        #expect(h.core.flush(a, now: h.now, write: sink.write) == .drained)
        #expect(got + sink.bytes == greeting)
    }

    @Test func failedSendAndUnknownOrDroppedConnectionsAreClosed() throws {
        var h = CoreHarness(limits: DaemonCore.Limits(outputLimit: 700))
        let a = h.connect()
        #expect(h.core.flush(a, now: h.now) { _ in .failed } == .close)
        #expect(h.core.flush(ClientID(99), now: h.now) { _ in .wrote(1) } == .close)
        // A watcher that never reads passes the 700-byte bound and is dropped: queued once more
        // so the shell closes it, and its flush says close without writing.
        let b = h.connect()
        h.send(#"{"cmd":"watch","max_rate_hz":60}"#, from: b)
        _ = taken(h)
        for k in 1...8 {
            h.send(#"{"cmd":"status"}"#, from: b)
            h.now += Int64(k) * CoreHarness.ms
        }
        #expect(h.core.shouldClose(b))
        #expect(taken(h).contains(b))
        var wrote = false
        #expect(h.core.flush(b, now: h.now) { _ in wrote = true; return .wrote(1) } == .close)
        #expect(!wrote)
    }

    @Test func aRefusedConnectionIsClosedOnceItsErrorIsWritten() throws {
        var h = CoreHarness(limits: DaemonCore.Limits(maxClients: 1))
        _ = h.connect()
        let refused = h.connect()
        #expect(taken(h).contains(refused))
        let sink = Sink()
        #expect(h.core.flush(refused, now: h.now, write: sink.write) == .close)
        #expect(h.core.shouldClose(refused))
        #expect(sink.lines.count == 1)
        #expect(sink.lines.first?["class"] == .string("ERROR"))
        #expect(sink.lines.first?["code"] == .string("too_many_clients"))
    }

    @Test func aSlowWatcherGetsTheNewestStateWhenItsQueueDrainsWithinOneFlush() throws {
        var h = CoreHarness()
        let a = h.connect()
        h.send(#"{"cmd":"watch","max_rate_hz":60}"#, from: a)
        _ = h.read(a)
        // The socket is full: a STATE is queued and stays unsent.
        h.send(#"{"cmd":"scroll_to","index":2,"animated":false}"#, from: a)
        #expect(h.core.flush(a, now: h.now) { _ in .wouldBlock } == .blocked)
        // Meanwhile the carousel moves again: the newer STATE waits behind the unsent one.
        h.now += 40 * CoreHarness.ms
        h.send(#"{"cmd":"scroll_to","index":5,"animated":false}"#, from: a)
        let sink = Sink()
        #expect(h.core.flush(a, now: h.now, write: sink.write) == .drained)
        let states = sink.lines.filter { $0["class"] == .string("STATE") }
        // The held STATE (index 2) went first; the newest (index 5) followed in the same flush.
        #expect(states.map { $0["index"] } == [.number(2), .number(5)])
        #expect(h.core.pendingOutput(for: a).isEmpty)
    }

    @Test func theWriterSendsAtOnceAndTheOutboxQueuesOnlyWhatTheSocketRefused() throws {
        var h = CoreHarness()
        var written: [Int32: [UInt8]] = [:]
        var room: [Int32: Int] = [:]  // bytes each "socket" still takes; nil: unlimited
        var failing: Set<Int32> = []
        func connect(_ handle: Int32) -> ClientID {
            let id = ClientID(h.nextID)
            h.nextID += 1
            h.core.clientConnected(id, credentials: PeerCredentials(pid: 1, uid: 0, gid: 0), mayControl: true,
                                   now: h.now, writer: { bytes in
                if failing.contains(handle) { return .failed }
                let n = min(bytes.count, room[handle] ?? Int.max)
                guard n > 0 else { return .wouldBlock }
                written[handle, default: []] += bytes.prefix(n)
                room[handle] = room[handle].map { $0 - n }
                return .wrote(n)
            })
            return id
        }
        room[11] = 30
        room[12] = 0
        failing = [13]
        let a = connect(10), b = connect(11), c = connect(12), d = connect(13)
        // `a` took its whole VERSION line: nothing queued, nothing for the shell to do.
        let version = #"{"class":"VERSION","release":"\#(carouseldRelease)","proto_major":1,"proto_minor":2}"# + "\n"
        #expect(written[10] == Array(version.utf8))
        #expect(h.core.pendingOutput(for: a).isEmpty)
        // `b` took 30 bytes: the rest is queued; `c` took none (EAGAIN); `d` failed: closed.
        #expect(written[11] == Array(version.utf8.prefix(30)))
        #expect(Array(h.core.pendingOutput(for: b)) == Array(version.utf8.dropFirst(30)))
        #expect(Array(h.core.pendingOutput(for: c)) == Array(version.utf8))
        #expect(h.core.shouldClose(d))
        #expect(taken(h) == [b, c, d])
        // A line for `b` while its queue is not empty goes behind it, not straight out.
        room[11] = nil
        h.send(#"{"cmd":"status"}"#, from: b)
        #expect(written[11]?.count == 30)
        let sink = Sink()
        #expect(h.core.flush(b, now: h.now, write: sink.write) == .drained)
        #expect(String(decoding: written[11]! + sink.bytes, as: UTF8.self).hasPrefix(version + #"{"class":"STATUS""#))
        // Drained: the next line goes straight out again.
        h.send(#"{"cmd":"status"}"#, from: b)
        #expect(h.core.pendingOutput(for: b).isEmpty)
        #expect(String(decoding: written[11]!.dropFirst(30), as: UTF8.self).hasPrefix(#"{"class":"STATUS""#))
    }

    /// A sensor that goes away (absent, error, stale) while the device is tilted: its tilt was
    /// dropped from STATE but the engine kept the last roll, so the carousel scrolled on with
    /// `tilt` 0 in every STATE, and when the last watcher then left, `sensorStopped` found no
    /// tilt to drop and the unwatched daemon kept waking at 60 Hz.
    @Test func aSensorThatGoesAwayStopsDrivingTheCarouselAndTheDaemonGoesIdle() throws {
        var h = CoreHarness()
        let c = h.connect()
        h.send(#"{"cmd":"watch"}"#, from: c)
        _ = h.read(c)
        h.tilt.roll = -14  // 390 pt/s toward higher indices (DaemonCoreTests)
        h.now += 100 * CoreHarness.ms
        h.core.samplesArrived([IMUSample(timestampNanoseconds: 0, accel: Vector3(0, 0, 9.81))], now: h.now)
        #expect(h.read(c).first?["phase"] == .string("tilting"))
        _ = h.run(until: h.now + 900 * CoreHarness.ms, reading: c)
        // Offset 351 pt (position 1.35) when the sensor is unplugged.
        h.core.sensorChanged(status: .absent, name: nil, message: "unplugged", now: h.now)
        let watched = h.run(until: h.now + 3_000 * CoreHarness.ms, reading: c).map(\.1)
        let last = try #require(watched.last { $0["class"] == .string("STATE") })
        #expect(last["tilt"]?["roll_deg"] == .null)
        #expect(last["phase"] == .string("idle"))
        #expect(last["index"] == .number(1))
        #expect(last["offset"] == .number(260))
        #expect(h.core.nextDeadline == nil)
        // The last watcher leaves; the shell stops the sensor: still nothing due.
        h.core.clientDisconnected(c)
        h.core.sensorStopped(now: h.now)
        #expect(h.core.nextDeadline == nil)
    }
}
