import CarouselProtocol
import CarouselTestSupport
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// (c) Every bad-input rule of the protocol through the real socket.
@Suite(.serialized) struct EndToEndBadInputTests {
    @Test func badRequestsGetErrorsAndTheConnectionStaysUsable() throws {
        let daemon = try E2EDaemon("badinput")
        let c = try daemon.client()
        let cases: [(String, String, String?)] = [
            (#"{"cmd":"watch""#, "bad_json", nil),
            ("[1,2]", "bad_json", nil),
            (#"{"command":"poll"}"#, "unknown_cmd", nil),
            (#"{"cmd":"teleport"}"#, "unknown_cmd", "teleport"),
            (#"{"cmd":"scroll_to","index":"two"}"#, "bad_field", "scroll_to"),
            (#"{"cmd":"scroll_to","index":1.5}"#, "bad_field", "scroll_to"),
            (#"{"cmd":"set_count","count":-1}"#, "bad_field", "set_count"),
            (#"{"cmd":"watch","enable":"yes"}"#, "bad_field", "watch"),
            (#"{"cmd":"drag","phase":"began"}"#, "bad_field", "drag"),
            (#"{"cmd":"set_geometry","viewport":{"width":0,"height":10},"item":{"width":1,"height":1}}"#, "bad_field", "set_geometry"),
        ]
        for (line, code, cmd) in cases {
            try c.send(line)
            let e = try c.readJSON()
            #expect(e["class"] == .string("ERROR"), "\(line)")
            #expect(e["code"] == .string(code), "\(line)")
            #expect(e["cmd"] == cmd.map(WireJSON.string), "\(line)")
            #expect((e["message"]?.stringValue ?? "").count > 5)
        }
        // The field is named in the message.
        try c.send(#"{"cmd":"scroll_to","index":"two"}"#)
        #expect(try c.readJSON()["message"] == .string("field 'index': expected an integer, got a string"))
        // Still usable.
        try c.send(#"{"cmd":"poll"}"#)
        let state = try c.readJSON()
        #expect(state.isState)
        #expect(state["count"] == .number(10))
        #expect(try daemon.stop() == 0)
    }

    @Test func lineOver64KiBGetsTooLongThenClose() throws {
        let daemon = try E2EDaemon("toolong")
        let c = try daemon.client()
        // Exactly 64 KiB of request (padding inside a string) is still accepted.
        let pad = String(repeating: "x", count: 65536 - #"{"cmd":"poll","p":""}"#.utf8.count)
        try c.send(#"{"cmd":"poll","p":"\#(pad)"}"#)
        #expect(try c.readJSON().isState)
        try c.sendRaw([UInt8](repeating: 0x20, count: 70_000) + [0x0A])
        let e = try c.readJSON()
        #expect(e["code"] == .string("too_long"))
        #expect(try c.waitForClose())
        // The daemon carries on.
        let other = try daemon.client()
        try other.send(#"{"cmd":"poll"}"#)
        #expect(try other.readJSON().isState)
        #expect(try daemon.stop() == 0)
    }

    @Test func extraClientGetsTooManyClientsAndIsClosed() throws {
        let daemon = try E2EDaemon("maxclients", overrides: ["server": ["max_clients": "2"]])
        let a = try daemon.client()
        let b = try daemon.client()
        let extra = try SocketClient(path: daemon.socketPath)
        let e = try extra.readJSON()
        #expect(e["class"] == .string("ERROR"))
        #expect(e["code"] == .string("too_many_clients"))
        #expect(try extra.waitForClose())
        // Once one leaves, a new client is welcome.
        a.close()
        extra.close()
        var clients: WireJSON?
        for _ in 0..<100 {
            try b.send(#"{"cmd":"status"}"#)
            clients = try b.readJSON()["clients"]
            if clients == .number(1) { break }
        }
        #expect(clients == .number(1))
        let c = try daemon.client()
        try c.send(#"{"cmd":"poll"}"#)
        #expect(try c.readJSON().isState)
        #expect(try daemon.stop() == 0)
    }

    @Test func clientDroppedForItsBacklogIsLoggedWithFdPidUidAndReason() throws {
        let daemon = try E2EDaemon("backlogdrop")
        let flooder = try daemon.client()
        var small: Int32 = 4096
        setsockopt(flooder.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        // 5000 STATUS replies (~300 bytes each, ~1.5 MB) never read: far past 256 KiB plus the
        // kernel's buffers. Sends may fail once the daemon has closed the connection.
        let batch = Array(String(repeating: #"{"cmd":"status"}"# + "\n", count: 100).utf8)
        for _ in 0..<50 { if (try? flooder.sendRaw(batch)) == nil { break } }
        let log = (try? daemon.process.waitForLog(containing: "dropped")) ?? daemon.process.log
        let lines = log.split(separator: "\n").filter { $0.contains("dropped") }
        #expect(lines.count == 1, "log: \(log)")
        let line = String(lines.first ?? "")
        // waitForSocket's probe was the first connection: the flooder is client 2.
        #expect(line.contains("warning: client 2 (fd "), "\(line)")
        #expect(line.contains("pid \(getpid()), uid \(getuid()))"), "\(line)")
        #expect(line.contains("output backlog over the 262144-byte bound"), "\(line)")
        // Others are still served.
        let c = try daemon.client()
        try c.send(#"{"cmd":"poll"}"#)
        #expect(try c.readJSON().isState)
        #expect(try daemon.stop() == 0)
    }

    @Test func slowReaderDoesNotStallOthersAndGetsCoalescedStates() throws {
        let daemon = try E2EDaemon("slowreader", overrides: ["carousel": ["count": "50"]])
        let slow = try daemon.client()
        // A tiny receive buffer so the stall shows within a few frames.
        var small: Int32 = 4096
        setsockopt(slow.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        try slow.send(#"{"cmd":"watch","items":true}"#)
        let fast = try daemon.client()
        try fast.send(#"{"cmd":"watch"}"#)
        #expect(try fast.readJSON()["class"] == .string("WATCH"))
        #expect(try fast.readJSON()["class"] == .string("LAYOUT"))
        var fastStates = 0
        var target = 49
        // Drive the carousel for a while; the slow client never reads meanwhile.
        for _ in 0..<4 {
            try fast.send(#"{"cmd":"scroll_to","index":\#(target),"animated":true}"#)
            let lines = try fast.readUntil(timeoutSeconds: 10) { $0["class"] == .string("INDEX") }
            fastStates += lines.filter(\.isState).count
            target = target == 49 ? 0 : 49
        }
        #expect(fastStates >= 20)
        // The slow client now drains: its STATEs skip seqs (coalesced), or it was dropped.
        var seqs: [Double] = []
        while seqs.count < 10_000, let text = try? slow.readLine(timeoutSeconds: 0.5) {
            if let v = try? WireJSONParser.parse(text), v.isState, let s = v["seq"]?.doubleValue { seqs.append(s) }
        }
        let gaps = zip(seqs, seqs.dropFirst()).filter { $1 - $0 > 1 }.count
        #expect(gaps > 0 || seqs.count < fastStates, "slow client seqs \(seqs.count) vs fast \(fastStates)")
        #expect(try daemon.stop() == 0)
    }
}
