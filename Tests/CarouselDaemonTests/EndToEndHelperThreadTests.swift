import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's helper threads stay bounded and give back what they use (docs/SENSORS.md
/// "Remote sensors"): `sensors` listings (`carouseld-list`, at most 2) and remote-sensor
/// workers (`carouseld-iiod`, at most 4), counted in /proc with the real daemon.
@Suite(.serialized) struct EndToEndHelperThreadTests {
    /// Polls `done` every 10 ms for up to `seconds`.
    static func waitUntil(seconds: Double, _ done: () -> Bool) {
        var left = Int(seconds * 1000)
        while !done(), left > 0 { usleep(10_000); left -= 10 }
    }

    /// 1,000 listings one after the other, 300 from 3 clients at once, 100 from clients that
    /// close before their answer: afterwards the daemon has the descriptors it had before and
    /// no listing thread.
    @Test func listingsLeaveNoDescriptorOrThreadBehind() throws {
        let d = try E2EDaemon("helper-listings", overrides: ["sensor": ["source": "replay",
            "replay_file": TestPaths.packageRoot + "/data/demo-recording.csv", "replay_loop": "yes"]])
        defer { _ = try? d.stop() }
        let pid = String(d.process.pid)
        let c = try d.client()
        try c.send(#"{"cmd":"sensors"}"#)
        #expect(try c.readJSON()["class"] == .string("SENSORS"))
        Self.waitUntil(seconds: 2) { ProcessTasks.threads(of: pid, named: "carouseld-list") == 0 }
        let before = ProcessTasks.descriptors(of: pid)
        for _ in 0..<1000 {
            try c.send(#"{"cmd":"sensors"}"#)
            #expect(try c.readJSON(timeoutSeconds: 10)["class"] == .string("SENSORS"))
        }
        let group = try (0..<3).map { _ in try d.client() }
        for _ in 0..<100 {
            for g in group { try g.send(#"{"cmd":"sensors"}"#) }
            for g in group { #expect(try g.readJSON(timeoutSeconds: 10)["class"] == .string("SENSORS")) }
        }
        for g in group { g.close() }
        for _ in 0..<100 {
            let gone = try d.client()
            try gone.send(#"{"cmd":"sensors"}"#)
            gone.close()
        }
        try c.send(#"{"cmd":"status"}"#)  // the daemon has handled every close before it answers
        #expect(try c.readJSON()["class"] == .string("STATUS"))
        Self.waitUntil(seconds: 2) { ProcessTasks.threads(of: pid, named: "carouseld-list") == 0 }
        #expect(ProcessTasks.threads(of: pid, named: "carouseld-list") == 0)
        Self.waitUntil(seconds: 2) { ProcessTasks.descriptors(of: pid) == before }
        let after = ProcessTasks.descriptors(of: pid)
        #expect(after == before, "before \(before.sorted { $0.key < $1.key }), after \(after.sorted { $0.key < $1.key })")
    }

    /// 100 reloads that switch `[sensor] uri` between two hung iiods while a watcher keeps the
    /// sensor running, a `sensors` request every 10: never more than 4 workers and 2 listings
    /// alive; once the iiods go away, one worker is left and the descriptors are back.
    @Test func reloadsBetweenHungIIODsKeepTheThreadsBounded() throws {
        let iiods = [try HungServer(), try HungServer()]
        let uris = iiods.map { "ip:127.0.0.1:\($0.port)" }
        let d = try E2EDaemon("helper-reloads", overrides: ["sensor": ["uri": uris[0]]])
        defer { _ = try? d.stop() }
        let pid = String(d.process.pid)
        let watcher = try d.client()
        try watcher.send(#"{"cmd":"watch"}"#)
        #expect(iiods[0].acceptConnection(timeoutSeconds: 10), "the first worker never connected")
        let before = ProcessTasks.descriptors(of: pid).count
        let asker = try d.client()
        var peakWorkers = 0, peakListings = 0
        for i in 0..<100 {
            try TestTemp.write(E2EDaemon.configText(socketPath: d.socketPath, overrides: ["sensor": ["uri": uris[(i + 1) % 2]]]),
                               to: d.configPath)
            d.process.signal(SIGHUP)
            usleep(30_000)
            if i % 10 == 0 { try asker.send(#"{"cmd":"sensors"}"#) }
            peakWorkers = max(peakWorkers, ProcessTasks.threads(of: pid, named: "carouseld-iiod"))
            peakListings = max(peakListings, ProcessTasks.threads(of: pid, named: "carouseld-list"))
        }
        #expect(peakWorkers == 4)
        #expect(peakListings <= 2)
        for iiod in iiods { iiod.close() }
        Self.waitUntil(seconds: 5) { ProcessTasks.threads(of: pid, named: "carouseld-iiod") == 1 }
        #expect(ProcessTasks.threads(of: pid, named: "carouseld-iiod") == 1)
        Self.waitUntil(seconds: 5) { ProcessTasks.threads(of: pid, named: "carouseld-list") == 0 }
        asker.close()
        try watcher.send(#"{"cmd":"status"}"#)
        _ = try watcher.readUntil(timeoutSeconds: 10) { $0["class"] == .string("STATUS") }
        // Descriptors come back as the daemon handles the asker's close (the STATUS may be
        // answered first) and as stopped workers, back from libiio once the iiods closed, let
        // go of their event descriptors: the count is taken once it settles (a leak would not).
        Self.waitUntil(seconds: 5) { ProcessTasks.descriptors(of: pid).count <= before }
        let after = ProcessTasks.descriptors(of: pid)
        #expect(after.count <= before, "\(before) descriptors before, after: \(after.sorted { $0.key < $1.key })")
    }
}
