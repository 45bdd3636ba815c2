import Foundation

/// 3D points and directions for the synthetic body, in metres. World frame: y up, the floor at
/// y = 0. Body frame: +x the person's left, +y up, +z the way they face.
public typealias Vector3 = SIMD3<Double>

extension SIMD3 where Scalar == Double {
  var length: Double { (self * self).sum().squareRoot() }
  var normalized: Vector3 { self / Swift.max(length, 1e-12) }

  static func dot(_ a: Vector3, _ b: Vector3) -> Double { (a * b).sum() }

  static func cross(_ a: Vector3, _ b: Vector3) -> Vector3 {
    Vector3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
  }

  /// Rotated about the x axis by `angle` (radians): +y turns towards +z (a forward lean).
  func rotatedX(_ angle: Double) -> Vector3 {
    let (c, s) = (cos(angle), sin(angle))
    return Vector3(x, y * c - z * s, y * s + z * c)
  }

  /// Rotated about the y axis by `angle`: +z turns towards +x.
  func rotatedY(_ angle: Double) -> Vector3 {
    let (c, s) = (cos(angle), sin(angle))
    return Vector3(x * c + z * s, y, -x * s + z * c)
  }

  /// Rotated about the z axis by `angle`: +y turns towards +x (a lean to the person's left).
  func rotatedZ(_ angle: Double) -> Vector3 {
    let (c, s) = (cos(angle), sin(angle))
    return Vector3(x * c + y * s, -x * s + y * c, z)
  }
}

/// Degrees to radians, for motion tables written in degrees.
@inline(__always) func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
