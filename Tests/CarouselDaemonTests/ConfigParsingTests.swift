import CarouselConfig
import CarouselEngine
import CarouselProtocol
import Testing
@testable import CarouselDaemon
#if canImport(Glibc)
import Glibc
#endif

/// Parsing and validation of the INI configuration (docs/CONFIGURATION.md "Keys").
@Suite struct ConfigParsingTests {
    static let everyKeyText = """
    [sensor]
    source = replay
    uri = ip:192.168.1.20
    device = bmi160
    accel_convention = specific-force
    sample_rate_hz = 200
    mode = polled
    always_on = yes
    replay_file = /data/rec.csv
    replay_loop = true
    replay_speed = 2.5

    [filter]
    method = complementary
    gain = 0.8
    lowpass_hz = 7.5
    accel_rejection_deg = 20

    [tilt]
    enabled = no
    axis = pitch
    display_rotation = 270
    mode = position
    dead_zone_deg = 2
    max_deg = 30
    max_items_per_second = 4.5
    neutral_tracking_s = 60
    orientation_face_deg = 70
    orientation_hysteresis_deg = 15
    orientation_dwell_s = 0.8

    [carousel]
    count = 7
    viewport_width = 375
    viewport_height = 667
    item_width = 160
    item_height = 220
    spacing = 12
    axis = vertical
    direction = rtl
    cyclic = on
    style = coverFlow
    paging = single
    deceleration_rate = fast
    free_sticky_velocity = 120
    group_size = 3
    align = start
    contain = yes
    autoplay_s = 4.5
    autoplay_resume_s = 20
    autoplay_step = -2

    [style.custom]
    prev_translate_x = -0.5
    prev_translate_y = 0.1
    prev_translate_z = -1
    prev_rotate_x = 5
    prev_rotate_y = 30
    prev_rotate_z = -2
    prev_scale = 0.8
    prev_opacity = 0.6
    next_translate_x = 0.5
    next_translate_y = -0.1
    next_translate_z = -1.5
    next_rotate_x = -5
    next_rotate_y = -30
    next_rotate_z = 2
    next_scale = 0.7
    next_opacity = 0.4
    limit = 2
    perspective = 800

    [server]
    socket = /tmp/x.sock
    socket_mode = 0600
    socket_group = video
    control_group = wheel
    max_clients = 8
    control_reserve = 2
    max_clients_per_uid = 3
    idle_timeout_s = 12.5
    max_rate_hz = 30
    sensor_proxy = yes

    [calibration]
    file = /etc/carouseld/cal.conf

    """

    @Test func everyKeyIsParsed() throws {
        let parsed = try DaemonConfiguration.parse(text: Self.everyKeyText, path: "/etc/carouseld/all.conf")
        let expected = DaemonConfiguration(
            sensor: SensorSettings(source: .replay, uri: "ip:192.168.1.20", device: "bmi160",
                                   accelConvention: .specificForce, sampleRateHz: 200, mode: .polled,
                                   alwaysOn: true, replayFile: "/data/rec.csv", replayLoop: true, replaySpeed: 2.5),
            filter: FilterSettings(method: .complementary, gain: 0.8, lowpassHz: 7.5, accelRejectionDeg: 20),
            tilt: TiltSection(mapping: TiltSettings(enabled: false, mode: .position, deadZoneDegrees: 2, maxDegrees: 30,
                                                    maxItemsPerSecond: 4.5),
                              axis: .pitch, displayRotation: 270, neutralTrackingSeconds: 60,
                              orientation: .init(faceDegrees: 70, hysteresisDegrees: 15, dwellSeconds: 0.8)),
            carousel: CarouselSettings(count: 7, viewportWidth: 375, viewportHeight: 667, itemWidth: 160,
                                       itemHeight: 220, spacing: 12, axis: .vertical, direction: .rightToLeft,
                                       cyclic: true, style: .coverFlow, paging: .single, decelerationRate: 0.99),
            server: ServerSettings(socketPath: "/tmp/x.sock", socketMode: 0o600, socketGroup: "video",
                                   controlGroup: "wheel", maxClients: 8, controlReserve: 2, maxClientsPerUID: 3,
                                   idleTimeoutSeconds: 12.5, maxRateHz: 30, sensorProxy: true),
            calibration: CalibrationSettings(file: "/etc/carouseld/cal.conf"))
        var features = expected
        features.carousel.freeStickyVelocity = 120
        features.carousel.groupSize = 3
        features.carousel.align = .start
        features.carousel.contain = true
        features.carousel.autoplaySeconds = 4.5
        features.carousel.autoplayResumeSeconds = 20
        features.carousel.autoplayStep = -2
        features.customStyle = CustomStyle(
            previous: CustomSide(translateX: -0.5, translateY: 0.1, translateZ: -1, rotateX: 5, rotateY: 30, rotateZ: -2,
                                 scale: 0.8, opacity: 0.6),
            next: CustomSide(translateX: 0.5, translateY: -0.1, translateZ: -1.5, rotateX: -5, rotateY: -30, rotateZ: 2,
                             scale: 0.7, opacity: 0.4),
            limit: 2, perspective: 800)
        #expect(parsed == features)
        // The text above must set every key the loader knows, so a new key needs a new line here.
        for (section, key) in DaemonConfiguration.knownKeys {
            #expect(Self.everyKeyText.contains("\n\(key) = "), "[\(section)] \(key) not covered")
        }
        #expect(DaemonConfiguration.knownKeys.count == 73)
    }

