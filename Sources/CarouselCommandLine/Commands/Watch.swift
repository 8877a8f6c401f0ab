import CarouselProtocol

/// `carouselctl watch`: subscribe to STATE/INDEX/SENSOR/ORIENTATION (docs/PROTOCOL.md "Server messages") and print them.
enum WatchCommand {
    static let spec = CommandSpec(
        name: "watch",
        summary: "Print the carousel state live as carouseld publishes it.",
        discussion: """
        Sends 'watch' and prints one line per STATE (seq, index/count, position in items, phase, \
        tilt roll/pitch in degrees, sensor status), INDEX changes, SENSOR status changes and \
        ORIENTATION changes ('orientation left-up'), until interrupted (Ctrl-C) or, with \
        --count N, after N states. With --json every message is \
        printed as the daemon sent it (NDJSON, one object per line), for scripts and 'jq'. \
        With --orientation only the device orientation is printed, one line per change, the \
        current one first: one of normal, bottom-up, left-up, right-up, face-up, face-down, \
        undefined (iio-sensor-proxy's names); with --json the ORIENTATION objects instead \
        ('{"class":"ORIENTATION","orientation":"left-up"}'); --count then counts those lines. \
        With --items each STATE line is followed by one indented line per visible item (index, \
        center x,y in points, scale, alpha, zIndex); --json prints them in full, with the \
        transform. The daemon sends nothing while the carousel and the device are still.
        Exit status: 0 ended by --count, 69 carouseld not running or it went away, 77 no \
        permission on the socket.
        """,
        options: [
            OptionSpec("--json", help: "Print the protocol's objects (NDJSON) instead of text lines."),
            OptionSpec("--items", help: "Ask for the visible items' attributes: one line per item under each state."),
            OptionSpec("--rate", value: "HZ", help: "Highest STATE rate wanted, Hz (default: the daemon's max_rate_hz)."),
            OptionSpec("--count", short: "-n", value: "N", help: "Exit after N STATE messages (default: run until interrupted)."),
            OptionSpec("--orientation", help: "Print only the device orientation, one line per change (the current one first)."),
            OperatorSettings.socketOption,
            OperatorSettings.configOption,
        ],
        run: { args, io in
            let rate = try args.double("--rate", in: 0.1...1000)
            let limit = try args.int("--count", in: 1...Int.max)
            let json = args.has("--json")
            let orientationOnly = args.has("--orientation")
            let settings = try OperatorSettings.load(args, io: io)
            let client = try settings.connect(args)
            defer { client.close() }
            let reply = try client.request(ControlRequest.watch(items: args.has("--items"), maxRateHz: rate, orientation: true),
                                           cmd: "watch", expecting: ["WATCH"])
            if orientationOnly {
                return try printOrientation(client, json: json, limit: limit, io: io)
            }
            if json {
                io.out(client.lastLine + "\n")
            } else if let hz = reply["max_rate_hz"]?.doubleValue {
                io.err("watching \(client.socketPath) at up to \(fmt(hz)) Hz (Ctrl-C to stop)\n")
            }
            var states = 0
            while true {
                guard let message = try nextMessage(client) else { continue }
                let kind = message["class"]?.stringValue ?? ""
                if json {
                    io.out(client.lastLine + "\n")
                } else {
                    switch kind {
                    case "STATE":
                        io.out(StatusText.stateLine(message) + "\n")
                        for item in message["items"]?.arrayValue ?? [] { io.out("  " + StatusText.itemLine(item) + "\n") }
                    case "INDEX":
                        let previous = message["previous"]?.intValue.map(String.init) ?? "none"
                        io.out("index \(message["index"]?.intValue.map(String.init) ?? "?") (was \(previous))\n")
                    case "SENSOR":
                        // The name and message come from the hardware (a HID descriptor's name).
                        var line = "sensor \(StatusText.text(message["status"]) ?? "?")"
                        if let name = StatusText.text(message["name"]) { line += " \(name)" }
                        if let text = StatusText.text(message["message"]) { line += ": \(text)" }
                        io.out(line + "\n")
                    case "ORIENTATION":
                        io.out("orientation \(StatusText.text(message["orientation"]) ?? "?")\n")
                    case "ERROR":
                        throw DaemonClient.error(from: message, cmd: "watch", socketPath: client.socketPath)
                    default: break
                    }
                }
                if kind == "STATE" {
                    states += 1
                    if let limit, states >= limit { return .ok }
                }
            }
        }
    )

    /// The next message, nil for a wake-up without one.
    /// - Throws: `CommandError(.unavailable)` when the daemon went away.
    static func nextMessage(_ client: DaemonClient) throws(CommandError) -> WireJSON? {
        do throws(CommandError) {
            return try client.readMessage(timeoutSeconds: nil)
        } catch {
            throw CommandError(.unavailable, "\(client.socketPath): carouseld went away (\(error.message))")
        }
    }

    /// `--orientation`: one line per ORIENTATION (the name, or with `json` the object as sent),
    /// after `limit` of them exits 0.
    static func printOrientation(_ client: DaemonClient, json: Bool, limit: Int?, io: CommandIO) throws -> ExitStatus {
        var lines = 0
        while true {
            guard let message = try nextMessage(client) else { continue }
            switch message["class"]?.stringValue {
            case "ORIENTATION":
                io.out((json ? client.lastLine : StatusText.text(message["orientation"]) ?? "?") + "\n")
                lines += 1
                if let limit, lines >= limit { return .ok }
            case "ERROR":
                throw DaemonClient.error(from: message, cmd: "watch", socketPath: client.socketPath)
            default: break
            }
        }
    }
}
