import { useNavigate } from "@tanstack/react-router";
import { Camera, Circle, RotateCcw, Square, Wand2 } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { Label } from "@/client/components/ui/label";
import { Progress } from "@/client/components/ui/progress";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/client/components/ui/select";
import { uploadMedia, useInvalidateMedia } from "./media-api";
import {
  AUDIO_CONSTRAINTS,
  deviceErrorMessage,
  pickMimeType,
  RECORDING_TIMESLICE_MS,
  stopStream,
  timer,
} from "./recording";

/**
 * Webcam recorder (spec sections 2, 8, 9): camera and microphone pickers, live preview, Start/Stop
 * Recording with a timer, then a preview with 'Move to Editor' (uploads a draft and opens
 * /studio?tab=editor&draftId=...) and 'Delete & Try Again'.
 */
export function VideoRecorder() {
  const navigate = useNavigate();
  const invalidate = useInvalidateMedia();
  const liveRef = useRef<HTMLVideoElement>(null);
  const streamRef = useRef<MediaStream | null>(null);
  const recorderRef = useRef<MediaRecorder | null>(null);
  const chunksRef = useRef<Blob[]>([]);
  const [cameras, setCameras] = useState<MediaDeviceInfo[]>([]);
  const [mics, setMics] = useState<MediaDeviceInfo[]>([]);
  const [cameraId, setCameraId] = useState<string>("");
  const [micId, setMicId] = useState<string>("");
  const [error, setError] = useState<string | null>(null);
  const [denied, setDenied] = useState(false);
  const [ready, setReady] = useState(false);
  const [recording, setRecording] = useState(false);
  const [elapsed, setElapsed] = useState(0);
  const [blob, setBlob] = useState<Blob | null>(null);
  const [blobUrl, setBlobUrl] = useState<string | null>(null);
  const [uploading, setUploading] = useState<number | null>(null);

  const startPreview = useCallback(async (cam: string, mic: string) => {
    stopStream(streamRef.current);
    setReady(false);
    setError(null);
    try {
      const stream = await navigator.mediaDevices.getUserMedia({
        video: {
          ...(cam ? { deviceId: { exact: cam } } : {}),
          width: { ideal: 1280 },
          height: { ideal: 720 },
        },
        audio: { ...(mic ? { deviceId: { exact: mic } } : {}), ...AUDIO_CONSTRAINTS },
      });
      streamRef.current = stream;
      if (!liveRef.current) {
        setError("Video element not ready. Please refresh the page.");
        return;
      }
      liveRef.current.srcObject = stream;
      const devices = await navigator.mediaDevices.enumerateDevices();
      setCameras(devices.filter((d) => d.kind === "videoinput" && d.deviceId));
      setMics(devices.filter((d) => d.kind === "audioinput" && d.deviceId));
      setCameraId(stream.getVideoTracks()[0]?.getSettings().deviceId ?? cam);
      setMicId(stream.getAudioTracks()[0]?.getSettings().deviceId ?? mic);
      setReady(true);
      setDenied(false);
    } catch (e) {
      const { denied: isDenied, message } = deviceErrorMessage(e, "devices");
      setDenied(isDenied);
      setError(isDenied ? null : message);
    }
  }, []);

  useEffect(() => {
    void startPreview("", "");
    return () => {
      recorderRef.current?.state === "recording" && recorderRef.current.stop();
      stopStream(streamRef.current);
    };
  }, [startPreview]);

  useEffect(() => {
    if (!recording) return;
    const started = Date.now();
    const id = setInterval(() => setElapsed((Date.now() - started) / 1000), 250);
    return () => clearInterval(id);
  }, [recording]);

  useEffect(() => () => void (blobUrl && URL.revokeObjectURL(blobUrl)), [blobUrl]);

  function start() {
    const stream = streamRef.current;
    if (!stream?.getVideoTracks().length) return setError("Camera not ready");
    if (!stream.getAudioTracks().length)
      return setError("No audio track available. Please select a microphone.");
    setError(null);
    chunksRef.current = [];
    const mimeType = pickMimeType("video");
    const rec = new MediaRecorder(stream, mimeType ? { mimeType } : undefined);
    rec.ondataavailable = (e) => e.data.size > 0 && chunksRef.current.push(e.data);
    rec.onstop = () => {
      const b = new Blob(chunksRef.current, { type: rec.mimeType || "video/webm" });
      setBlob(b);
      setBlobUrl(URL.createObjectURL(b));
    };
    rec.start(RECORDING_TIMESLICE_MS);
    recorderRef.current = rec;
    setElapsed(0);
    setRecording(true);
  }

  function stop() {
    recorderRef.current?.stop();
    setRecording(false);
  }

  function discard() {
    setBlob(null);
    setBlobUrl(null);
    setError(null);
  }

  async function moveToEditor() {
    if (!blob) return;
    setUploading(0);
    setError(null);
    try {
      const name = `Recording ${new Date().toLocaleString("en-US", { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" })}`;
      const res = await uploadMedia("/api/media/upload-draft", "file", blob, name, {
        onProgress: setUploading,
        filename: "recording.webm",
      });
      await invalidate();
      await navigate({ to: "/studio", search: { tab: "editor", draftId: res.media.id } });
    } catch (e) {
      setError(`Upload error: ${(e as Error).message}`);
    } finally {
      setUploading(null);
    }
  }

  if (denied) {
    return (
      <AlertBanner variant="error" title="Camera access was blocked">
        <p>Allow camera and microphone access in your browser's address bar, then refresh the page.</p>
        <Button className="mt-3" variant="outline" size="sm" onClick={() => window.location.reload()}>
          Refresh page
        </Button>
      </AlertBanner>
    );
  }

  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_280px]">
      <div className="space-y-4">
        {error && <AlertBanner variant="error">{error}</AlertBanner>}
        <div className="relative overflow-hidden rounded-[12px] bg-black">
          <video
            ref={liveRef}
            autoPlay
            muted
            playsInline
            className={blobUrl ? "hidden" : "aspect-video w-full -scale-x-100"}
            aria-label="Camera preview"
          />
          {blobUrl && (
            <video
              src={blobUrl}
              controls
              playsInline
              className="aspect-video w-full"
              aria-label="Recording preview"
              data-testid="recording-preview"
            />
          )}
          {recording && (
            <div
              className="absolute top-3 left-3 flex items-center gap-2 rounded-full bg-black/70 px-3 py-1 text-sm text-white"
              role="status"
            >
              <Circle className="size-3 animate-pulse fill-red-500 text-red-500" aria-hidden /> REC{" "}
              {timer(elapsed)}
            </div>
          )}
        </div>
        <div className="flex flex-wrap gap-2">
          {!blob && !recording && (
            <Button onClick={start} disabled={!ready}>
              <Circle className="size-4 fill-current" aria-hidden /> Start Recording
            </Button>
          )}
          {recording && (
            <Button variant="destructive" onClick={stop}>
              <Square className="size-4 fill-current" aria-hidden /> Stop Recording
            </Button>
          )}
          {blob && (
            <>
              <Button onClick={() => void moveToEditor()} loading={uploading !== null}>
                <Wand2 className="size-4" aria-hidden /> Move to Editor
              </Button>
              <Button variant="outline" onClick={discard} disabled={uploading !== null}>
                <RotateCcw className="size-4" aria-hidden /> Delete &amp; Try Again
              </Button>
            </>
          )}
        </div>
        {uploading !== null && <Progress value={uploading} aria-label="Upload progress" />}
      </div>
      <div className="space-y-4">
        <div className="space-y-1.5">
          <Label htmlFor="camera-select">
            <Camera className="mr-1 inline size-4" aria-hidden />
            Camera
          </Label>
          <Select
            value={cameraId || undefined}
            onValueChange={(v) => {
              setCameraId(v);
              void startPreview(v, micId);
            }}
            disabled={recording}
          >
            <SelectTrigger id="camera-select">
              <SelectValue placeholder="Default camera" />
            </SelectTrigger>
            <SelectContent>
              {cameras.map((d, i) => (
                <SelectItem key={d.deviceId} value={d.deviceId}>
                  {d.label || `Camera ${i + 1}`}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        </div>
        <div className="space-y-1.5">
          <Label htmlFor="mic-select">Microphone</Label>
          <Select
            value={micId || undefined}
            onValueChange={(v) => {
              setMicId(v);
              void startPreview(cameraId, v);
            }}
            disabled={recording}
          >
            <SelectTrigger id="mic-select">
              <SelectValue placeholder="Default microphone" />
            </SelectTrigger>
            <SelectContent>
              {mics.map((d, i) => (
                <SelectItem key={d.deviceId} value={d.deviceId}>
                  {d.label || `Microphone ${i + 1}`}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        </div>
        <p className="text-xs text-muted-foreground">
          Records at up to 1280x720 with echo cancellation, noise suppression and automatic gain.
        </p>
      </div>
    </div>
  );
}
