import MotionFusion

extension SampleTransform {
    /// The transform of a selected accelerometer (and gyroscope): each axis's `scale` and
    /// `offset`, and the mount matrices, the gyroscope's own when it has one, else the
    /// accelerometer's (docs/SENSORS.md "Values").
    init(selection s: SensorSelection, convention: AccelConvention) {
        func axes(_ info: SensorInfo?, _ type: String) -> [AxisCalibration] {
            ["x", "y", "z"].map { axis in
                let c = info?.channels.first { $0.name == "\(type)_\(axis)" }
                return AxisCalibration(scale: c?.scale ?? 1, offset: c?.offset ?? 0)
            }
        }
        let gyroInfo = s.gyro ?? (s.accel.hasGyro ? s.accel : nil)
        // Gyro frame: its own matrix when it has one, else the accelerometer's (docs/SENSORS.md "Values").
        let gyroMatrix: MountMatrix
        if let g = s.gyro, g.mountMatrixSource != .identity {
            gyroMatrix = g.mountMatrix
        } else {
            gyroMatrix = s.accel.gyroMountMatrix ?? s.accel.mountMatrix
        }
        self.init(accelAxes: axes(s.accel, "accel"), accelMatrix: s.accel.mountMatrix,
                  gyroAxes: axes(gyroInfo, "anglvel"), gyroMatrix: gyroMatrix, convention: convention)
    }
}
