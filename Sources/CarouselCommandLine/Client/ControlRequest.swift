import CarouselProtocol

/// The control commands that send one request and expect `ACK` (docs/PROTOCOL.md "Requests"): the request
/// lines as `carouselctl` sends them, and the exchange.
enum ControlRequest {
    /// `{"cmd":"scroll_to","index":N,"animated":B}`
    static func scrollTo(index: Int, animated: Bool) -> String {
        Request.scrollTo(index: index, animated: animated).jsonText
    }

    /// `{"cmd":"set_count","count":N}`
    static func setCount(_ count: Int) -> String { Request.setCount(count).jsonText }

    /// `{"cmd":"watch","enable":true,"items":B[,"max_rate_hz":R]}`
    static func watch(items: Bool, maxRateHz: Double?, orientation: Bool = false) -> String {
        Request.watch(WatchRequest(enable: true, items: items, maxRateHz: maxRateHz, orientation: orientation)).jsonText
    }

    static let recenterTilt = #"{"cmd":"recenter_tilt"}"#
    static let reload = #"{"cmd":"reload"}"#
    static let status = #"{"cmd":"status"}"#
    static let poll = #"{"cmd":"poll"}"#

    /// Connects, sends `request` and waits for its `ACK`. Prints nothing on success (like
    /// `systemctl start`); errors carry the exit status of docs/CLI.md "EXIT STATUS".
    static func send(_ request: String, cmd: String, args: ParsedArguments, io: CommandIO) throws(CommandError) -> ExitStatus {
        let settings = try OperatorSettings.load(args, io: io)
        let client = try settings.connect(args)
        defer { client.close() }
        _ = try client.request(request, cmd: cmd, expecting: ["ACK"])
        return .ok
    }
}
