import Testing
@testable import MotionFusion

@Suite struct MountMatrixTests {
    @Test func parsesKernelText() throws {
        let m = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        #expect(m.rows.0 == Vector3(0, 1, 0) && m.rows.1 == Vector3(-1, 0, 0) && m.rows.2 == Vector3(0, 0, 1))
        #expect(m.determinant == 1)
        #expect(m.apply(to: Vector3(1, 2, 3)) == Vector3(2, -1, 3))
        #expect(m.description == "0, 1, 0; -1, 0, 0; 0, 0, 1")
    }

    @Test func whitespaceTolerant() throws {
        let m = try MountMatrix(parsing: " 1 ,0,0 ;\t0, 1,  0;0,0, 1\n")
        #expect(m == .identity)
        let hwdb = try MountMatrix(parsing: "0.5, -0.866025,0;0.866025 , 0.5, 0; 0,0,1")
        #expect(hwdb.rows.1 == Vector3(0.866025, 0.5, 0))
    }

    @Test func errorsNameTheText() {
        #expect(throws: MountMatrixError.zeroRow(text: "1, 0, 0; 0, 0, 0; 0, 0, 1", row: 2)) {
            try MountMatrix(parsing: "1, 0, 0; 0, 0, 0; 0, 0, 1")
        }
        #expect(throws: MountMatrixError.notANumber(text: "1, 0, 0; 0, x, 0; 0, 0, 1", entry: "x")) {
            try MountMatrix(parsing: "1, 0, 0; 0, x, 0; 0, 0, 1")
        }
        #expect(throws: MountMatrixError.notANumber(text: "1, 0, 0; 0, , 0; 0, 0, 1", entry: "")) {
            try MountMatrix(parsing: "1, 0, 0; 0, , 0; 0, 0, 1")
        }
        #expect(throws: MountMatrixError.shape(text: "1, 0, 0; 0, 1, 0")) { try MountMatrix(parsing: "1, 0, 0; 0, 1, 0") }
        #expect(throws: MountMatrixError.shape(text: "1, 0; 0, 1, 0; 0, 0, 1")) { try MountMatrix(parsing: "1, 0; 0, 1, 0; 0, 0, 1") }
        #expect(throws: MountMatrixError.notANumber(text: "nan, 0, 0; 0, 1, 0; 0, 0, 1", entry: "nan")) {
            try MountMatrix(parsing: "nan, 0, 0; 0, 1, 0; 0, 0, 1")
        }
        let message = MountMatrixError.zeroRow(text: "0, 0, 0; 0, 1, 0; 0, 0, 1", row: 1).description
        #expect(message.contains("'0, 0, 0; 0, 1, 0; 0, 0, 1'") && message.contains("row 1"))
    }

    @Test func reflectionAppliesDeterminantToGyro() throws {
        // Mirror z (det = −1): accel (1, 2, 3) → (1, 2, −3); gyro → det·M·ω = −(1, 2, −3).
        let m = try MountMatrix(parsing: "1, 0, 0; 0, 1, 0; 0, 0, -1")
        #expect(m.determinant == -1)
        let s = m.apply(to: IMUSample(timestampNanoseconds: 7, accel: Vector3(1, 2, 3), gyro: Vector3(1, 2, 3)))
        #expect(s.accel == Vector3(1, 2, -3))
        #expect(s.gyro == Vector3(-1, -2, 3))
        #expect(s.timestampNanoseconds == 7)
    }

    @Test func gyroAndAccelStayConsistentUnderReflection() throws {
        // Kinematics check independent of the rule: a body turning at ω sees an earth-fixed
        // vector move as u̇ = u × ω. Propagating in the chip frame and mapping with M must equal
        // propagating the mapped vector with the mapped rate — true for det(M)·M, false for M.
        let m = try MountMatrix(parsing: "0, 1, 0; 1, 0, 0; 0, 0, 1")  // swap x/y: det −1
        let u = Vector3(0.2, -0.3, 0.93)
        let w = Vector3(0.4, -1.1, 0.7)
        let chipRate = u.cross(w)
        let mapped = m.apply(to: u).cross(m.applyToGyro(w))
        #expect((m.apply(to: chipRate) - mapped).length < 1e-12)
        let wrong = m.apply(to: u).cross(m.apply(to: w))
        #expect((m.apply(to: chipRate) - wrong).length > 0.1)
    }
}
