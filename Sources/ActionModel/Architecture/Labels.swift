/// The labels of README, "Labels": twelve exercises, each with a rep engine, and `other` for
/// anything else (standing, walking, resting, sports). A weights file carries its own list, so a
/// user-trained model may have others.
public enum Labels {
  public static let exercises = [
    "squat", "push_up", "sit_up", "pull_up", "bench_press", "jumping_jack", "lunge", "bicep_curl",
    "front_raise", "shoulder_press", "knee_raise", "side_tilt",
  ]
  public static let other = "other"
  /// The default model's labels, in output order.
  public static let all = exercises + [other]
}
