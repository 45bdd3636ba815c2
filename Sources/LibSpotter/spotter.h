/* libspotter: Spotter's exercise classifier for programs in any language.
 *
 * A model is loaded once and shared (thread-safe); each live stream gets its own
 * spotter_stream (not thread-safe: one thread at a time per stream). Shapes: T frames per
 * window, F features per frame, K classes; see spotter_model_window/features/classes.
 * Features are Spotter's (Weights/FORMAT.md, "Features"); spotter_stream_push_pose computes
 * them from 18 canonical joints for you.
 */
#ifndef SPOTTER_H
#define SPOTTER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spotter_model spotter_model;
typedef struct spotter_stream spotter_stream;

/* Every handle passed to a function must be one this library made and has not freed (never
 * NULL); the *_free functions take NULL and do nothing. */

/* Loads a weights file. On failure (a NULL path too) returns NULL and writes the reason,
 * NUL-terminated and cut to error_size bytes, into error (which may be NULL). */
spotter_model *spotter_model_load(const char *path, char *error, size_t error_size);
void spotter_model_free(spotter_model *model);

int spotter_model_window(const spotter_model *model);   /* T */
int spotter_model_features(const spotter_model *model); /* F */
int spotter_model_classes(const spotter_model *model);  /* K */
/* The label of class index, owned by the model; NULL when index is out of range. */
const char *spotter_model_label(const spotter_model *model, int index);

/* Probabilities for count windows: windows (count, T, F) oldest frame first, probabilities
 * (count, K). Returns 0, or -1 when count < 1. Thread-safe. */
int spotter_predict(spotter_model *model, const float *windows, int count, float *probabilities);

/* A stream starts as if it had seen T frames of nobody. */
spotter_stream *spotter_stream_create(spotter_model *model);
void spotter_stream_free(spotter_stream *stream);
void spotter_stream_reset(spotter_stream *stream);
/* One frame of F features (all zeros for nobody). */
void spotter_stream_push_features(spotter_stream *stream, const float *features);
/* One frame as 18 canonical joints (x, y, confidence) in Create ML order, y down; NULL or all
 * confidences 0 for nobody. */
void spotter_stream_push_pose(spotter_stream *stream, const float *joints);
/* The probabilities (K floats) for the last T frames; equal to spotter_predict on them. */
void spotter_stream_probabilities(spotter_stream *stream, float *probabilities);

/* Sessions: the whole runtime for one stream (classification, rep counting, cues).
 * A runtime holds the model and the built-in exercise definitions and is shared (thread-safe);
 * a session is one stream (one thread at a time). Events are NDJSON lines (README, "Events"). */
typedef struct spotter_runtime spotter_runtime;
typedef struct spotter_session spotter_session;

/* A NULL model makes a runtime for chosen exercises only (spotter_session_create_exercise). */
spotter_runtime *spotter_runtime_create(spotter_model *model, char *error, size_t error_size);
/* The same with session options (NULL or 0 for a default; the model as above): exercises, a
 * folder of exercise definitions (.json) to add to or override the built-ins; goals,
 * comma-separated as the CLI's --goal takes them ("squat:20,60s"); predictions non-zero to have
 * a "prediction" event every 10 frames. On a bad option returns NULL and writes why into error. */
spotter_runtime *spotter_runtime_create_options(spotter_model *model, const char *exercises,
                                                const char *goals, int predictions, char *error,
                                                size_t error_size);
void spotter_runtime_free(spotter_runtime *runtime);
/* A session whose exercises the model recognises; NULL for a runtime made without a model. */
spotter_session *spotter_session_create(spotter_runtime *runtime);
void spotter_session_free(spotter_session *session);
/* One frame at time t (seconds, never decreasing): 18 canonical joints (x, y, confidence) in
 * Create ML order, y down; NULL for nobody. A joint whose confidence is not positive, or whose
 * x, y or confidence is not finite, is missing. A frame whose t is not finite or is before the
 * previous frame's is skipped with an "error" event, as is one after spotter_session_finish;
 * the stream goes on. Returns how many events are now waiting. */
int spotter_session_push_pose(spotter_session *session, double t, const float *joints);
/* A session that follows up to max_people people (1...64), each with their own exercises and
 * counts. With 2...64, every event carries "person" (a stable id from 1); 1 follows the most
 * prominent person, as spotter_session_create, with no ids. NULL when max_people is out of
 * range or the runtime has no model. Frames come through spotter_session_push_people. */
spotter_session *spotter_session_create_people(spotter_runtime *runtime, int max_people);
/* A session of one exercise the person chose, by its definition's name ("squat",
 * "knee_raise_stages"): counted from the first frame with no classifier; goals, events and the
 * summary are those of any session. max_people 1 follows the most prominent person (frames
 * through spotter_session_push_pose); 2...64 follow each on their own, events carrying
 * "person" (frames through spotter_session_push_people). NULL with the reason in error for an
 * unknown name or max_people out of range. */
spotter_session *spotter_session_create_exercise(spotter_runtime *runtime, const char *exercise,
                                                 int max_people, char *error, size_t error_size);
/* One frame at time t with count people: count × 18 joints (x, y, confidence), in any order
 * (ids come from where people are, not from their order). Returns events waiting. */
int spotter_session_push_people(spotter_session *session, double t, const float *joints,
                                int count);
/* Ends the stream: the exercise under way ends and a summary follows (once: a second call adds
 * nothing). Returns events waiting. */
int spotter_session_finish(spotter_session *session);
/* Copies the waiting events, one JSON object per line, NUL-terminated, into buffer and clears
 * them. Returns the bytes needed (without the NUL): when that is at least buffer_size, nothing
 * was copied or cleared; call again with a larger buffer. */
size_t spotter_session_read_events(spotter_session *session, char *buffer, size_t buffer_size);

#ifdef __cplusplus
}
#endif

#endif
