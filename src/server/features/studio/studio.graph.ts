import type { EditDecisionList } from "../../db/schema";

/** Which streams the input has. */
export interface GraphStreams {
  hasVideo: boolean;
  hasAudio: boolean;
}

/** A filter graph ready for `-filter_complex`, the output labels to map, and the output length. */
export interface EditGraph {
  filterComplex: string;
  videoLabel: string | null;
  audioLabel: string | null;
  /** seconds */
  outputDurationSeconds: number;
}

const num = (v: number) => Number(v.toFixed(4)).toString();

/**
 * `atempo` accepts 0.5-2.0 in ffmpeg 4.1, so slower or faster speeds chain several
 * (0.25 = 0.5 x 0.5). Source: ffmpeg-filters documentation, atempo.
 */
export function atempoChain(speed: number): string[] {
  const out: string[] = [];
  let rest = speed;
  while (rest < 0.5) {
    out.push("atempo=0.5");
    rest /= 0.5;
  }
  while (rest > 2) {
    out.push("atempo=2.0");
    rest /= 2;
  }
  if (Math.abs(rest - 1) > 1e-6) out.push(`atempo=${num(rest)}`);
  return out;
}

/**
 * Builds the ONE ffmpeg filter graph that renders an edit decision list:
 * per kept segment `trim`/`atrim` + `setpts`/`asetpts=PTS-STARTPTS`, `concat` when there are several,
 * then `setpts=PTS/speed` + `atempo`, `eq` (brightness (b-100)/200, contrast c/100, saturation s/100,
 * from the editor's 0-200 % sliders), `boxblur` (radius = blur px), `fade`/`afade` at both ends and
 * `volume`. Works with ffmpeg 4.1 (no `xfade`). Fades are shortened so they never overlap.
 * @throws Error when the list keeps no segment.
 */
export function buildEditGraph(edl: EditDecisionList, streams: GraphStreams): EditGraph {
  if (!edl.segments.length) throw new Error("the edit keeps no segment");
  if (!streams.hasVideo && !streams.hasAudio) throw new Error("the input has no audio or video");
  const parts: string[] = [];
  const n = edl.segments.length;
  edl.segments.forEach((seg, i) => {
    if (streams.hasVideo)
      parts.push(`[0:v]trim=start=${num(seg.start)}:end=${num(seg.end)},setpts=PTS-STARTPTS[v${i}]`);
    if (streams.hasAudio)
      parts.push(`[0:a]atrim=start=${num(seg.start)}:end=${num(seg.end)},asetpts=PTS-STARTPTS[a${i}]`);
  });
  let v = streams.hasVideo ? "v0" : null;
  let a = streams.hasAudio ? "a0" : null;
  if (n > 1) {
    const inputs = edl.segments
      .map((_, i) => `${streams.hasVideo ? `[v${i}]` : ""}${streams.hasAudio ? `[a${i}]` : ""}`)
      .join("");
    const outs = `${streams.hasVideo ? "[vc]" : ""}${streams.hasAudio ? "[ac]" : ""}`;
    parts.push(`${inputs}concat=n=${n}:v=${streams.hasVideo ? 1 : 0}:a=${streams.hasAudio ? 1 : 0}${outs}`);
    v = streams.hasVideo ? "vc" : null;
    a = streams.hasAudio ? "ac" : null;
  }
  const kept = edl.segments.reduce((s, seg) => s + (seg.end - seg.start), 0);
  const duration = kept / edl.speed;
  let fadeIn = Math.max(0, edl.fadeIn);
  let fadeOut = Math.max(0, edl.fadeOut);
  if (fadeIn + fadeOut > duration) {
    const scale = duration / (fadeIn + fadeOut);
    fadeIn *= scale;
    fadeOut *= scale;
  }
  const fadeOutStart = Math.max(0, duration - fadeOut);

  if (v) {
    const chain: string[] = [];
    if (edl.speed !== 1) chain.push(`setpts=PTS/${num(edl.speed)}`);
    if (edl.brightness !== 100 || edl.contrast !== 100 || edl.saturation !== 100)
      chain.push(
        `eq=brightness=${num((edl.brightness - 100) / 200)}:contrast=${num(edl.contrast / 100)}:saturation=${num(edl.saturation / 100)}`,
      );
    if (edl.blur > 0) chain.push(`boxblur=luma_radius=${num(edl.blur)}:luma_power=1`);
    if (fadeIn > 0) chain.push(`fade=t=in:st=0:d=${num(fadeIn)}`);
    if (fadeOut > 0) chain.push(`fade=t=out:st=${num(fadeOutStart)}:d=${num(fadeOut)}`);
    chain.push("format=yuv420p");
    parts.push(`[${v}]${chain.join(",")}[vout]`);
  }
  if (a) {
    const chain: string[] = [...atempoChain(edl.speed)];
    if (edl.volume !== 1) chain.push(`volume=${num(edl.volume)}`);
    if (fadeIn > 0) chain.push(`afade=t=in:st=0:d=${num(fadeIn)}`);
    if (fadeOut > 0) chain.push(`afade=t=out:st=${num(fadeOutStart)}:d=${num(fadeOut)}`);
    if (!chain.length) chain.push("anull");
    parts.push(`[${a}]${chain.join(",")}[aout]`);
  }
  return {
    filterComplex: parts.join(";"),
    videoLabel: v ? "[vout]" : null,
    audioLabel: a ? "[aout]" : null,
    outputDurationSeconds: duration,
  };
}

/**
 * Output options for a rendered edit: H.264/AAC MP4 with faststart for video (frames at their own
 * times, `-vsync vfr`), MP3 for audio only.
 */
export function renderOutputOptions(graph: EditGraph): {
  options: string[];
  ext: "mp4" | "mp3";
  mime: string;
} {
  if (graph.videoLabel) {
    const opts = [
      "-map",
      graph.videoLabel,
      "-c:v",
      "libx264",
      "-preset",
      "veryfast",
      "-crf",
      "23",
      "-pix_fmt",
      "yuv420p",
      // frames pass with their own times (studio.pipeline PASS_FRAMES): a constant rate would repeat
      // the last frame across every gap in the input
      "-vsync",
      "vfr",
    ];
    if (graph.audioLabel) opts.push("-map", graph.audioLabel, "-c:a", "aac", "-b:a", "128k");
    opts.push("-movflags", "+faststart");
    return { options: opts, ext: "mp4", mime: "video/mp4" };
  }
  return {
    options: ["-map", graph.audioLabel as string, "-c:a", "libmp3lame", "-b:a", "128k"],
    ext: "mp3",
    mime: "audio/mpeg",
  };
}

/**
 * Turns a selection (start..end), cut times and dropped segment indexes into the kept segments:
 * cuts strictly inside the selection split it (spec section 5: a cut lies strictly between the
 * selection's start and end), sorted and de-duplicated.
 */
export function segmentsFromCuts(start: number, end: number, cuts: number[], removed: number[] = []) {
  const inner = [...new Set(cuts.filter((c) => c > start && c < end))].sort((x, y) => x - y);
  const points = [start, ...inner, end];
  const all = points.slice(0, -1).map((p, i) => ({ start: p, end: points[i + 1] }));
  const drop = new Set(removed);
  return { all, kept: all.filter((_, i) => !drop.has(i)) };
}
