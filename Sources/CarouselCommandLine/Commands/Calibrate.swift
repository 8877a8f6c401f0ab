import CarouselProtocol

/// `carouselctl calibrate`: gyro bias, neutral tilt and noise from a still device, or the
/// accelerometer's per-axis offset and scale from six poses; writes the calibration file (docs/CLI.md "calibrate").
enum CalibrateCommand {
    static let spec = CommandSpec(
        name: "calibrate",
        summary: "Calibrate the motion sensor (gyro bias, neutral tilt, accelerometer).",
        discussion: """
        Still calibration (default): leave the device at rest in its normal position for \
        --duration seconds (default 10). The mean gyro rate becomes the gyro bias, the mean \
        acceleration the neutral tilt, the spreads the noise figures. The device must not move: \
        a standard deviation above 0.2 m/s² on an accelerometer axis or above 0.05 rad/s on a \
        gyroscope axis, or a mean rotation above 0.2 rad/s, refuses the calibration (exit 65). \
        It reports which device axis points up and warns when that contradicts [sensor] \
        accel_convention or [tilt] display_rotation. An earlier six-position result for the same \
        sensor is kept.

        Six-position calibration (--six-position): place the device with each axis up in turn \
        (+X, -X, +Y, -Y, +Z, -Z) when prompted; or give six recordings with --from-files in that \
        order. Fits the accelerometer's per-axis offset and scale so that |a| = 1 g in every pose.

        Samples come from the running daemon (the 'samples' request, which needs control rights), \
        from the sensor directly when carouseld is not running (--sensor NAME forces that), or \
        from a recording (--replay FILE; native CSV or the x-io, BROAD and NCSU dataset formats).

        The file (default: [calibration] file of the config, /var/lib/carouseld/calibration.conf) \
        is replaced atomically and the previous one kept as FILE.bak; then carouseld is told to \
        reload. Without --yes, an interactive terminal asks before writing.
        Exit status: 0 written, 1 not confirmed or interrupted (nothing written), 64 usage, 65 \
        refused (device moved, poses missing, bad recording), 66 recording or --config missing, 69 \
        no sensor and no daemon, 74 write failed, 77 not allowed, 78 invalid --config.
        """,
        options: [
            OptionSpec("--duration", short: "-d", value: "SECONDS", help: "Capture length: still 10 s, six-position 5 s per pose (0.5…3600)."),
            OptionSpec("--output", short: "-o", value: "FILE", help: "Calibration file to write (default: [calibration] file of the config)."),
            OptionSpec("--socket", short: "-s", value: "PATH", help: "Take samples from the carouseld listening on PATH (it must run)."),
            OptionSpec("--sensor", value: "NAME", help: "Read this IIO sensor directly; with --replay/--from-files: the sensor name the file is for."),
            OptionSpec("--replay", value: "FILE", help: "Compute from a recording instead of live samples (--duration limits it)."),
            OptionSpec("--six-position", help: "Interactive six-position accelerometer calibration."),
            OptionSpec("--from-files", help: "Six-position calibration from six recordings X+ X- Y+ Y- Z+ Z-."),
            OptionSpec("--yes", short: "-y", help: "Do not ask before writing the file."),
            OperatorSettings.configOption,
        ],
        positionals: [PositionalSpec("FILE", optional: true, variadic: true, help: "With --from-files: the six recordings X+ X- Y+ Y- Z+ Z-.")],
        run: { args, io in try CalibrateRun.run(args, io: io) }
    )
}
