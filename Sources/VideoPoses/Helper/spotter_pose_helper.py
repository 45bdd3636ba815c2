"""Spotter's pose detector helper: BlazePose (MediaPipe 0.10.14, full model) over a video.

Spotter runs this in its own virtual environment (`spotter video`; the Swift side is
Sources/VideoPoses) and reads what it writes to standard output, one JSON object a line:

    check          {"type":"check", versions, and the two model files inside the wheel}
    detect VIDEO   {"type":"video", size, fps, frame count, codec, the detector}
                   {"i":0,"ms":0.0,"pose":[[x,y,visibility] x 33]} or "pose":null, a frame
                   {"type":"end","frames":N}
    stills VIDEO   reads {"frames":[{"i":I,"crop":[x,y,w,h],"height":H}, ...]} on standard
                   input; writes {"k":K,"jpeg":"<base64>"} for the K-th asked for (frame I cut
                   to the crop, at most H pixels tall), in frame order

    live SOURCE [--view-every S] [--keep-stills]
                   a camera (/dev/videoN or an index, through V4L2) or a stream URL (through
                   FFmpeg), read live: {"type":"video", size, fps, "live":"camera"|"stream",
                   the detector} once the first frame is in, then per frame detected
                   {"i":I,"c":C,"pose":...,"dropped":D} where C is the frame's capture time
                   (time.monotonic(), seconds) and D the frames dropped so far, with "jpeg"
                   (the frame, at most 640 pixels wide) every S seconds; then one
                   {"type":"end","frames":N,"dropped":D,"why":W} with W "ended" (the stream
                   ended), "stopped" (a line "stop" on standard input), or, with a "message",
                   "stalled" (no frame for 5 s) or "read" (a camera that stopped giving
                   frames). Then it reads one stills request, as stills does, from standard
                   input and answers it from the frames it kept (with --keep-stills, four a
                   second at most, fewer when they pass 256 MB), each still from the kept
                   frame nearest the one asked for, and ends.

A video that cannot be read gives one {"type":"error","kind":K,"message":M} line (K is
"open", "codec" or "empty"; for a live source also "device", and "stalled" when no
first frame came within 5 s) and exit status 2. SPOTTER_DETECTOR_DELAY (seconds) slows the live
detector down by that much a frame: for tests of a detector slower than its stream. This script only reports what the detector and
the decoder say: coordinates in the video's pixels, BlazePose's visibility as it comes, the
decoder's own frame times (milliseconds, or null when it has none), no person as null. What
those mean to Spotter (a missing time, the score scale, the sides) is decided in Swift.
"""

import base64
import json
import os
import signal
import sys
import tempfile
import threading
import time

# MediaPipe and TensorFlow Lite log to standard error through glog; only errors matter here.
os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import warnings  # noqa: E402

warnings.filterwarnings("ignore")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

MEDIAPIPE_VERSION = "0.10.14"
MODEL_FILES = [
    "modules/pose_detection/pose_detection.tflite",
    "modules/pose_landmark/pose_landmark_full.tflite",
]


def emit(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")


def fail(kind, message):
    sys.stdout.flush()
    emit({"type": "error", "kind": kind, "message": message})
    sys.stdout.flush()
    # Not sys.exit: a live source's reader thread may be blocked in a read nothing interrupts.
    os._exit(2)


def quietly(open_capture):
    """The capture open_capture() makes, and what OpenCV and its FFmpeg logged to file
    descriptor 2 meanwhile: OpenCV says only that it failed, and the reason is in that log."""
    saved = os.dup(2)
    with tempfile.TemporaryFile() as log:
        os.dup2(log.fileno(), 2)
        try:
            capture = open_capture()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        log.seek(0)
        said = log.read().decode("utf-8", "replace")
    return capture, [line.split(" open ", 1)[-1].strip() for line in said.splitlines()
                     if line.strip()]


def open_video(path):
    """The capture, or an error line saying why not: the missing decoder in FFmpeg's log tells
    an unreadable codec from a file that is no video."""
    capture, lines = quietly(lambda: cv2.VideoCapture(path, cv2.CAP_FFMPEG))
    if capture.isOpened():
        return capture
    decoder = [line for line in lines if "decoder" in line.lower()]
    if decoder:
        fail("codec", "no decoder for its video codec (FFmpeg: %s)" % decoder[0])
    fail("open", "OpenCV's FFmpeg cannot open it as a video")


def fourcc(capture):
    code = int(capture.get(cv2.CAP_PROP_FOURCC))
    text = "".join(chr((code >> (8 * k)) & 0xFF) for k in range(4))
    return text if code and text.isprintable() else None


def video_facts(capture):
    return {
        "width": int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
        "height": int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)),
        "fps": capture.get(cv2.CAP_PROP_FPS) or None,
        "frames": int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) or None,
        "codec": fourcc(capture),
    }


