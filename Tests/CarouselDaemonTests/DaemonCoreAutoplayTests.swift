import CarouselEngine
import CarouselProtocol
import MotionFusion
import Testing
@testable import CarouselDaemon

/// Autoplay, item editing and `set_style` through `DaemonCore` on a scripted clock: the core's
/// `nextDeadline` is the only thing that wakes it (as the shell's frame timer does).
@Suite struct DaemonCoreAutoplayTests {
    static let second: Int64 = 1_000_000_000
    static let start: Int64 = 1_000_000_000

    /// 375 × 200 viewport, 250 × 160 items, spacing 10: pitch 260; `count` items.
    static func core(count: Int = 5, cyclic: Bool = true, autoplay: AutoplaySettings, tilt: ScriptedTilt = ScriptedTilt(),
                     maxRateHz: Double = 60) -> DaemonCore {
        let geometry = CarouselGeometry(viewport: CarouselSize(width: 375, height: 200),
                                        item: CarouselSize(width: 250, height: 160), spacing: 10, count: count, cyclic: cyclic)
        let engine = CarouselEngine(configuration: CarouselConfiguration(geometry: geometry, autoplay: autoplay), time: 0)
        return DaemonCore(engine: engine, tiltPipeline: tilt, limits: DaemonCore.Limits(maxRateHz: maxRateHz), sensorStatus: .replay,
                          now: start)
    }

