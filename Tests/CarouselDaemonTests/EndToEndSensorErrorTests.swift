import CarouselProtocol
import CarouselTestSupport
import Testing

/// A sensor that cannot start, through the real daemon: the watcher is told why, and the error,
/// retried on every wake-up of the loop, is logged once rather than once per wake-up.
@Suite(.serialized) struct EndToEndSensorErrorTests {
    @Test func aFailingSensorIsExplainedToTheWatcherAndLoggedOnce() throws {
        // An unknown libiio backend: `iio_create_context` fails at once, every time.
        let daemon = try E2EDaemon("sensor-error", overrides: ["sensor": ["uri": "bogus:"]])
        let c = try daemon.client()
        try c.send(#"{"cmd":"watch"}"#)
        // The current SENSOR follows the first STATE; the error comes with the sensor's start.
        var sensor: WireJSON?
        for _ in 0..<8 where sensor?["status"] != .string("error") {
            let v = try c.readJSON()
            if v["class"] == .string("SENSOR") { sensor = v }
        }
        let got = try #require(sensor, "no SENSOR after watching")
        #expect(got["status"] == .string("error"))
        #expect(got["message"]?.stringValue?.contains("iio_create_context failed") == true)
        // 50 requests are 50 wake-ups, each retrying the start.
        for _ in 0..<50 {
            try c.send(#"{"cmd":"poll"}"#)
            var answered = false
            while !answered { answered = try c.readJSON().isState }
        }
        #expect(try daemon.stop() == 0)
        let failures = daemon.process.log.split(separator: "\n").filter { $0.contains("iio_create_context failed") }
        #expect(failures.count == 1, "\(failures.count) lines:\n\(failures.prefix(3).joined(separator: "\n"))")
    }
}
