import CarouselProtocol

/// `carouselctl reload`: the `reload` request of docs/PROTOCOL.md "Requests" (configuration and calibration).
enum ReloadCommand {
    static let spec = CommandSpec(
        name: "reload",
        summary: "Make carouseld re-read its configuration and calibration.",
        discussion: """
        Sends 'reload' to carouseld (a control command), like 'systemctl reload carouseld' (SIGHUP) \
        but with an answer: a configuration the daemon refuses is reported here, and the daemon \
        keeps its old configuration. Prints nothing on success.
        Exit status: 0 reloaded, 69 carouseld not running, 77 not allowed, 78 the daemon refused \
        the new configuration or calibration (its message names the file and line).
        """,
        options: [OperatorSettings.socketOption, OperatorSettings.configOption],
        run: { args, io in
            let settings = try OperatorSettings.load(args, io: io)
            let client = try settings.connect(args)
            defer { client.close() }
            let reply = try client.request(ControlRequest.reload, cmd: "reload", expecting: ["ACK", "ERROR"])
            if reply["class"]?.stringValue == "ERROR" {
                let error = DaemonClient.error(from: reply, cmd: "reload", socketPath: client.socketPath)
                // Any refusal other than rights means the files are at fault, not the connection.
                throw error.status == .noPermission ? error : CommandError(.configuration, error.message)
            }
            return .ok
        }
    )
}