def first_frame(capture, facts):
    ok, frame = capture.read()
    if ok:
        return frame
    if not facts["frames"]:
        fail("empty", "the video has no frames")
    fail("codec", "its first frame cannot be decoded (codec %s)" % (facts["codec"] or "unknown"))


def check():
    import mediapipe

    package = os.path.dirname(mediapipe.__file__)
    models = [os.path.join(package, name) for name in MODEL_FILES]
    emit({
        "type": "check",
        "mediapipe": mediapipe.__version__,
        "opencv": cv2.__version__,
        "python": sys.version.split()[0],
        "models": [{"path": path, "bytes": os.path.getsize(path)} for path in models
                   if os.path.exists(path)],
    })


def detect(path):
    capture = open_video(path)
    facts = video_facts(capture)
    frame = first_frame(capture, facts)
    import mediapipe as mp

    # The legacy solution API: BlazePose's detector finds a person, then the landmark model
    # tracks them from frame to frame (static_image_mode False), which is what a video is.
    # model_complexity 1 is the full landmark model, the one shipped inside the wheel.
    pose = mp.solutions.pose.Pose(
        static_image_mode=False, model_complexity=1, smooth_landmarks=True,
        enable_segmentation=False, min_detection_confidence=0.5, min_tracking_confidence=0.5)
    emit(dict(facts, type="video", detector={
        "name": "BlazePose", "model": "pose_landmark_full.tflite",
        "package": "mediapipe " + mp.__version__, "api": "mp.solutions.pose",
        "scores": "visibility"}))
    index = 0
    while frame is not None:
        # The decoder's time of the frame just read; 0 after the first means it had none.
        ms = capture.get(cv2.CAP_PROP_POS_MSEC)
        found = pose.process(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)).pose_landmarks
        landmarks = None
        if found is not None:
            # BlazePose's coordinates are fractions of this frame's own size, which need not
            # be the size the container declares (a stream that changes resolution).
            height, width = frame.shape[:2]
            landmarks = [[round(p.x * width, 2), round(p.y * height, 2), round(p.visibility, 4)]
                         for p in found.landmark]
        emit({"i": index, "ms": round(ms, 3) if (ms > 0 or index == 0) else None,
              "pose": landmarks})
        index += 1
        ok, frame = capture.read()
        if not ok:
            frame = None
    emit({"type": "end", "frames": index})


def cut(frame, crop, height):
    """The JPEG of frame cut to crop [x, y, w, h] (kept inside the frame), at most height
    pixels tall; None when it cannot be encoded."""
    rows, cols = frame.shape[:2]
    x, y, w, h = (int(round(v)) for v in crop)
    x, y = max(0, min(x, cols - 1)), max(0, min(y, rows - 1))
    w, h = max(1, min(w, cols - x)), max(1, min(h, rows - y))
    scale = min(1.0, height / float(h))
    size = (max(1, int(round(w * scale))), max(1, int(round(h * scale))))
    small = cv2.resize(frame[y:y + h, x:x + w], size, interpolation=cv2.INTER_AREA)
    done, jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 72])
    return jpeg.tobytes() if done else None


def emit_still(k, jpeg):
    if jpeg is not None:
        emit({"k": k, "jpeg": base64.b64encode(jpeg).decode("ascii")})


def requested(request):
    """A stills request's frames, by frame index: [(k, crop, height)] for each."""
    wanted = {}
    for k, item in enumerate(request):
        wanted.setdefault(int(item["i"]), []).append((k, item["crop"], int(item["height"])))
    return wanted


def stills(path):
    wanted = requested(json.load(sys.stdin)["frames"])
    capture = open_video(path)
    index = 0
    last = max(wanted) if wanted else -1
    while index <= last:
        # grab() decodes without converting: the frames in between cost little.
        if not capture.grab():
            break
        ok, frame = capture.retrieve() if index in wanted else (False, None)
        for k, crop, height in wanted.get(index, []) if ok else []:
            emit_still(k, cut(frame, crop, height))
        index += 1


# A live source that gives no frame for this long has failed (the same wait opens a stream).
NO_FRAME_SECONDS = 5.0
# The page's pictures are this wide at most: enough for a screen across a room.
VIEW_WIDTH = 640
# Frames kept for the report's stills: at most four a second, thinned to half as many
# whenever they pass the budget, so a session of any length keeps a bounded memory.
KEEP_EVERY = 0.25
KEEP_BUDGET = 256 << 20


