import CarouselProtocol

/// `carouselctl calibrate`: Calibrate the motion sensor (gyro bias, neutral tilt, accelerometer).
enum CalibrateCommand {
    static let spec = CommandSpec(
        name: "calibrate",
        summary: "Calibrate the motion sensor (gyro bias, neutral tilt, accelerometer).",
        run: { _, _ in throw CommandError(.software, "calibrate: not implemented yet") }
    )
}
