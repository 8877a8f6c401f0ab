import MotionFusion

/// What a sensor measures: its channels decide (`in_accel_*`, `in_anglvel_*`).
public enum SensorKind: String, Sendable, Equatable {
    case accel, gyro, imu
}

/// Where a mount matrix came from, in precedence order (docs/SENSORS.md "Values").
public enum MountMatrixSource: String, Sendable, Equatable {
    /// udev property `ACCEL_MOUNT_MATRIX` / `GYRO_MOUNT_MATRIX` (systemd hwdb).
    case udev
    /// sysfs `in_accel_mount_matrix` / `in_anglvel_mount_matrix` (shared by type), `in_mount_matrix`
    /// (shared by direction: bmc150, bmi160, mpu6050) or `mount_matrix` (shared by all: lsm6dsx).
    case sysfs
    /// Nothing valid found.
    case identity
}

/// One channel of a sensor as `carouselctl sensors` lists it.
public struct SensorChannelInfo: Sendable, Equatable {
    /// libiio channel id: `accel_x`, `anglvel_z`, `timestamp`.
    public var name: String
    /// Scan index from `scan_elements/*_index`, or nil when the channel is not a scan element.
    public var index: Int?
    /// Storage type as in `scan_elements/*_type` (`le:s12/16>>4`), or nil.
    public var type: String?
    /// Scale: per-axis `in_accel_x_scale` over shared `in_accel_scale` over device `scale`;
    /// 1.0 when none exists (the sensor then carries a warning; a gyroscope is then not read).
    public var scale: Double
    /// Offset, same precedence; 0 when none exists.
    public var offset: Double
}

/// A discovered IIO motion sensor (one IIO device), with everything `carouselctl sensors`
/// prints (docs/CLI.md "sensors") and what selection and pairing need.
public struct SensorInfo: Sendable, Equatable {
    /// libiio/kernel id, `iio:deviceN`.
    public var id: String
    /// The `name` attribute (driver name).
    public var name: String
    /// The `label` attribute, or "" when absent.
    public var label: String
    /// sysfs path (`/sys/devices/...`), or `URI/id` for a remote context.
    public var path: String
    /// Device node (`/dev/iio:deviceN`), or "" when unknown.
    public var dev: String
    public var kind: SensorKind
    /// Channels in scan index order, non-scan channels last.
    public var channels: [SensorChannelInfo]
    /// The accelerometer's mount matrix (the gyro's for a gyro-only device).
    public var mountMatrix: MountMatrix
    public var mountMatrixSource: MountMatrixSource
    /// The gyroscope's mount matrix when the device has one (`in_anglvel_mount_matrix`,
    /// `GYRO_MOUNT_MATRIX`), else nil: the accelerometer's applies (docs/SENSORS.md "Values").
    public var gyroMountMatrix: MountMatrix?
    /// Current `sampling_frequency`, Hz, or nil.
    public var samplingFrequencyHz: Double?
    /// `*_sampling_frequency_available`, Hz, ascending.
    public var samplingFrequencyAvailableHz: [Double]
    /// Whether the device has a buffer with scan elements.
    public var buffered: Bool
    /// Names of triggers that belong to this device (`accel_3d-dev0`).
    public var triggers: [String]
    /// Problems found while reading the description (missing scale, bad matrix, …).
    public var warnings: [String]
    /// Where the sensor sits according to `label`, `location` or udev `*_LOCATION`
    /// (`display`, `base`, or "" when unknown).
    public var location: String
    /// Parent and grandparent device paths, used to pair accelerometer and gyroscope devices.
    public var parentPath: String?
    public var grandparentPath: String?
    /// Whether a gyroscope axis has no `scale`: raw counts are not rad/s, so selection drops the
    /// angular rate and reads the accelerometer alone (the warnings say so).
    public var gyroScaleMissing = false

    /// Whether it measures acceleration / angular rate.
    public var hasAccel: Bool { kind != .gyro }
    /// `name (iio:deviceN)`, as messages name the device: the driver's name with its control
    /// characters escaped (`printable`), so a name holding a newline or an escape sequence
    /// stays one log line and cannot forge another.
    public var who: String { "\(printable(name)) (\(id))" }
    public var hasGyro: Bool { kind != .accel }
}
