import CarouselProtocol

/// `carouselctl calibration reset`: Remove the calibration file (keeping a .bak).
enum CalibrationResetCommand {
    static let spec = CommandSpec(
        name: "calibration reset",
        summary: "Remove the calibration file (keeping a .bak).",
        run: { _, _ in throw CommandError(.software, "calibration reset: not implemented yet") }
    )
}
