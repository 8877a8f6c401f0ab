/// The `code` of an `ERROR` object (docs/PROTOCOL.md "Server messages").
public enum ProtocolErrorCode: String, Sendable, CaseIterable, Equatable {
    /// The line is not one JSON object.
    case badJSON = "bad_json"
    /// `cmd` is missing, not a string, or names no command.
    case unknownCommand = "unknown_cmd"
    /// A field is missing, has the wrong type or is out of range; the message names it.
    case badField = "bad_field"
    /// A control command from a peer that is not uid 0, the daemon's uid, or in `control_group`.
    case notAllowed = "not_allowed"
    /// The request line is longer than 64 KiB; the connection is closed after this error.
    case tooLong = "too_long"
    /// The connection is refused: `max_clients`, the uid's `max_clients_per_uid`, or only the
    /// `control_reserve` slots left for a peer without control rights (the message names the
    /// limit); the connection is closed after this error.
    case tooManyClients = "too_many_clients"
    /// No request for `idle_timeout_s` seconds from a client without control rights that does
    /// not watch; the connection is closed after this error.
    case idleTimeout = "idle_timeout"
    /// The request cannot be served now (e.g. no sensor, or a reload failed).
    case unavailable
}

/// A protocol error to send as `ERROR {code, message, cmd?}`.
public struct ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: ProtocolErrorCode
    /// One line naming the problem (and the field, for `bad_field`).
    public var message: String
    /// The request's `cmd`, when it was known.
    public var cmd: String?

    public init(_ code: ProtocolErrorCode, _ message: String, cmd: String? = nil) {
        self.code = code
        self.message = message
        self.cmd = cmd
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
