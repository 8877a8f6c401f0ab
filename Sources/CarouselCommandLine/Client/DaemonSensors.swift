import CarouselProtocol

/// `carouselctl sensors` through the daemon (issue 6: "via the daemon when it runs, else
/// directly"): while carouseld holds the IIO buffer, its `sensors` request (docs/PROTOCOL.md "Requests")
/// returns the same objects as `carouselctl sensors --json` (docs/CLI.md "sensors").
///
/// For the `sensors` command (owned by the IIO work): call `DaemonSensors.fetch(socketPath:)`
/// first; nil means no daemon answers, so read the sensors directly.
public enum DaemonSensors {
    /// The daemon's sensor list, or nil when no daemon is running on `socketPath`.
    /// - Returns: the `sensors` array of the `SENSORS` reply and its JSON text (compact, as
    ///   `sensors --json` prints it).
    /// - Throws: `CommandError` for a daemon that answers but fails (77 permission, 74 I/O, …).
    public static func fetch(socketPath: String) throws(CommandError) -> (sensors: [WireJSON], json: String)? {
        let client: DaemonClient
        do {
            client = try DaemonClient(socketPath: socketPath)
        } catch {
            if error.status == .unavailable { return nil }
            throw error
        }
        defer { client.close() }
        let reply = try client.request(#"{"cmd":"sensors"}"#, cmd: "sensors", expecting: ["SENSORS"])
        let list = reply["sensors"]?.arrayValue ?? []
        return (list, WireJSONText.encode(.array(list)))
    }
}

/// Compact JSON text of a `WireJSON` (through CarouselProtocol's `WireJSONWriter`, so numbers are
/// finite and never `-0`).
public enum WireJSONText {
    public static func encode(_ value: WireJSON) -> String {
        var w = WireJSONWriter()
        write(value, to: &w)
        return w.text
    }

    static func write(_ value: WireJSON, to w: inout WireJSONWriter) {
        switch value {
        case .null: w.null()
        case let .bool(b): w.bool(b)
        case let .number(n): w.number(n)
        case let .string(s): w.string(s)
        case let .array(elements):
            w.beginArray()
            for e in elements { write(e, to: &w) }
            w.endArray()
        case let .object(members):
            w.beginObject()
            for (k, v) in members {
                w.key(k)
                write(v, to: &w)
            }
            w.endObject()
        }
    }
}
