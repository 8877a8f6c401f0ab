import CarouselProtocol
import Testing
@testable import CarouselCommandLine

/// `carouselctl status` says which estimator is used in place of `[filter] method` (STATUS
/// `estimator`, an accelerometer without a gyroscope), and nothing when STATUS has none.
@Suite struct StatusEstimatorTextTests {
    @Test func theSubstitutedEstimatorHasItsOwnRow() throws {
        let greeting = try WireJSONParser.parse(#"{"class":"VERSION","release":"0.1.0","proto_major":1,"proto_minor":2}"#)
        let state = try WireJSONParser.parse(#"{"class":"STATE","seq":2,"index":0,"position":0,"phase":"idle","count":5,"tilt":{"roll_deg":1,"pitch_deg":2,"enabled":true},"sensor":"ok"}"#)
        let status = try WireJSONParser.parse(#"{"class":"STATUS","release":"0.1.0","sensor":"ok","sample_rate_hz":50,"clients":1,"watchers":1,"sensor_name":"accel_3d","estimator":{"configured":"inertial","used":"accel","lowpass_hz":3,"reason":"the sensor has no gyroscope"}}"#)
        let text = StatusText.render(greeting: greeting, status: status, state: state, socketPath: "/run/carouseld/carouseld.sock")
        #expect(text.contains("  sensor:       ok (accel_3d), 50 Hz\n  estimator:    accel with a 3.0 Hz low-pass in place of inertial (the sensor has no gyroscope)\n"))
        let plain = try WireJSONParser.parse(#"{"class":"STATUS","release":"0.1.0","sensor":"ok","clients":1,"watchers":1}"#)
        #expect(!StatusText.render(greeting: greeting, status: plain, state: state, socketPath: "/s").contains("estimator"))
    }
}
