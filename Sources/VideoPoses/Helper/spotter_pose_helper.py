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

A video that cannot be read gives one {"type":"error","kind":K,"message":M} line (K is
"open", "codec" or "empty") and exit status 2. This script only reports what the detector and
the decoder say: coordinates in the video's pixels, BlazePose's visibility as it comes, the
decoder's own frame times (milliseconds, or null when it has none), no person as null. What
those mean to Spotter (a missing time, the score scale, the sides) is decided in Swift.
"""

import base64
import json
import os
import sys
import tempfile

# MediaPipe and TensorFlow Lite log to standard error through glog; only errors matter here.
os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import warnings  # noqa: E402

warnings.filterwarnings("ignore")

import cv2  # noqa: E402

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
    sys.exit(2)


def open_video(path):
    """The capture, or an error line saying why not: OpenCV says only that it failed, and its
    FFmpeg backend logs the reason to file descriptor 2, so that is read for the missing
    decoder that tells an unreadable codec from a file that is no video."""
    saved = os.dup(2)
    with tempfile.TemporaryFile() as log:
        os.dup2(log.fileno(), 2)
        try:
            capture = cv2.VideoCapture(path, cv2.CAP_FFMPEG)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        log.seek(0)
        said = log.read().decode("utf-8", "replace")
    if capture.isOpened():
        return capture
    lines = [line.split(" open ", 1)[-1].strip() for line in said.splitlines() if line.strip()]
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


def stills(path):
    request = json.load(sys.stdin)["frames"]
    wanted = {}
    for k, item in enumerate(request):
        wanted.setdefault(int(item["i"]), []).append((k, item["crop"], int(item["height"])))
    capture = open_video(path)
    index = 0
    last = max(wanted) if wanted else -1
    while index <= last:
        # grab() decodes without converting: the frames in between cost little.
        if not capture.grab():
            break
        ok, frame = capture.retrieve() if index in wanted else (False, None)
        for k, crop, height in wanted.get(index, []) if ok else []:
            rows, cols = frame.shape[:2]
            x, y, w, h = (int(round(v)) for v in crop)
            x, y = max(0, min(x, cols - 1)), max(0, min(y, rows - 1))
            w, h = max(1, min(w, cols - x)), max(1, min(h, rows - y))
            scale = min(1.0, height / float(h))
            size = (max(1, int(round(w * scale))), max(1, int(round(h * scale))))
            small = cv2.resize(frame[y:y + h, x:x + w], size, interpolation=cv2.INTER_AREA)
            done, jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 72])
            if done:
                emit({"k": k, "jpeg": base64.b64encode(jpeg.tobytes()).decode("ascii")})
        index += 1


def main(argv):
    if len(argv) == 2 and argv[1] == "check":
        check()
    elif len(argv) == 3 and argv[1] == "detect":
        detect(argv[2])
    elif len(argv) == 3 and argv[1] == "stills":
        stills(argv[2])
    else:
        sys.stderr.write("usage: spotter_pose_helper.py check | detect VIDEO | stills VIDEO\n")
        return 64
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
