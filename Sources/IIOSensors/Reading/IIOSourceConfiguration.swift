/// How `IIOSensorSource` reads (config key `[sensor] mode`).
public enum IIOReadMode: String, Sendable, CaseIterable {
    /// Buffered when the device has a buffer, polled otherwise or when the buffer fails.
    case auto
    /// Buffered; still falls back to polled (with a message) when the buffer cannot work.
    case buffered
    /// `*_raw` reads on a timer only.
    case polled
}

/// What `IIOSensorSource` reads and how.
public struct IIOSourceConfiguration: Sendable {
    /// libiio URI; nil or `local:` for this machine, `ip:HOST` for a remote iiod.
    public var uri: String?
    /// Configured sensor: name, label, sysfs path, `iio:deviceN` or `/dev/iio:deviceN`; nil for
    /// automatic choice (`SensorSelection.choose`).
    public var device: String?
    /// Requested sample rate, Hz.
    public var sampleRateHz: Double
    public var mode: IIOReadMode
    public var accelConvention: AccelConvention
    /// Follow udev add/remove events (local contexts only).
    public var watchHotplug: Bool

    public init(uri: String? = nil, device: String? = nil, sampleRateHz: Double = 100,
                mode: IIOReadMode = .auto, accelConvention: AccelConvention = .gravity,
                watchHotplug: Bool = true) {
        self.uri = uri
        self.device = device
        self.sampleRateHz = sampleRateHz
        self.mode = mode
        self.accelConvention = accelConvention
        self.watchHotplug = watchHotplug
    }
}
