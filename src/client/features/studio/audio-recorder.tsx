import { Circle, Mic, RotateCcw, Save, Square } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { AlertBanner } from "@/client/components/ui/alert-banner";
import { Button } from "@/client/components/ui/button";
import { Input } from "@/client/components/ui/input";
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
 * Audio recorder (spec sections 2, 4, 8): microphone picker, live waveform and timer, Start/Stop
 * Recording, then a preview with 'Save to Library' (POST /api/media/upload) and 'Record Again'.
 * A blocked microphone offers Try Again.
 */
export function AudioRecorder() {
  const invalidate = useInvalidateMedia();
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const streamRef = useRef<MediaStream | null>(null);
  const recorderRef = useRef<MediaRecorder | null>(null);
  const chunksRef = useRef<Blob[]>([]);
  const rafRef = useRef<number>(0);
  const audioCtxRef = useRef<AudioContext | null>(null);
  const [mics, setMics] = useState<MediaDeviceInfo[]>([]);
  const [micId, setMicId] = useState("");
  const [blocked, setBlocked] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [recording, setRecording] = useState(false);
  const [elapsed, setElapsed] = useState(0);
  const [blob, setBlob] = useState<Blob | null>(null);
  const [blobUrl, setBlobUrl] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [uploading, setUploading] = useState<number | null>(null);

  useEffect(() => {
    void navigator.mediaDevices
      ?.enumerateDevices()
      .then((d) => setMics(d.filter((x) => x.kind === "audioinput" && x.deviceId)))
      .catch(() => {});
    return () => {
      cancelAnimationFrame(rafRef.current);
      stopStream(streamRef.current);
      void audioCtxRef.current?.close();
    };
  }, []);

  useEffect(() => {
    if (!recording) return;
    const started = Date.now();
    const id = setInterval(() => setElapsed((Date.now() - started) / 1000), 250);
    return () => clearInterval(id);
  }, [recording]);

  useEffect(() => () => void (blobUrl && URL.revokeObjectURL(blobUrl)), [blobUrl]);

  function drawWaveform(stream: MediaStream) {
    const ctx = new AudioContext();
    audioCtxRef.current = ctx;
    const analyser = ctx.createAnalyser();
    analyser.fftSize = 2048;
    ctx.createMediaStreamSource(stream).connect(analyser);
    const data = new Uint8Array(analyser.fftSize);
    const draw = () => {
      const canvas = canvasRef.current;
      const g = canvas?.getContext("2d");
      if (canvas && g) {
        analyser.getByteTimeDomainData(data);
        g.clearRect(0, 0, canvas.width, canvas.height);
        g.lineWidth = 2;
        g.strokeStyle = getComputedStyle(canvas).color;
        g.beginPath();
        for (let i = 0; i < data.length; i++) {
          const x = (i / data.length) * canvas.width;
          const y = (data[i] / 255) * canvas.height;
          if (i === 0) g.moveTo(x, y);
          else g.lineTo(x, y);
        }
        g.stroke();
      }
      rafRef.current = requestAnimationFrame(draw);
    };
    draw();
  }

  async function start() {
    setError(null);
    try {
      const stream = await navigator.mediaDevices.getUserMedia({
        audio: { ...(micId ? { deviceId: { exact: micId } } : {}), ...AUDIO_CONSTRAINTS },
      });
      streamRef.current = stream;
      setBlocked(false);
      if (!stream.getAudioTracks().length)
        return setError("No audio track available. Please select a microphone.");
      const devices = await navigator.mediaDevices.enumerateDevices();
      setMics(devices.filter((d) => d.kind === "audioinput" && d.deviceId));
      chunksRef.current = [];
      const mimeType = pickMimeType("audio");
      const rec = new MediaRecorder(stream, mimeType ? { mimeType } : undefined);
      rec.ondataavailable = (e) => e.data.size > 0 && chunksRef.current.push(e.data);
      rec.onstop = () => {
        const b = new Blob(chunksRef.current, { type: rec.mimeType || "audio/webm" });
        setBlob(b);
        setBlobUrl(URL.createObjectURL(b));
        cancelAnimationFrame(rafRef.current);
        void audioCtxRef.current?.close();
        stopStream(stream);
      };
      rec.start(RECORDING_TIMESLICE_MS);
      recorderRef.current = rec;
      drawWaveform(stream);
      setElapsed(0);
      setRecording(true);
    } catch (e) {
      const r = deviceErrorMessage(e, "microphone");
      setBlocked(r.denied);
      if (!r.denied) setError(r.message);
    }
  }

  function stop() {
    recorderRef.current?.stop();
    setRecording(false);
  }

  async function save() {
    if (!blob) return;
    setUploading(0);
    try {
      await uploadMedia(
        "/api/media/upload",
        "file",
        blob,
        name.trim() || `Audio ${new Date().toLocaleString("en-US")}`,
        { onProgress: setUploading, filename: "audio.webm" },
      );
      toast.success("Saved to your library");
      setBlob(null);
      setBlobUrl(null);
      setName("");
      await invalidate();
    } catch (e) {
      setError(`Upload error: ${(e as Error).message}`);
    } finally {
      setUploading(null);
    }
  }

  if (blocked) {
    return (
      <AlertBanner variant="error" title="Microphone access was blocked">
        <p>Allow microphone access in your browser's address bar, then try again.</p>
        <Button className="mt-3" variant="outline" size="sm" onClick={() => void start()}>
          Try Again
        </Button>
      </AlertBanner>
    );
  }

  return (
    <div className="max-w-2xl space-y-4">
      {error && <AlertBanner variant="error">{error}</AlertBanner>}
      <div className="space-y-1.5">
        <Label htmlFor="audio-mic">
          <Mic className="mr-1 inline size-4" aria-hidden />
          Microphone
        </Label>
        <Select value={micId || undefined} onValueChange={setMicId} disabled={recording}>
          <SelectTrigger id="audio-mic">
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
      <div className="rounded-[12px] border border-border bg-muted/40 p-4">
        <canvas
          ref={canvasRef}
          width={800}
          height={128}
          className="h-32 w-full text-primary-text"
          aria-label="Live waveform"
        />
        <p className="mt-2 text-center font-mono text-2xl tabular-nums" role="timer" aria-live="off">
          {timer(elapsed)}
        </p>
      </div>
      <div className="flex flex-wrap gap-2">
        {!recording && !blob && (
          <Button onClick={() => void start()}>
            <Circle className="size-4 fill-current" aria-hidden /> Start Recording
          </Button>
        )}
        {recording && (
          <Button variant="destructive" onClick={stop}>
            <Square className="size-4 fill-current" aria-hidden /> Stop Recording
          </Button>
        )}
      </div>
      {blob && blobUrl && (
        <div className="space-y-3 rounded-[12px] border border-border p-4">
          <audio src={blobUrl} controls className="w-full" />
          <div className="space-y-1.5">
            <Label htmlFor="audio-name">Name</Label>
            <Input
              id="audio-name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="My voice note"
              maxLength={200}
            />
          </div>
          <div className="flex gap-2">
            <Button onClick={() => void save()} loading={uploading !== null}>
              <Save className="size-4" aria-hidden /> Save to Library
            </Button>
            <Button
              variant="outline"
              onClick={() => {
                setBlob(null);
                setBlobUrl(null);
              }}
              disabled={uploading !== null}
            >
              <RotateCcw className="size-4" aria-hidden /> Record Again
            </Button>
          </div>
          {uploading !== null && <Progress value={uploading} aria-label="Upload progress" />}
        </div>
      )}
    </div>
  );
}
