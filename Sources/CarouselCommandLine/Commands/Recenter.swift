import CarouselProtocol

/// `carouselctl recenter`: the `recenter_tilt` request of docs/PROTOCOL.md "Requests".
enum RecenterCommand {
    static let spec = CommandSpec(
        name: "recenter",
        summary: "Make the device's current attitude the neutral (level) tilt.",
        discussion: """
        Sends 'recenter_tilt' to carouseld (a control command): the attitude the device has now \
        becomes roll = pitch = 0 until the next recenter, reload or restart. To make a neutral \
        attitude permanent, run 'carouselctl calibrate' instead. Prints nothing on success.
        Exit status: 0 done, 69 carouseld not running (or no sensor), 77 not allowed.
        """,
        options: [OperatorSettings.socketOption, OperatorSettings.configOption],
        run: { args, io in
            try ControlRequest.send(ControlRequest.recenterTilt, cmd: "recenter_tilt", args: args, io: io)
        }
    )
}
