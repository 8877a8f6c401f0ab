/// Formats samples as rows of the native recording CSV (docs/CLI.md "record"):
/// `timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z`, m/s² and rad/s, gyro fields
/// empty for an accelerometer-only sample. Numbers use Swift's shortest round-trip form, so
/// `RecordingReader` reads back exactly the same `Double` values.
public enum NativeRecordingWriter {
    /// The header line, without line terminator (same as `RecordingFormat.nativeHeader`).
    public static var header: String { RecordingFormat.nativeHeader }

    /// One row for `sample`, without line terminator. Non-finite values are written as-is
    /// (`nan`, `inf`); the reader rejects them, so callers should not record such samples.
    public static func line(for sample: IMUSample) -> String {
        var s = String(sample.timestampNanoseconds)
        s += ","
        s += format(sample.accel.x); s += ","
        s += format(sample.accel.y); s += ","
        s += format(sample.accel.z)
        if let g = sample.gyro {
            s += ","; s += format(g.x)
            s += ","; s += format(g.y)
            s += ","; s += format(g.z)
        } else {
            s += ",,,"
        }
        return s
    }

    private static func format(_ v: Double) -> String {
        // `-0.0` prints as "-0.0"; keep files free of negative zeros.
        v == 0 ? "0" : v.description
    }
}