def open_live(source):
    """A camera (a device path or an index) through V4L2, else a stream URL through FFmpeg,
    waiting at most NO_FRAME_SECONDS for it to answer; or an error line saying why not."""
    if source.isdigit() or source.startswith("/dev/"):
        device = "/dev/video" + source if source.isdigit() else source
        if not os.path.exists(device):
            fail("device", "there is no such device")
        capture, lines = quietly(
            lambda: cv2.VideoCapture(int(source) if source.isdigit() else source, cv2.CAP_V4L2))
        if not capture.isOpened():
            fail("device", "V4L2 cannot open %s as a camera%s" % (
                device, " (%s)" % lines[-1] if lines else
                ": another program may have it, or this user may not read it"))
        return capture, "camera"
    milliseconds = int(NO_FRAME_SECONDS * 1000)
    capture, lines = quietly(lambda: cv2.VideoCapture(source, cv2.CAP_FFMPEG, [
        cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, milliseconds,
        cv2.CAP_PROP_READ_TIMEOUT_MSEC, 2 * milliseconds]))
    if not capture.isOpened():
        said = [line.split("] ", 1)[-1] for line in lines if line.startswith("[")
                and "timeout" not in line.lower()]
        if said:
            fail("open", "OpenCV's FFmpeg cannot open it (FFmpeg: %s)" % said[-1])
        fail("open", "nothing OpenCV's FFmpeg can read answered within %g s" % NO_FRAME_SECONDS)
    return capture, "stream"


class Newest:
    """The newest frame read and not yet detected: a slot of one, never a queue. A frame read
    while the slot is full replaces the one there, which is counted as dropped: when the
    detector falls behind, it takes the latest frame and the delay stays one frame long."""

    def __init__(self):
        self.changed = threading.Condition()
        self.frame = None
        self.captured = 0.0
        self.last = time.monotonic()
        self.dropped = 0
        self.ended = False
        self.stop = False
        self.request = None

    def put(self, frame, captured):
        with self.changed:
            if self.frame is not None:
                self.dropped += 1
            self.frame, self.captured, self.last = frame, captured, captured
            self.changed.notify_all()

    def take(self):
        """The frame and its capture time, once one is there or the stream is over (None when
        it ended, was stopped, or gave nothing for NO_FRAME_SECONDS)."""
        with self.changed:
            self.changed.wait_for(
                lambda: self.frame is not None or self.ended or self.stop,
                timeout=max(0.0, self.last + NO_FRAME_SECONDS - time.monotonic()))
            frame, self.frame = (None, self.frame) if self.stop else (self.frame, None)
            return frame, self.captured

    def note(self, **changes):
        with self.changed:
            for name, value in changes.items():
                setattr(self, name, value)
            self.changed.notify_all()


def read_frames(capture, newest):
    """The reader thread: every frame the source gives, stamped with the monotonic clock as it
    is read, into the slot."""
    while True:
        ok, frame = capture.read()
        if not ok:
            newest.note(ended=True)
            return
        newest.put(frame, time.monotonic())


def listen(newest):
    """Standard input: "stop" ends the session; the stills request that follows is kept for
    after the end; its end stops the session too (Spotter is gone)."""
    for line in sys.stdin:
        line = line.strip()
        if line == "stop":
            newest.note(stop=True)
        elif line.startswith("{"):
            newest.note(stop=True, request=json.loads(line).get("frames", []))
            return
    newest.note(stop=True, request=[])


def why_ended(newest, kind):
    """The end line's why (and message) once take() gave no frame."""
    if newest.stop:
        return {"why": "stopped"}
    if newest.ended and kind == "stream":
        return {"why": "ended"}
    if newest.ended:
        return {"why": "read", "message": "the camera stopped giving frames "
                "(unplugged, or taken by another program)"}
    return {"why": "stalled", "message": "no frame came for %g s" % NO_FRAME_SECONDS}