    @Test func emptyTextGivesDefaults() throws {
        // Text, not a file: a file must hold a [section] (ReloadValidationTests).
        let parsed = try DaemonConfiguration.parse(text: "", path: "/etc/carouseld/carouseld.conf")
        #expect(parsed == .defaults)
    }

    @Test func defaultsMatchTheContract() {
        // docs/CONFIGURATION.md "Keys" values.
        let d = DaemonConfiguration.defaults
        #expect(d.sensor.source == .iio && d.sensor.uri == "local:" && d.sensor.device.isEmpty)
        #expect(d.sensor.accelConvention == .gravity && d.sensor.mode == .auto && !d.sensor.alwaysOn)
        #expect(d.sensor.sampleRateHz == 100 && d.sensor.replaySpeed == 1 && !d.sensor.replayLoop)
        #expect(d.filter.method == .inertial && d.filter.gain == 0.5 && d.filter.lowpassHz == 0 && d.filter.accelRejectionDeg == 10)
        #expect(d.tilt.mapping.enabled && d.tilt.axis == .auto && d.tilt.displayRotation == 0 && d.tilt.mapping.mode == .velocity)
        #expect(d.tilt.mapping.deadZoneDegrees == 3 && d.tilt.mapping.maxDegrees == 25 && d.tilt.mapping.maxItemsPerSecond == 3)
        #expect(d.tilt.neutralTrackingSeconds == 0)
        #expect(d.carousel.spacing == 40 && d.carousel.axis == .horizontal && d.carousel.direction == .leftToRight)
        #expect(!d.carousel.cyclic && d.carousel.style == .linear && d.carousel.paging == .momentum)
        #expect(d.carousel.decelerationRate == 0.998)
        #expect(d.server.socketPath == "/run/carouseld/carouseld.sock" && d.server.socketMode == 0o660)
        #expect(d.server.maxClients == 64 && d.server.maxRateHz == 60)
        #expect(d.server.controlReserve == 4 && d.server.maxClientsPerUID == 16 && d.server.idleTimeoutSeconds == 30)
        #expect(d.calibration.file == "/var/lib/carouseld/calibration.conf")
    }

    @Test func syntaxVariantsLibinihAccepts() throws {
        // CRLF, a BOM, `:` as separator, `;` inline comments, any case for enums and booleans.
        let text = "\u{FEFF}[sensor]\r\nsample_rate_hz: 50\r\nsource = Replay ; inline comment\r\n"
            + "replay_file = r.csv\r\nalways_on = TRUE\r\n# comment\r\n; comment\r\n"
        let parsed = try DaemonConfiguration.parse(text: text, path: "/srv/c.conf")
        #expect(parsed.sensor.sampleRateHz == 50)
        #expect(parsed.sensor.source == .replay)
        #expect(parsed.sensor.alwaysOn)
        #expect(parsed.sensor.replayFile == "/srv/r.csv")
    }

