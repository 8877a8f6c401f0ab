import MotionFusion

/// Bytes of IIO buffer scans, as the kernel would deliver them from `/dev/iio:deviceN`, for
/// streaming into a `UmockdevTestbed` PTY node. Each field sits at an offset aligned to its own
/// storage size (so a 64-bit timestamp after three 32-bit words starts at byte 16).
public enum UmockdevScan {
    /// `value` in `bytes` little-endian bytes (two's complement).
    public static func le(_ value: Int64, bytes: Int) -> [UInt8] {
        (0..<bytes).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (8 * UInt64($0))) }
    }

    /// `value` in `bytes` big-endian bytes.
    public static func be(_ value: Int64, bytes: Int) -> [UInt8] { le(value, bytes: bytes).reversed() }

    /// A 16-bit value in the low half of a 32-bit little-endian word with junk above it
    /// (`le:s16/32>>0`, as HID sensor hubs with 32-bit reports deliver it).
    public static func le16in32(_ value: Int64, junk: UInt16 = 0xBEEF) -> [UInt8] {
        le(value, bytes: 2) + le(Int64(junk), bytes: 2)
    }

    /// A 12-bit value left-aligned in 16 bits (`s12/16>>4`) with junk in the low nibble.
    public static func leftAligned12(_ value: Int64, junk: Int64 = 0x5) -> Int64 { (value << 4) | (junk & 0xF) }

    /// One scan of `accel_3d` in `Tests/Fixtures/umockdev/hid-sensor-hub.umockdev`
    /// (`le:s16/32>>0` x, y, z, then the `le:s64/64>>0` timestamp; 24 bytes).
    public static func hidAccel3D(raw: (Int64, Int64, Int64), timestampNanoseconds: Int64) -> [UInt8] {
        le16in32(raw.0) + le16in32(raw.1) + le16in32(raw.2) + [0, 0, 0, 0] + le(timestampNanoseconds, bytes: 8)
    }

    /// The `accel_3d` scan of the HID fixture that IIOSensors turns into `specificForce`
    /// (m/s², device frame, the pipeline's convention: face up ≈ (0, 0, +9.81)).
    ///
    /// The fixture's scale is 0.00980665 m/s² per LSB (1000 = 1 g) and its udev mount matrix
    /// M = [0 1 0; −1 0 0; 0 0 1]; IIOSensors reports −M·(raw·scale), hence
    /// raw = (a.y, −a.x, −a.z) / scale, rounded to whole counts.
    public static func hidAccel3D(specificForce a: Vector3, timestampNanoseconds: Int64) -> [UInt8] {
        let scale = 0.00980665
        let raw = (Int64((a.y / scale).rounded()), Int64((-a.x / scale).rounded()), Int64((-a.z / scale).rounded()))
        return hidAccel3D(raw: raw, timestampNanoseconds: timestampNanoseconds)
    }

    /// One scan of `gyro_3d` in the HID fixture (`le:s32/32>>0` x, y, z, timestamp; 24 bytes).
    public static func hidGyro3D(raw: (Int64, Int64, Int64), timestampNanoseconds: Int64) -> [UInt8] {
        le(raw.0, bytes: 4) + le(raw.1, bytes: 4) + le(raw.2, bytes: 4) + [0, 0, 0, 0] + le(timestampNanoseconds, bytes: 8)
    }
}
