#if canImport(Glibc)
import Glibc
#endif
import CarouselService
import Testing
@testable import IIOSensors

/// libiio's own stderr lines are caught and said once with a level (docs/SENSORS.md "Modes and
/// fallbacks", libiio's own messages).
@Suite(.serialized) struct LibIIOMessagesTests {
    @Test func linesWrittenToStderrAreCaughtAndOthersPassedOn() {
        let (value, lines) = LibIIOMessages.capturing { () -> Int in
            let text = "WARNING: High-speed mode not enabled\nERROR: Error during channel[0] disable: No such device\n"
            _ = text.withCString { write(2, $0, strlen($0)) }
            return 7
        }
        #expect(value == 7)
        #expect(lines == ["WARNING: High-speed mode not enabled", "ERROR: Error during channel[0] disable: No such device"])
        let (_, none) = LibIIOMessages.capturing(if: false) { () }
        #expect(none.isEmpty)
    }

    @Test func eachKindIsSaidOnceAtItsLevel() {
        var said: [(LogLevel, String)] = []
        // What libiio 0.24 printed for an unplugged HID accelerometer in the kernel suite.
        let gone = ["WARNING: High-speed mode not enabled", "ERROR: Error during buffer disable: No such file or directory (2)"]
            + (0..<4).map { "ERROR: Error during channel[\($0)] disable: No such file or directory (2)" }
        LibIIOMessages.report(gone, who: "accel_3d (iio:device0)") { said.append(($0, $1)) }
        #expect(said.map(\.0) == [.debug, .debug])
        #expect(said.last?.1 == "accel_3d (iio:device0): libiio could not disable the buffer or its scan elements "
                + "(5 writes: No such file or directory (2)): the device is gone")
        said = []
        LibIIOMessages.report(["ERROR: Error during channel[1] disable: Permission denied", "ERROR: something else\u{1b}"],
                              who: "d") { said.append(($0, $1)) }
        #expect(said.map(\.0) == [.warning, .warning])
        #expect(said.first?.1 == "d: libiio: ERROR: something else\\x1b")
        #expect(said.last?.1 == "d: libiio could not disable the buffer or its scan elements (1 writes: Permission denied)")
    }
}
