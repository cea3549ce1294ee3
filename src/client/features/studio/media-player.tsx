import { Plyr, type PlyrOptions } from "plyr-react";
import "plyr-react/plyr.css";
import { useMemo } from "react";
import { cn } from "@/client/lib/utils";

/**
 * Player settings from spec section 9: controls, settings menu (quality, speed, loop), speeds
 * 0.5-2 (default 1), qualities 4320-240 (default 720), 16:9, tap time to toggle remaining, global
 * keyboard shortcuts, seek tooltips, captions off, auto-hiding controls, context menu kept, no reset
 * at the end, click-to-play.
 */
export const PLYR_OPTIONS: PlyrOptions = {
  controls: [
    "play-large",
    "play",
    "progress",
    "current-time",
    "duration",
    "mute",
    "volume",
    "settings",
    "pip",
    "airplay",
    "fullscreen",
  ],
  settings: ["quality", "speed", "loop"],
  speed: { selected: 1, options: [0.5, 0.75, 1, 1.25, 1.5, 2] },
  quality: { default: 720, options: [4320, 2880, 2160, 1440, 1080, 720, 576, 480, 360, 240] },
  ratio: "16:9",
  toggleInvert: true,
  invertTime: false,
  keyboard: { focused: true, global: true },
  tooltips: { controls: true, seek: true },
  captions: { active: false },
  hideControls: true,
  disableContextMenu: false,
  resetOnEnd: false,
  clickToPlay: true,
  // the control icons come from our server, not Plyr's CDN (works offline)
  iconUrl: "/v/assets/plyr.svg",
  blankVideo: "",
};

/** One source played with Plyr (mp4 video or mp3 audio), in a 12 px rounded frame (spec section 9). */
export function MediaPlayer({
  src,
  type,
  mime,
  poster,
  title,
}: {
  src: string;
  type: "video" | "audio";
  mime: string;
  poster?: string | null;
  title?: string;
}) {
  const source = useMemo(
    () => ({ type, title, sources: [{ src, type: mime }], ...(poster ? { poster } : {}) }),
    [src, type, mime, poster, title],
  );
  return (
    <div
      className={cn(
        "overflow-hidden rounded-[12px] [--plyr-color-main:var(--color-primary)]",
        // Plyr draws audio controls on white with grey icons whatever the theme: the card's colours instead
        type === "video"
          ? "bg-black"
          : "border border-border [--plyr-audio-control-color:var(--color-card-foreground)] [--plyr-audio-controls-background:var(--color-card)]",
      )}
      data-testid="media-player"
    >
      <Plyr
        source={source}
        options={type === "audio" ? { ...PLYR_OPTIONS, ratio: undefined } : PLYR_OPTIONS}
      />
    </div>
  );
}