    @Test func unknownKeyNamesFileLineSectionAndKey() {
        let text = "[tilt]\n; comment\n\nsensitivity = 3\n"
        #expect(throws: ConfigurationError.unknownKey(path: "/etc/c.conf", line: 4, section: "tilt", key: "sensitivity",
                                                      known: ["enabled", "axis", "display_rotation", "mode", "dead_zone_deg",
                                                              "max_deg", "max_items_per_second", "neutral_tracking_s",
                                                              "orientation_face_deg", "orientation_hysteresis_deg",
                                                              "orientation_dwell_s"])) {
            try DaemonConfiguration.parse(text: text, path: "/etc/c.conf")
        }
        do {
            _ = try DaemonConfiguration.parse(text: text, path: "/etc/c.conf")
        } catch {
            #expect(error.description.hasPrefix("/etc/c.conf:4: [tilt] unknown key 'sensitivity'; known keys: enabled, axis,"))
            #expect(error.exitStatus == .configuration)
        }
    }

    @Test func unknownSectionIsAnErrorEvenWhenEmpty() {
        #expect(throws: ConfigurationError.unknownSection(path: "c.conf", line: 3, section: "sensors",
                                                          known: ["sensor", "filter", "tilt", "carousel", "style.custom", "server", "calibration"])) {
            try DaemonConfiguration.parse(text: "[sensor]\nmode = auto\n[sensors]\n", path: "c.conf")
        }
    }

    @Test(arguments: [
        ("[sensor]\nsample_rate_hz = fast\n", 2, "sensor", "sample_rate_hz", "fast", "a number from 1 to 2000 (Hz)"),
        ("[sensor]\nsample_rate_hz = 0\n", 2, "sensor", "sample_rate_hz", "0", "a number from 1 to 2000 (Hz)"),
        ("[sensor]\nreplay_speed = nan\n", 2, "sensor", "replay_speed", "nan", "a number from 0.01 to 100 (times real time)"),
        ("[sensor]\nsource = usb\n", 2, "sensor", "source", "usb", "one of iio, replay"),
        ("[sensor]\naccel_convention = up\n", 2, "sensor", "accel_convention", "up", "one of gravity, specific-force"),
        ("[sensor]\n\nalways_on = maybe\n", 3, "sensor", "always_on", "maybe", "yes or no (also true/false, on/off, 1/0)"),
        ("[filter]\nmethod = kalman\n", 2, "filter", "method", "kalman", "one of inertial, fusion, complementary, accel"),
        ("[filter]\ngain = 0.8 # not a comment\n", 2, "filter", "gain", "0.8 # not a comment", "a number from 0 to 10"),
        ("[filter]\nlowpass_hz = -1\n", 2, "filter", "lowpass_hz", "-1", "a number from 0 to 500 (Hz, 0 = off)"),
        ("[tilt]\ndead_zone_deg = 95\n", 2, "tilt", "dead_zone_deg", "95", "a number from 0 to 89 (degrees)"),
        ("[tilt]\ndisplay_rotation = 45\n", 2, "tilt", "display_rotation", "45", "auto or one of 0, 90, 180, 270 (degrees clockwise)"),
        ("[tilt]\nmax_deg = 1e400\n", 2, "tilt", "max_deg", "1e400", "a number from 1 to 90 (degrees)"),
        ("[carousel]\ncount = 3.5\n", 2, "carousel", "count", "3.5", "a whole number from 0 to 1000000000 (items)"),
        ("[carousel]\nstyle = carousel\n", 2, "carousel", "style", "carousel", "one of linear, zoom, stacked, coverFlow, rotary, cylinder, custom"),
        ("[carousel]\ndeceleration_rate = 1.5\n", 2, "carousel", "deceleration_rate", "1.5",
         "normal (0.998), fast (0.99) or a number from 0.5 to 0.9999 (per millisecond)"),
        ("[server]\nsocket_mode = 0889\n", 2, "server", "socket_mode", "0889", "octal permission bits from 0000 to 0777, e.g. 0660"),
        ("[server]\nsocket = run/c.sock\n", 2, "server", "socket", "run/c.sock", "an absolute path"),
        ("[server]\nmax_clients = 0\n", 2, "server", "max_clients", "0", "a whole number from 1 to 4096 (connections)"),
        ("[calibration]\nfile =\n", 2, "calibration", "file", "", "a path to the calibration file"),
    ])
    func badValueNamesLineKeyValueAndWhatIsAllowed(text: String, line: Int, section: String, key: String,
                                                   value: String, expected: String) {
        #expect(throws: ConfigurationError.badValue(path: "/etc/carouseld/carouseld.conf", line: line, section: section,
                                                    key: key, value: value, expected: expected)) {
            try DaemonConfiguration.parse(text: text, path: "/etc/carouseld/carouseld.conf")
        }
    }

    @Test func badValueMessage() {
        let error = ConfigurationError.badValue(path: "/etc/c.conf", line: 7, section: "sensor", key: "source",
                                                value: "usb", expected: "one of iio, replay")
        #expect(error.description == "/etc/c.conf:7: [sensor] source: bad value 'usb': expected one of iio, replay")
    }

    @Test func libinihSyntaxErrorLine() {
        #expect(throws: ConfigurationError.syntax(path: "c.conf", line: 3, text: "source iio")) {
            try DaemonConfiguration.parse(text: "[sensor]\n# ok\nsource iio\nmode = auto\n", path: "c.conf")
        }
        #expect(throws: ConfigurationError.syntax(path: "c.conf", line: 2, text: "[tilt")) {
            try DaemonConfiguration.parse(text: "\n[tilt\nmode = velocity\n", path: "c.conf")
        }
        // A value that is not UTF-8 (Latin-1 'é') is refused, not bound as another path.
        #expect(throws: ConfigurationError.valueNotUTF8(path: "c.conf", line: 2, section: "server", key: "socket")) {
            try DaemonConfiguration.parse(text: String(decoding: Array("[server]\nsocket = /tmp/caf".utf8) + [0xE9, 0x0A],
                                                       as: UTF8.self), path: "c.conf")
        }
        #expect(ConfigurationError.valueNotUTF8(path: "c.conf", line: 2, section: "server", key: "socket").description
                == "c.conf:2: [server] socket: the value is not UTF-8 text (a byte that is not UTF-8, shown as U+FFFD, "
                + "would silently change it); write the file in UTF-8")
        #expect(ConfigurationError.syntax(path: "c.conf", line: 3, text: "source iio").description
                == "c.conf:3: syntax error: expected '[section]', 'key = value' or a comment, found 'source iio'")
    }

    @Test func structuralMistakes() {
        #expect(throws: ConfigurationError.keyOutsideSection(path: "c.conf", line: 2, key: "source")) {
            try DaemonConfiguration.parse(text: "# top\nsource = iio\n", path: "c.conf")
        }
        #expect(throws: ConfigurationError.duplicateKey(path: "c.conf", line: 4, section: "tilt", key: "max_deg", firstLine: 2)) {
            try DaemonConfiguration.parse(text: "[tilt]\nmax_deg = 20\nmode = velocity\nmax_deg = 30\n", path: "c.conf")
        }
        // An indented key after a key is a libinih continuation line, not a key.
        #expect(throws: ConfigurationError.continuationLine(path: "c.conf", line: 3, section: "sensor", key: "source")) {
            try DaemonConfiguration.parse(text: "[sensor]\nsource = iio\n  replay_loop = yes\n", path: "c.conf")
        }
        // A file with every key indented, as many INI files are written, fails on its second key:
        // the message is about that line, and names the key above only as what libinih would extend.
        do {
            _ = try DaemonConfiguration.parse(text: "[tilt]\n  max_deg = 20\n  dead_zone_deg = 5\n", path: "c.conf")
            Issue.record("an indented key after a key was accepted")
        } catch {
            #expect(error.description == "c.conf:3: line starts with whitespace: keys must not be indented (libinih would read "
                    + "this line as more of the value of [tilt] max_deg above); start it at the beginning of the line")
        }
        let long = "# " + String(repeating: "x", count: 250)
        #expect(throws: ConfigurationError.lineTooLong(path: "c.conf", line: 2, maximum: 197)) {
            try DaemonConfiguration.parse(text: "[sensor]\n\(long)\nsource = iio\n", path: "c.conf")
        }
    }

    @Test func combinationsAreChecked() {
        #expect(throws: ConfigurationError.inconsistent(path: "c.conf", line: 3, section: "tilt", key: "max_deg",
                                                        message: "max_deg (10°) must be greater than dead_zone_deg (20°)")) {
            try DaemonConfiguration.parse(text: "[tilt]\ndead_zone_deg = 20\nmax_deg = 10\n", path: "c.conf")
        }
        // Only the dead zone is set: it is the key to blame (the default max_deg is 25).
        #expect(throws: ConfigurationError.inconsistent(path: "c.conf", line: 2, section: "tilt", key: "dead_zone_deg",
                                                        message: "max_deg (25°) must be greater than dead_zone_deg (30°)")) {
            try DaemonConfiguration.parse(text: "[tilt]\ndead_zone_deg = 30\n", path: "c.conf")
        }
        #expect(throws: ConfigurationError.inconsistent(path: "c.conf", line: 2, section: "sensor", key: "replay_file",
                                                        message: "source = replay needs replay_file (a native CSV recording)")) {
            try DaemonConfiguration.parse(text: "[sensor]\nsource = replay\n", path: "c.conf")
        }
    }

    @Test func relativePathsAreRelativeToTheConfigDirectory() throws {
        let text = "[sensor]\nsource = replay\nreplay_file = ../data/rec.csv\n[calibration]\nfile = cal.conf\n"
        let absolute = try DaemonConfiguration.parse(text: text, path: "/opt/carouseld/configs/demo.conf")
        #expect(absolute.sensor.replayFile == "/opt/carouseld/configs/../data/rec.csv")
        #expect(absolute.calibration.file == "/opt/carouseld/configs/cal.conf")

        var buffer = [CChar](repeating: 0, count: 4096)
        let cwd = String(cString: getcwd(&buffer, buffer.count))
        let relative = try DaemonConfiguration.parse(text: text, path: "configs/demo.conf")
        #expect(relative.sensor.replayFile == cwd + "/configs/../data/rec.csv")
        let bare = try DaemonConfiguration.parse(text: text, path: "demo.conf")
        #expect(bare.calibration.file == cwd + "/cal.conf")
        let root = try DaemonConfiguration.parse(text: text, path: "/demo.conf")
        #expect(root.calibration.file == "/cal.conf")
    }

    /// STATUS `config_path` is the file's absolute path, so a client in another directory can
    /// open it: `configs/demo.conf` given from the checkout was reported as it was typed.
    @Test func theConfigurationPathIsMadeAbsoluteForStatus() {
        var buffer = [CChar](repeating: 0, count: 4096)
        let cwd = String(cString: getcwd(&buffer, buffer.count))
        #expect(ConfigurationFile.absolute("configs/demo.conf") == cwd + "/configs/demo.conf")
        #expect(ConfigurationFile.absolute("demo.conf") == cwd + "/demo.conf")
        #expect(ConfigurationFile.absolute("../x/c.conf") == cwd + "/../x/c.conf")
        #expect(ConfigurationFile.absolute("/etc/carouseld/carouseld.conf") == "/etc/carouseld/carouseld.conf")
    }

    @Test func loadReportsMissingAndUnreadableFiles() {
        let directory = ServiceTestSupport.temporaryDirectory()
        #expect(throws: ConfigurationError.fileMissing(path: directory + "/none.conf")) {
            try DaemonConfiguration.load(path: directory + "/none.conf")
        }
        #expect(ConfigurationError.fileMissing(path: "x").exitStatus == .noInput)
        // A directory opens but cannot be read: EISDIR, an I/O error.
        #expect(throws: ConfigurationError.unreadable(path: directory, errno: EISDIR)) {
            try DaemonConfiguration.load(path: directory)
        }
        #expect(ConfigurationError.unreadable(path: directory, errno: EISDIR).exitStatus == .ioError)
        #expect(ConfigurationError.unreadable(path: "x", errno: EACCES).exitStatus == .noPermission)
    }

    @Test func loadReadsAFile() throws {
        let directory = ServiceTestSupport.temporaryDirectory()
        let path = directory + "/c.conf"
        #expect(ServiceTestSupport.writeFile(path, "[server]\nmax_clients = 5\n[sensor]\nsource = replay\nreplay_file = r.csv\n"))
        let loaded = try DaemonConfiguration.load(path: path)
        #expect(loaded.server.maxClients == 5)
        #expect(loaded.sensor.replayFile == directory + "/r.csv")
    }
}

/// Lines at libinih's buffer limit: 197 bytes (plus CR LF) are read whole, longer ones refused
/// before libinih could split them into a bogus extra line.
@Suite struct ConfigLineLengthTests {
    @Test func aLineOfTheMaximumLengthIsReadWhole() throws {
        let value = String(repeating: "d", count: 197 - "device = ".utf8.count)
        let parsed = try DaemonConfiguration.parse(text: "[sensor]\r\ndevice = \(value)\r\nmode = polled\r\n", path: "c.conf")
        #expect(parsed.sensor.device == value)
        #expect(parsed.sensor.mode == .polled)
    }

    @Test func aLongCommentWithAnEqualsSignIsRefusedNotMisread() {
        let comment = "# " + String(repeating: "x", count: 200) + " mode = polled"
        #expect(throws: ConfigurationError.lineTooLong(path: "c.conf", line: 2, maximum: 197)) {
            try DaemonConfiguration.parse(text: "[sensor]\n\(comment)\n", path: "c.conf")
        }
    }
}
