import Foundation
import Poses
import Randomness

/// Several people in one picture, each with a workout of their own: a gym mirror, a class, a
/// parent and child. What the multi-person runtime is tested on.
public struct GroupRecording: Sendable {
  public var header: PoseFileHeader
  /// Each frame's people, in an order that changes from frame to frame (a detector's order
  /// says nothing about who is who).
  public var frames: [(t: Double, people: [Pose])]
  /// Each person's truth, in the order of the plans.
  public var people: [Person]

  public struct Person: Sendable {
    public var segments: [Recording.Segment]
    /// Where their exercises happen, on the floor (metres).
    public var station: (x: Double, z: Double)
  }
}

extension Recorder {
  /// People side by side (`spacing` metres apart), each doing their plan. With `crossing`,
  /// each first walks in from the far side of the others to their place, so the walkers pass
  /// each other in the middle of the picture.
  public static func recordGroup(
    _ plans: [WorkoutPlan], spacing: Double = 1.8, crossing: Bool = true,
    options: RecordingOptions = RecordingOptions(), seed: UInt64
  ) -> GroupRecording {
    var generator = SeededGenerator(seed: seed)
    let count = plans.count
    var timelines: [Timeline] = []
    var stations: [(x: Double, z: Double)] = []
    for (index, plan) in plans.enumerated() {
      var own = generator.derived(UInt64(index))
      let body = BodyShape.random(using: &own)
      let station = (
        x: (Double(index) - Double(count - 1) / 2) * spacing, z: 0.3 * Double(index % 2)
      )
      var activities = makeActivities(plan, options: options, generator: &own)
      if crossing {
        // From beyond the other side of the group to this person's place.
        let side = station.x <= 0 ? 1.0 : -1.0
        let from = (x: side * (abs(station.x) + spacing * Double(count)), z: 0.0)
        let speed = 1.1 + 0.3 * own.unit()
        activities.insert(
          OtherActivity(
            walkingFrom: from, heading: side > 0 ? 270 : 90, speed: speed,
            duration: abs(from.x) / speed, generator: &own), at: 0)
      }
      timelines.append(Timeline(activities, body: body, generator: &own))
      stations.append(station)
    }
    let duration = timelines.map(\.duration).max() ?? 0
    func world(_ person: Int, at t: Double) -> (joints: [Vector3], state: BodyState) {
      let (joints, state) = timelines[person].world(at: min(t, timelines[person].duration))
      let shift = Vector3(stations[person].x, 0, stations[person].z)
      return (joints.map { $0 + shift }, state)
    }
    // One camera for everybody: aimed at the middle of everywhere they are while exercising.
    var low = Vector3(repeating: .infinity)
    var high = Vector3(repeating: -.infinity)
    for step in stride(from: 0, through: duration, by: 0.25) {
      for person in 0..<count {
        let (joints, state) = world(person, at: step)
        if case .standing = state.placement, state.ground.x != 0 || state.ground.z != 0 { continue }
        for joint in joints {
          low = Vector3(min(low.x, joint.x), min(low.y, joint.y), min(low.z, joint.z))
          high = Vector3(max(high.x, joint.x), max(high.y, joint.y), max(high.z, joint.z))
        }
      }
    }
    let camera = VirtualCamera.random(
      options.camera, target: (low + high) / 2,
      extent: max(high.y - low.y, high.x - low.x, high.z - low.z) * 1.1, generator: &generator)
    let fps = options.fps ?? 30
    var detectors = (0..<count).map {
      options.seenBy.session(generator: generator.derived(10 + UInt64($0)))
    }
    var order = generator.derived(99)
    var frames: [(t: Double, people: [Pose])] = []
    var index = 0
    while Double(index) / fps <= duration {
      let t = Double(index) / fps
      var people: [Pose] = []
      for person in 0..<count {
        let (joints, state) = world(person, at: t)
        let axes = state.axes
        let pose = detectors[person].observe(
          joints, camera: camera, lateral: axes.lateral, facing: axes.facing)
        if pose.hasPerson { people.append(pose) }
      }
      // Fisher–Yates: the detector's order is no one's identity.
      for slot in stride(from: people.count - 1, to: 0, by: -1) {
        people.swapAt(slot, Int(order.next() % UInt64(slot + 1)))
      }
      frames.append((t, people))
      index += 1
    }
    let header = options.header(
      camera: camera, fps: fps,
      source: "spotter synth, \(count) people (seed \(seed), \(camera.placement))")
    return GroupRecording(
      header: header, frames: frames,
      people: zip(timelines, stations).map {
        GroupRecording.Person(segments: $0.segments, station: $1)
      })
  }
}