def live(source, view_every, keep):
    # Ctrl-C at a terminal reaches the whole process group: Spotter stops this helper itself,
    # through standard input, once it has the last frame's events.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    delay = float(os.environ.get("SPOTTER_DETECTOR_DELAY", "0") or 0)
    capture, kind = open_live(source)
    newest = Newest()
    threading.Thread(target=read_frames, args=(capture, newest), daemon=True).start()
    threading.Thread(target=listen, args=(newest,), daemon=True).start()
    # The models load, and the graph starts on a first frame (its first detection takes half a
    # second), while the reader reads; the frames meanwhile are dropped, so the first frame
    # detected is a fresh one, not one that waited for the models.
    import mediapipe as mp

    pose = mp.solutions.pose.Pose(
        static_image_mode=False, model_complexity=1, smooth_landmarks=True,
        enable_segmentation=False, min_detection_confidence=0.5, min_tracking_confidence=0.5)
    with newest.changed:
        if newest.frame is None and not newest.ended:
            newest.last = time.monotonic()  # the first frame's wait starts now
    frame, captured = newest.take()
    if frame is None:
        if newest.stop:
            emit({"type": "end", "frames": 0, "dropped": 0, "why": "stopped"})
            sys.stdout.flush()
            os._exit(0)
        if newest.ended:
            fail("empty", "the stream ended before its first frame")
        fail("stalled", "no frame came within %g s" % NO_FRAME_SECONDS)
    pose.process(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
    height, width = frame.shape[:2]
    emit({"type": "video", "live": kind, "width": width, "height": height,
          "fps": capture.get(cv2.CAP_PROP_FPS) or None, "frames": None, "codec": fourcc(capture),
          "detector": {"name": "BlazePose", "model": "pose_landmark_full.tflite",
                       "package": "mediapipe " + mp.__version__, "api": "mp.solutions.pose",
                       "scores": "visibility"}})
    sys.stdout.flush()
    with newest.changed:
        newest.dropped += 1  # the frame the graph started on
    kept, kept_bytes, keep_every = {}, 0, KEEP_EVERY
    next_view = next_keep = 0.0
    index = 0
    frame, captured = newest.take()
    end = None if frame is not None else why_ended(newest, kind)
    while end is None:
        found = pose.process(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)).pose_landmarks
        rows, cols = frame.shape[:2]
        line = {"i": index, "c": round(captured, 6), "dropped": newest.dropped, "pose": None}
        if found is not None:
            line["pose"] = [[round(p.x * cols, 2), round(p.y * rows, 2), round(p.visibility, 4)]
                            for p in found.landmark]
        if view_every and captured >= next_view:
            next_view = captured + view_every
            scale = min(1.0, VIEW_WIDTH / float(cols))
            small = cv2.resize(frame, (int(cols * scale), int(rows * scale)),
                               interpolation=cv2.INTER_AREA) if scale < 1 else frame
            done, jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 70])
            if done:
                line["jpeg"] = base64.b64encode(jpeg.tobytes()).decode("ascii")
        if keep and captured >= next_keep:
            next_keep = captured + keep_every
            done, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
            if done:
                kept[index] = jpeg.tobytes()
                kept_bytes += len(kept[index])
            if kept_bytes > KEEP_BUDGET:
                for dropped_index in sorted(kept)[1::2]:
                    kept_bytes -= len(kept.pop(dropped_index))
                keep_every *= 2
        emit(line)
        sys.stdout.flush()
        index += 1
        if delay > 0:
            time.sleep(delay)
        frame, captured = newest.take()
        if frame is None:
            end = why_ended(newest, kind)
    emit(dict(end, type="end", frames=index, dropped=newest.dropped))
    sys.stdout.flush()
    with newest.changed:
        newest.changed.wait_for(lambda: newest.request is not None)
        wanted = requested(newest.request)
    for i, items in sorted(wanted.items()):
        nearest = min(kept, key=lambda k: abs(k - i)) if kept else None
        picture = cv2.imdecode(np.frombuffer(kept[nearest], np.uint8), cv2.IMREAD_COLOR) \
            if nearest is not None else None
        for k, crop, height in items if picture is not None else []:
            emit_still(k, cut(picture, crop, height))
    sys.stdout.flush()
    # The reader thread may be blocked in the capture's read, which nothing interrupts.
    os._exit(0)


def main(argv):
    if len(argv) == 2 and argv[1] == "check":
        check()
    elif len(argv) == 3 and argv[1] == "detect":
        detect(argv[2])
    elif len(argv) == 3 and argv[1] == "stills":
        stills(argv[2])
    elif len(argv) >= 3 and argv[1] == "live":
        options = argv[3:]
        view_every = float(options[options.index("--view-every") + 1]) \
            if "--view-every" in options else 0.0
        live(argv[2], view_every, "--keep-stills" in options)
    else:
        sys.stderr.write("usage: spotter_pose_helper.py check | detect VIDEO | stills VIDEO | "
                         "live SOURCE [--view-every SECONDS] [--keep-stills]\n")
        return 64
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
