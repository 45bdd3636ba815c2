import ActionModel
import ArgumentParsing
import Poses
import VideoPoses

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `spotter`: exercise recognition and rep counting from pose streams.
let spotter = Program(
  name: "spotter", version: "0.1.0",
  summary: "recognise exercises and count reps from 2D body-pose streams.",
  commands: [
    InspectCommand.command,
    InitWeightsCommand.command,
    SynthCommand.command,
    CountCommand.command,
    ExercisesCommand.command,
    MeasureCommand.command,
    EvalCommand.command,
    CalibrateCommand.command,
    TrainCommand.command,
    ClassifyCommand.command,
    DemoCommand.command,
    ReportCommand.command,
    ServeCommand.command,
    StatusCommand.command,
    HistoryCommand.command,
    VideoCommand.command,
  ],
  hint: { error in
    switch error {
    case is WeightsFileError:
      "Weights/FORMAT.md gives the format; --weights or SPOTTER_WEIGHTS picks another file."
    case is PoseFileError: "the input formats are in README.md, under 'Pose files'."
    case let error as VideoError: error.hint
    default: nil
    }
  })

exit(
  spotter.run(
    Array(CommandLine.arguments.dropFirst()), print: { Swift.print($0) },
    error: { Terminal.error($0) }))
