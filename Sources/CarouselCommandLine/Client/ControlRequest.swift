import CarouselProtocol

/// The control commands that send one request and expect `ACK` (INTERFACES §2): the request
/// lines as `carouselctl` sends them, and the exchange.
enum ControlRequest {
    /// `{"cmd":"scroll_to","index":N,"animated":B}`
    static func scrollTo(index: Int, animated: Bool) -> String {
        var w = WireJSONWriter()
        w.beginObject()
        w.key("cmd"); w.string("scroll_to")
        w.key("index"); w.int(index)
        w.key("animated"); w.bool(animated)
        w.endObject()
        return w.text
    }

    /// `{"cmd":"set_count","count":N}`
    static func setCount(_ count: Int) -> String {
        var w = WireJSONWriter()
        w.beginObject()
        w.key("cmd"); w.string("set_count")
        w.key("count"); w.int(count)
        w.endObject()
        return w.text
    }

    /// `{"cmd":"watch","enable":true,"items":B[,"max_rate_hz":R]}`
    static func watch(items: Bool, maxRateHz: Double?) -> String {
        var w = WireJSONWriter()
        w.beginObject()
        w.key("cmd"); w.string("watch")
        w.key("enable"); w.bool(true)
        w.key("items"); w.bool(items)
        if let maxRateHz { w.key("max_rate_hz"); w.number(maxRateHz) }
        w.endObject()
        return w.text
    }

    static let recenterTilt = #"{"cmd":"recenter_tilt"}"#
    static let reload = #"{"cmd":"reload"}"#
    static let status = #"{"cmd":"status"}"#
    static let poll = #"{"cmd":"poll"}"#

    /// Connects, sends `request` and waits for its `ACK`. Prints nothing on success (like
    /// `systemctl start`); errors carry the exit status of INTERFACES §5.
    static func send(_ request: String, cmd: String, args: ParsedArguments, io: CommandIO) throws(CommandError) -> ExitStatus {
        let settings = try OperatorSettings.load(args, io: io)
        let client = try settings.connect(args)
        defer { client.close() }
        _ = try client.request(request, cmd: cmd, expecting: ["ACK"])
        return .ok
    }
}