    static func connectWatcher(_ core: DaemonCore, now: Int64) -> ClientID {
        let id = ClientID(1)
        core.clientConnected(id, credentials: PeerCredentials(pid: 1, uid: 0, gid: 0), mayControl: true, now: now)
        core.received(Array(#"{"cmd":"watch"}"#.utf8) + [0x0A], from: id, now: now)
        return id
    }

    /// Everything queued for `id`, parsed, as if the socket took it all.
    static func read(_ core: DaemonCore, _ id: ClientID, now: Int64) -> [WireJSON] {
        let bytes = Array(core.pendingOutput(for: id))
        core.wrote(bytes.count, to: id, blocked: false, now: now)
        return bytes.split(separator: 0x0A).compactMap { try? WireJSONParser.parse($0) }
    }

    /// A week of autoplay every 60 s on 5 cyclic items, driven only by `nextDeadline`: every
    /// wake-up while the carousel is at rest takes exactly one step (no idle wake-up without a
    /// step), the steps keep an exact period (no drift: step k at first + k · period within
    /// 1 µs over 10 000 steps), and the index cycles 0, 1, 2, 3, 4, 0, … for the whole week
    /// without leaving 0..<5 (the offset is normalised into one cycle, so nothing grows).
    @Test func aWeekOfAutoplayHasOneWakeUpPerStepAndNoDrift() {
        // 10 frames a second while a step animates (the frame rate does not change the steps;
        // it keeps the half-million-tick week short).
        let core = Self.core(autoplay: AutoplaySettings(intervalSeconds: 60), maxRateHz: 10)
        let watcher = Self.connectWatcher(core, now: Self.start)
        _ = Self.read(core, watcher, now: Self.start)
        let week = 7 * 86_400 * Self.second
        var now = Self.start
        var stepTimes: [Int64] = []
        var idleWakeUpsWithoutStep = 0
        var indices: [Int] = []
        var ticks = 0
        while let deadline = core.nextDeadline, deadline <= Self.start + week {
            now = max(now, deadline)
            let wasAtRest = core.engine.phase == .idle
            core.tick(now: now)
            ticks += 1
            if wasAtRest {
                if core.engine.phase == .animating { stepTimes.append(now) } else { idleWakeUpsWithoutStep += 1 }
            }
            let bytes = Array(core.pendingOutput(for: watcher))
            core.wrote(bytes.count, to: watcher, blocked: false, now: now)
            for line in bytes.split(separator: 0x0A) where line.starts(with: Array(#"{"class":"INDEX""#.utf8)) {
                guard let message = try? WireJSONParser.parse(line) else { continue }
                if case let .number(i)? = message["index"] { indices.append(Int(i)) }
            }
        }
        #expect(idleWakeUpsWithoutStep == 0)
        // The first step comes 60 s after start (rounded up to the nanosecond, plus 1 ns).
        #expect(stepTimes.first == Self.start + 60 * Self.second + 1)
        let period = stepTimes[1] - stepTimes[0]
        // A step is the 60 s rest plus the scroll animation (well under a second).
        #expect(period > 60 * Self.second && period < 61 * Self.second)
        var worst: Int64 = 0
        for (k, t) in stepTimes.enumerated() {
            worst = max(worst, abs(t - stepTimes[0] - Int64(k) * period))
        }
        #expect(worst <= 1_000, "drift \(worst) ns")
        // Every step that fits in the week was taken.
        let expectedSteps = Int((week - 60 * Self.second) / period) + 1
        #expect(stepTimes.count == expectedSteps)
        #expect(stepTimes.count > 9_900)
        // Each step rested on the next item, wrapping after 4.
        #expect(indices.count == stepTimes.count || indices.count == stepTimes.count - 1)
        #expect(indices.enumerated().allSatisfy { $0.element == ($0.offset + 1) % 5 })
        let state = core.engine.state
        #expect(state.index.map { (0..<5).contains($0) } == true)
        #expect(state.offset >= 0 && state.offset < 5 * 260)
        // Frames only while a step animates: ticks = steps + animation frames, and at rest the
        // core sleeps until the next step.
        #expect(ticks < stepTimes.count * 12)
        #expect(core.nextDeadline.map { $0 > now } ?? false)
    }

    /// Without autoplay an idle core never wakes.
    @Test func withoutAutoplayAnIdleCoreHasNoDeadline() {
        let core = Self.core(autoplay: AutoplaySettings())
        let watcher = Self.connectWatcher(core, now: Self.start)
        _ = Self.read(core, watcher, now: Self.start)
        #expect(core.nextDeadline == nil)
        #expect(Self.read(core, watcher, now: Self.start).isEmpty)
    }

    /// `scroll_to`, a drag and tilt outside the dead zone each pause autoplay (STATE `autoplay`
    /// "paused"); it steps again `autoplay_resume_s` (4 s) after the carousel is at rest.
    @Test func dragScrollToAndTiltPauseItAndItResumesAfterTheResumeDelay() throws {
        let tilt = ScriptedTilt()
        let core = Self.core(count: 8, cyclic: false, autoplay: AutoplaySettings(intervalSeconds: 5, resumeSeconds: 4), tilt: tilt)
        let c = Self.connectWatcher(core, now: Self.start)
        let first = Self.read(core, c, now: Self.start)
        #expect(first.last(where: \.isState)?["autoplay"] == .string("running"))
        func send(_ line: String, at now: Int64) { core.received(Array(line.utf8) + [0x0A], from: c, now: now) }
        func runUntilIdle(from now: inout Int64) {
            while core.engine.phase != .idle, let d = core.nextDeadline {
                now = max(now, d)
                core.tick(now: now)
            }
        }

        // scroll_to without animation at 2 s: at rest at once, so the next step is due 4 s later.
        var now = Self.start + 2 * Self.second
        send(#"{"cmd":"scroll_to","index":3,"animated":false}"#, at: now)
        var got = Self.read(core, c, now: now)
        #expect(got.last(where: { $0["class"] == .string("STATE") })?["autoplay"] == .string("paused"))
        #expect(core.nextDeadline == Self.start + 6 * Self.second + 1)
        now = try #require(core.nextDeadline)
        core.tick(now: now)
        #expect(core.engine.phase == .animating)
        got = Self.read(core, c, now: now)
        #expect(got.last?["autoplay"] == .string("running"))
        runUntilIdle(from: &now)
        #expect(core.engine.state.index == 4)

        // A drag: no step while the finger is down, then the resume delay after its snap.
        let dragStart = now + Self.second
        send(#"{"cmd":"drag","phase":"began","location":200}"#, at: dragStart)
        _ = Self.read(core, c, now: dragStart)
        send(#"{"cmd":"drag","phase":"moved","location":150}"#, at: dragStart + 50_000_000)
        _ = Self.read(core, c, now: dragStart + 50_000_000)
        #expect(core.engine.autoplayState == .paused)
        #expect(core.nextDeadline == nil) // finger down, nothing moves: no wake-up at all
        send(#"{"cmd":"drag","phase":"ended","location":150,"velocity":0}"#, at: dragStart + 100_000_000)
        now = dragStart + 100_000_000
        runUntilIdle(from: &now)
        let restedAt = now
        let resume = try #require(core.nextDeadline)
        // The snap's exact end lies within the last frame interval before `restedAt`.
        #expect(resume - restedAt <= 4 * Self.second + 1 && resume - restedAt > 4 * Self.second - Self.second / 60 - 1)

        // Tilt outside the 3° dead zone pauses it too, and the resume delay counts from the rest.
        now = resume - Self.second
        // Tilt was disarmed by the drag: a level sample re-arms it.
        core.samplesArrived([IMUSample(timestampNanoseconds: now - 1, accel: Vector3(0, 0, 9.81))], now: now - 1)
        tilt.roll = -10
        let sample = IMUSample(timestampNanoseconds: now, accel: Vector3(0, 0, 9.81))
        core.samplesArrived([sample], now: now)
        #expect(core.engine.phase == .tilting)
        #expect(core.engine.autoplayState == .paused)
        now += Self.second / 2
        tilt.roll = 0
        core.samplesArrived([IMUSample(timestampNanoseconds: now, accel: Vector3(0, 0, 9.81))], now: now)
        runUntilIdle(from: &now)
        let afterTilt = try #require(core.nextDeadline)
        #expect(afterTilt > resume)
        #expect(afterTilt - now <= 4 * Self.second + 1 && afterTilt - now > 4 * Self.second - Self.second / 60 - 1)
    }

    /// The user's pause (`set_autoplay {paused: true}`) lasts until it is lifted: no deadline,
    /// STATE "paused"; lifting it starts a fresh interval from that moment.
    @Test func theUsersPauseLastsUntilLifted() throws {
        let core = Self.core(autoplay: AutoplaySettings(intervalSeconds: 3))
        let c = Self.connectWatcher(core, now: Self.start)
        _ = Self.read(core, c, now: Self.start)
        let now = Self.start + Self.second
        core.received(Array(#"{"cmd":"set_autoplay","paused":true}"#.utf8) + [0x0A], from: c, now: now)
        let got = Self.read(core, c, now: now)
        #expect(try got.first == WireJSONParser.parse(#"{"class":"ACK","cmd":"set_autoplay"}"#))
        #expect(got.last?["autoplay"] == .string("paused"))
        #expect(core.nextDeadline == nil)
        let later = Self.start + 1000 * Self.second
        core.received(Array(#"{"cmd":"set_autoplay","paused":false}"#.utf8) + [0x0A], from: c, now: later)
        #expect(Self.read(core, c, now: later).last?["autoplay"] == .string("running"))
        // Rounded up to the nanosecond, plus 1 ns: within 2 ns of 3 s after the request.
        let deadline = try #require(core.nextDeadline)
        #expect(deadline - (later + 3 * Self.second) >= 1 && deadline - (later + 3 * Self.second) <= 2)
        // Turning it off: STATE "off", no deadline.
        core.received(Array(#"{"cmd":"set_autoplay","enabled":false}"#.utf8) + [0x0A], from: c, now: later + Self.second)
        #expect(Self.read(core, c, now: later + Self.second).last?["autoplay"] == .string("off"))
        #expect(core.nextDeadline == nil)
    }

    /// `insert_items` before the current card keeps it centered (its index grows by the count)
    /// and LAYOUT tells the new count; `remove_items` of the current card hands the center to
    /// the card after it; out-of-range requests name the field and change nothing.
    @Test func insertAndRemoveKeepTheCurrentCard() throws {
        let core = Self.core(count: 10, cyclic: false, autoplay: AutoplaySettings())
        let c = Self.connectWatcher(core, now: Self.start)
        _ = Self.read(core, c, now: Self.start)
        var now = Self.start
        func send(_ line: String) -> [WireJSON] {
            now += Self.second  // past the watcher's rate interval, so each STATE goes out at once
            core.received(Array(line.utf8) + [0x0A], from: c, now: now)
            return Self.read(core, c, now: now)
        }
        _ = send(#"{"cmd":"scroll_to","index":4,"animated":false}"#)
        var got = send(#"{"cmd":"insert_items","at":2,"count":3,"animated":false}"#)
        #expect(got.first?["class"] == .string("ACK"))
        #expect(got.first { $0["class"] == .string("LAYOUT") }?["count"] == .number(13))
        let state = try #require(got.first { $0["class"] == .string("STATE") })
        // Card 4 is now item 7, still centered: offset 7 · 260.
        #expect(state["index"] == .number(7) && state["offset"] == .number(1820) && state["count"] == .number(13))
        #expect(try got.last == WireJSONParser.parse(#"{"class":"INDEX","index":7,"previous":4}"#))
        got = send(#"{"cmd":"remove_items","at":7,"count":2,"animated":false}"#)
        let after = try #require(got.first { $0["class"] == .string("STATE") })
        // Items 7 and 8 are gone: the old item 9 takes index 7, centered at once.
        #expect(after["index"] == .number(7) && after["offset"] == .number(1820) && after["count"] == .number(11))
        got = send(#"{"cmd":"remove_items","at":9,"count":3}"#)
        #expect(try got == [WireJSONParser.parse(#"{"class":"ERROR","code":"bad_field","message":"field 'count': 3 items from 9 pass the last item (10)","cmd":"remove_items"}"#)])
        got = send(#"{"cmd":"insert_items","at":12,"count":1}"#)
        #expect(try got == [WireJSONParser.parse(#"{"class":"ERROR","code":"bad_field","message":"field 'at': 12 is out of range 0…11","cmd":"insert_items"}"#)])
        got = send(#"{"cmd":"remove_items","at":11,"count":1}"#)
        #expect(try got == [WireJSONParser.parse(#"{"class":"ERROR","code":"bad_field","message":"field 'at': 11 is out of range 0…10","cmd":"remove_items"}"#)])
        _ = send(#"{"cmd":"set_count","count":0}"#)
        got = send(#"{"cmd":"remove_items","at":0,"count":1}"#)
        #expect(try got == [WireJSONParser.parse(#"{"class":"ERROR","code":"bad_field","message":"field 'at': the carousel has no items to remove, got 0","cmd":"remove_items"}"#)])
        #expect(core.engine.state.count == 0)
    }

    /// `set_style custom` merges the given numbers over the running custom style (a flat row
    /// from another style) and LAYOUT carries them.
    @Test func setStyleCustomReachesLayout() throws {
        let core = Self.core(autoplay: AutoplaySettings())
        let c = Self.connectWatcher(core, now: Self.start)
        _ = Self.read(core, c, now: Self.start)
        core.received(Array(#"{"cmd":"set_style","style":"custom","custom":{"next_rotate_y":-45,"prev_rotate_y":45}}"#.utf8) + [0x0A],
                      from: c, now: Self.start)
        var got = Self.read(core, c, now: Self.start)
        var layout = try #require(got.first { $0["class"] == .string("LAYOUT") })
        #expect(layout["style"] == .string("custom"))
        #expect(layout["custom"]?["next_rotate_y"] == .number(-45) && layout["custom"]?["next_translate_x"] == .number(1))
        core.received(Array(#"{"cmd":"set_style","style":"custom","custom":{"next_scale":0.5}}"#.utf8) + [0x0A],
                      from: c, now: Self.start)
        got = Self.read(core, c, now: Self.start)
        layout = try #require(got.first { $0["class"] == .string("LAYOUT") })
        #expect(layout["custom"]?["next_rotate_y"] == .number(-45) && layout["custom"]?["next_scale"] == .number(0.5))
    }

    /// `set_style` keeps a STATE within `StateItemBudget` as `set_geometry` does: a custom style
    /// lists `2 · (⌈limit⌉ + 1) + 1` slots when that exceeds the viewport (pitch 260 here, the
    /// viewport's reach 312.5 points): limit 167 gives 337 ≤ 338, limit 167.5 gives 339.
    @Test func setStyleIsRefusedWhenItWouldListMoreItemsThanOneStateCarries() throws {
        let core = Self.core(autoplay: AutoplaySettings())
        let c = Self.connectWatcher(core, now: Self.start)
        _ = Self.read(core, c, now: Self.start)
        core.received(Array(#"{"cmd":"set_style","style":"custom","custom":{"limit":167.5},"id":1}"#.utf8) + [0x0A],
                      from: c, now: Self.start)
        let refused = try #require(Self.read(core, c, now: Self.start).first { $0["class"] == .string("ERROR") })
        #expect(refused["code"] == .string("bad_field"))
        // The limit is the cause (a limit of 1 lists 5 slots): 2 · (L + 1) + 1 ≤ 338 for L ≤ 167.
        #expect(refused["message"] == .string("field 'custom.limit': with custom.limit 167.5, up to 339 items can be visible at "
                                             + "once, more than the 338 one STATE carries; use a limit of at most 167"))
        core.received(Array(#"{"cmd":"set_style","style":"custom","custom":{"limit":167},"id":2}"#.utf8) + [0x0A],
                      from: c, now: Self.start)
        let got = Self.read(core, c, now: Self.start)
        #expect(got.contains { $0["class"] == .string("ACK") })
        #expect(got.first { $0["class"] == .string("LAYOUT") }?["custom"]?["limit"] == .number(167))
    }
}
