import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FfmpegError, resolveFfmpegBinaries, runFfmpeg } from "../../src/server/lib/ffmpeg";

// A caller that gives up on ffmpeg (a time limit, like the local avatar renderer's) must also stop
// its CPU: ffmpeg reads SIGTERM as "finish up" and a buffering filter graph ran on to its end.

const bins = resolveFfmpegBinaries({});
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitchwise-ffmpeg-abort-"));
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Process ids of running ffmpeg commands whose arguments mention `marker`. */
function ffmpegsWith(marker: string): number[] {
  const out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((l) => l.includes(marker) && l.includes("ffmpeg"))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

describe("an aborted ffmpeg run", () => {
  it("is killed at once, also while its filter graph is still buffering", async () => {
    // two frames an hour apart: fps=10 makes 36,000 frames for palettegen, which emits only at the end
    const input = path.join(dir, "gap.mp4");
    await runFfmpeg(bins, {
      globalOptions: ["-f", "lavfi"],
      inputs: [{ path: "color=c=red:s=64x64:r=1:d=2" }],
      outputs: [
        {
          path: input,
          options: ["-vf", "setpts='if(eq(N,0),0,3600/TB)'", "-vsync", "vfr", "-c:v", "libx264"],
        },
      ],
    });
    const output = path.join(dir, "slow-preview.gif");
    const started = Date.now();
    await expect(
      runFfmpeg(
        bins,
        {
          inputs: [{ path: input, format: "mov", options: ["-t", "3"] }],
          filterComplex:
            "[0:v]fps=10,scale=320:-2:flags=lanczos,split[a][b];[a]palettegen=max_colors=128[p];[b][p]paletteuse=dither=bayer",
          outputs: [{ path: output }],
        },
        { signal: AbortSignal.timeout(500) },
      ),
    ).rejects.toBeInstanceOf(FfmpegError);
    expect(Date.now() - started).toBeLessThan(5_000);
    // give the kernel a moment, then no ffmpeg of this run may be left
    await new Promise((r) => setTimeout(r, 1_000));
    const left = ffmpegsWith(output);
    for (const pid of left) process.kill(pid, "SIGKILL"); // do not leave it burning CPU after a failure
    expect(left).toEqual([]);
  });
});
