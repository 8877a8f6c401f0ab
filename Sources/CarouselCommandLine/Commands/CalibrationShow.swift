import CarouselProtocol

/// `carouselctl calibration show`: Show the calibration file in use.
enum CalibrationShowCommand {
    static let spec = CommandSpec(
        name: "calibration show",
        summary: "Show the calibration file in use.",
        run: { _, _ in throw CommandError(.software, "calibration show: not implemented yet") }
    )
}
