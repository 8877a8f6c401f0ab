import CarouselProtocol
import CarouselTestSupport
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A client that subscribed with `watch` and counts what it receives, for the fault tests: they
/// read several watchers in turn while the daemon is being hurt, so reads never block for long.
final class CountingWatcher {
    let client: SocketClient
    /// Messages received, by `class` (`STATE`, `SENSOR`, `LAYOUT`, …).
    private(set) var counts: [String: Int] = [:]
    /// Every `SENSOR` status in order of arrival.
    private(set) var sensorStatuses: [String] = []
    /// The newest `LAYOUT` and `STATE`.
    private(set) var lastLayout: WireJSON?
    private(set) var lastState: WireJSON?
    /// Whether the daemon closed the connection (EOF or reset).
    private(set) var closed = false

    /// Counts what `client`, a connection that already watches, receives from now on.
    init(subscribed client: SocketClient) {
        self.client = client
    }

    /// Connects to `socketPath`, reads the greeting and subscribes at `rateHz`.
    convenience init(socketPath: String, rateHz: Double = 60) throws {
        let client = try SocketClient(path: socketPath)
        guard try client.readJSON()["class"] == .string("VERSION") else { throw TestSupportError("no VERSION greeting") }
        try client.send(#"{"cmd":"watch","max_rate_hz":\#(rateHz)}"#)
        self.init(subscribed: client)
        _ = try readUntil(timeoutSeconds: 10) { $0["class"] == .string("WATCH") }
    }

    func count(_ messageClass: String) -> Int { counts[messageClass] ?? 0 }

    /// Number of lines read so far: a mark for `report(since:last:)`.
    var linesRead: Int { client.transcript.count }

    /// What this watcher got since `mark` (a `linesRead`), for a failure message: how many lines,
    /// the last `last` of them in order of arrival (`summary(of:)`), and the lines received but
    /// not yet read (none, unless reading is broken).
    func report(since mark: Int, last: Int = 20) -> String {
        let lines = client.transcript.dropFirst(mark)
        let shown = lines.suffix(last).map(Self.summary(of:))
        let unread = client.bufferedLines.map(Self.summary(of:))
        return "\(lines.count) lines\(lines.count > last ? ", the last \(last)" : ""): [\(shown.joined(separator: ", "))]"
            + "; received, not yet read: [\(unread.joined(separator: ", "))]\(closed ? "; closed" : "")"
    }

    /// A line in a few words: the class and the fields that tell the fault tests' story
    /// (`STATE seq=41 phase=tilting sensor=ok`, `SENSOR absent`), or the line itself, cut.
    static func summary(of line: String) -> String {
        guard let message = try? WireJSONParser.parse(line), let name = message["class"]?.stringValue else {
            return "«\(line.prefix(80))»"
        }
        func field(_ key: String) -> String {
            guard let v = message[key] else { return "" }
            return " \(key)=" + (v.stringValue ?? v.intValue.map(String.init) ?? "\(v)")
        }
        switch name {
        case "STATE": return "STATE" + field("seq") + field("index") + field("phase") + field("sensor")
        case "SENSOR": return "SENSOR \(message["status"]?.stringValue ?? "?")" + field("message")
        case "INDEX": return "INDEX" + field("index") + field("previous")
        default: return name
        }
    }

    /// Reads every line that has arrived (waiting at most `timeoutSeconds` for the first): those
    /// the client has already received as well as those the socket holds.
    /// - Throws: when a line is not JSON.
    func drain(timeoutSeconds: Double = 0) throws {
        var wait = timeoutSeconds
        while !closed {
            if !client.hasBufferedLine {
                var p = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, Int32(wait * 1000)) > 0 else { return }
            }
            wait = 0
            try readOne(timeoutSeconds: 1)
        }
    }

    /// Reads until a message satisfies `predicate`; returns it.
    /// - Throws: after `timeoutSeconds`, or when the connection closes first.
    @discardableResult
    func readUntil(timeoutSeconds: Double, _ predicate: (WireJSON) -> Bool) throws -> WireJSON {
        let deadline = clinux_monotonic_ns() + Int64(timeoutSeconds * 1e9)
        while clinux_monotonic_ns() < deadline {
            guard !closed else { throw TestSupportError("connection closed; last lines: \(client.transcript.suffix(3))") }
            if let message = try readOne(timeoutSeconds: Double(deadline - clinux_monotonic_ns()) * 1e-9), predicate(message) {
                return message
            }
        }
        throw TestSupportError("condition not met within \(timeoutSeconds) s; last lines: \(client.transcript.suffix(3))")
    }

    @discardableResult
    private func readOne(timeoutSeconds: Double) throws -> WireJSON? {
        let line: String?
        do {
            line = try client.readLine(timeoutSeconds: max(timeoutSeconds, 0.001))
        } catch {
            return nil  // nothing within the time
        }
        guard let line else {
            closed = true
            return nil
        }
        let message = try WireJSONParser.parse(line)
        guard case let .string(name)? = message["class"] else { throw TestSupportError("no class: \(line)") }
        counts[name, default: 0] += 1
        switch name {
        case "SENSOR": if case let .string(status)? = message["status"] { sensorStatuses.append(status) }
        case "LAYOUT": lastLayout = message
        case "STATE": lastState = message
        default: break
        }
        return message
    }
}

/// Replaces `path` with `text` through a rename, so the daemon never reads half a file.
func replaceFile(_ path: String, with text: String) throws {
    try TestTemp.write(text, to: path + ".new")
    guard rename(path + ".new", path) == 0 else { throw TestSupportError("rename to \(path): errno \(errno)") }
}

/// How many lines of `log` contain `text`.
func lineCount(of text: String, in log: String) -> Int {
    log.split(separator: "\n").filter { $0.contains(text) }.count
}
