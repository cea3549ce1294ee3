/**
 * Recording helpers (spec section 9): 1280x720 ideal, echo cancellation, noise suppression and auto
 * gain, webm with vp8/opus preferred, 100 ms chunks.
 */
export const RECORDING_TIMESLICE_MS = 100;

export const AUDIO_CONSTRAINTS: MediaTrackConstraints = {
  echoCancellation: true,
  noiseSuppression: true,
  autoGainControl: true,
};

/** The first MIME type this browser's MediaRecorder supports, vp8/opus first. */
export function pickMimeType(kind: "video" | "audio"): string {
  const candidates =
    kind === "video"
      ? ["video/webm;codecs=vp8,opus", "video/webm;codecs=vp9,opus", "video/webm", "video/mp4"]
      : ["audio/webm;codecs=opus", "audio/webm", "audio/mp4"];
  if (typeof MediaRecorder === "undefined") return "";
  return candidates.find((c) => MediaRecorder.isTypeSupported(c)) ?? "";
}

/** Spec section 8's device error texts for a getUserMedia failure. */
export function deviceErrorMessage(
  error: unknown,
  scope: "devices" | "camera" | "microphone",
): { denied: boolean; message: string } {
  const e = error as { name?: string; message?: string };
  if (e?.name === "NotAllowedError" || e?.name === "SecurityError")
    return { denied: true, message: "Permission denied" };
  if (e?.name === "NotFoundError" || e?.name === "OverconstrainedError")
    return {
      denied: false,
      message:
        scope === "microphone"
          ? "No microphone found."
          : "No camera or microphone found. Please connect a webcam.",
    };
  if (e?.name === "NotReadableError")
    return { denied: false, message: "Camera is already in use by another application." };
  const prefix =
    scope === "devices"
      ? "Unable to access devices: "
      : scope === "camera"
        ? "Unable to access camera: "
        : "Unable to access microphone: ";
  return { denied: false, message: prefix + (e?.message ?? String(error)) };
}

/** Stops every track of a stream. */
export function stopStream(stream: MediaStream | null) {
  for (const t of stream?.getTracks() ?? []) t.stop();
}

/** mm:ss of elapsed seconds for the recording timer. */
export function timer(seconds: number) {
  const s = Math.floor(seconds);
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}
